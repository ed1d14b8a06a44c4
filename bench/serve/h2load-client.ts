/**
 * h2load (Debian's nghttp2-client: a C HTTP/2 and HTTP/1.1 load generator) for the serve benchmarks:
 * install when missing, run as a child process, read its summary; and the gRPC request body it POSTs.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { Tensor } from '@inferscope/core';
import { inferenceService } from '../../apps/server/src/grpc/proto';
import { grpcFrame } from '../../apps/server/src/grpc/direct-unary';

export function ensureH2load(): void {
  if (spawnSync('h2load', ['--version']).status === 0) return;
  console.log('h2load missing: apt-get install -y nghttp2-client');
  const r = spawnSync('apt-get', ['install', '-y', 'nghttp2-client'], { stdio: 'inherit' });
  if (r.status !== 0 || spawnSync('h2load', ['--version']).status !== 0) throw new Error('could not install nghttp2-client (h2load); run: apt-get install -y nghttp2-client');
}

export interface H2Result { req_per_s: number; done: number; succeeded: number; failed: number; errored: number; status2xx: number; mean_ms: number; max_ms: number }

/** h2load as a child process (asynchronously: the server under test runs on this event loop). */
export async function h2load(args: string[]): Promise<H2Result> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('h2load', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`h2load exited ${code}:\n${text}`))));
  });
  if (process.env.H2LOAD_VERBOSE) console.log(out);
  const num = (re: RegExp) => Number(out.match(re)?.[1] ?? NaN);
  const ms = (v: string | undefined, unit: string | undefined) => (v === undefined ? NaN : Number(v) * (unit === 'us' ? 1e-3 : unit === 's' ? 1e3 : 1));
  const t = out.match(/time for request:\s+([\d.]+)(us|ms|s)\s+([\d.]+)(us|ms|s)\s+([\d.]+)(us|ms|s)/);
  return {
    req_per_s: num(/finished in [\d.]+(?:us|ms|s), ([\d.]+) req\/s/),
    done: num(/requests: \d+ total, \d+ started, (\d+) done/),
    succeeded: num(/(\d+) succeeded/),
    failed: num(/(\d+) failed/),
    errored: num(/(\d+) errored/),
    status2xx: num(/status codes: (\d+) 2xx/),
    mean_ms: ms(t?.[5], t?.[6]),
    max_ms: ms(t?.[3], t?.[4]),
  };
}

/** The gRPC body h2load sends: one length-prefixed message (compressed flag 0, big-endian length). */
export function grpcInferBody(model: string, input: Tensor): Buffer {
  const method = inferenceService().service.ModelInfer!;
  const data = input.data as Float32Array;
  const message = method.requestSerialize({
    model_name: model,
    inputs: [{ name: input.name, datatype: input.datatype, shape: input.shape.map(String) }],
    raw_input_contents: [Buffer.from(data.buffer, data.byteOffset, data.byteLength)],
  });
  return grpcFrame(message);
}

