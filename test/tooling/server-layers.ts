// The server's folder order, lowest first (checked by folder-layers.test.ts; apps/server/src/README.md
// says what each folder holds). A folder imports only folders of lower layers.
import type { AppLayers } from './folder-layers.ts';

export const layers: AppLayers = {
  app: 'apps/server/src',
  layers: [
    // what needs Node and nothing of the server: argument reading, clocks, logging, child processes,
    // listener timeouts, generated models, statistics, shared memory, traces
    ['args', 'child-process', 'logging', 'model-generator', 'net', 'shm', 'stats', 'timing', 'trace'],
    ['memory', 'metrics', 'repository'], // the memory ledger; Prometheus exposition; reading repositories
    ['infer'], // the inference request's home: decode checks, validation, admission, cancellation, error answers
    ['control'], // who may control, the control messages and their validation
    ['backends', 'ensemble', 'generate'], // running a batch on a framework; an ensemble's steps; a generative model's steps
    ['calibration', 'models'], // per batch size costs; the model manager (loads, versions, live edits, saves)
    ['kserve'], // KServe v2's wire formats and the repository extension
    ['grpc', 'http'], // the two front ends
    ['live', 'loadgen'], // the dashboard's Socket.IO gateway; the load generator
    ['clients', 'config-check', 'fleet'], // perf, A/B and sweeps; config check and print; replicas behind HAProxy
    ['.'], // app.ts, register-live.ts, server-options.ts: the composition root
    ['cli'], // the inferscope commands
  ],
};
