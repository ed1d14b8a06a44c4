// Public surface of @inferscope/core. Each area also has its own entry (e.g. '@inferscope/core/config/index.ts').
export * from './errors/index';
export * from './events';
export * from './tensor/types';
export * from './scheduler/types';
export { runBatch, type BatchDone } from './scheduler/run-batch';
export * from './live/protocol';
