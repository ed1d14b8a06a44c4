/**
 * Triton's shared-memory extensions over HTTP. System shared memory is served (shm/system-shm.ts);
 * CUDA shared memory answers as a Triton build without GPUs does, so clients get a clear refusal.
 */
import type { FastifyInstance } from 'fastify';
import { InferError } from '@inferscope/core';
import type { SystemSharedMemory } from '../shm/system-shm';

export function registerShmRoutes(app: FastifyInstance, shm: SystemSharedMemory): void {
  type R = { Params: { region: string } };
  const ok = (reply: import('fastify').FastifyReply) => reply.code(200).header('content-type', 'application/json').send();
  app.get('/v2/systemsharedmemory/status', async () => shm.status()); // ShmError is an InferError: the error handler answers it
  app.get<R>('/v2/systemsharedmemory/region/:region/status', async (req) => shm.status(req.params.region));
  app.post<R>('/v2/systemsharedmemory/region/:region/register', async (req, reply) => {
    shm.register(req.params.region, req.body);
    return ok(reply);
  });
  app.post<R>('/v2/systemsharedmemory/region/:region/unregister', async (req, reply) => {
    shm.unregister(req.params.region);
    return ok(reply);
  });
  app.post('/v2/systemsharedmemory/unregister', async (_req, reply) => {
    shm.unregister();
    return ok(reply);
  });

  app.get('/v2/cudasharedmemory/status', async () => []);
  app.get<R>('/v2/cudasharedmemory/region/:region/status', async (req) => {
    throw new InferError('INVALID_ARG', `Unable to find cuda shared memory region: '${req.params.region}'`);
  });
  app.post<R>('/v2/cudasharedmemory/region/:region/register', async (req) => {
    throw new InferError('INVALID_ARG', `failed to register CUDA shared memory region: '${req.params.region}', GPUs not supported`);
  });
  app.post<R>('/v2/cudasharedmemory/region/:region/unregister', async (_req, reply) => ok(reply));
  app.post('/v2/cudasharedmemory/unregister', async (_req, reply) => ok(reply));
}
