/** Types for native-session.mjs (plain JS so the worker thread loads it without a TypeScript loader). */
export interface NativeBinding {
  InferenceSession: new () => unknown;
  listSupportedBackends?: () => { name: string }[];
}
export declare function loadNativeBinding(): NativeBinding | null;
export declare class NativeSession {
  constructor(binding: NativeBinding, model: string | Uint8Array, options: Record<string, unknown>);
  readonly inputNames: string[];
  readonly outputNames: string[];
  run(feeds: Record<string, unknown>, fetches: readonly string[]): Record<string, { type: string; dims: readonly number[]; data: unknown }>;
  release(): void;
}
export declare function runPlainTensors(
  session: NativeSession,
  Tensor: new (type: string, data: unknown, dims: readonly number[]) => unknown,
  inputs: readonly { name: string; type: string; dims: readonly number[]; data: unknown }[],
): Record<string, Float32Array>;
