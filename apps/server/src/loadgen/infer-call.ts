/** One generated request as a load target sends it: which model, how big, with what per-request options. */
export interface InferCall {
  model: string;
  version?: string;
  batchSize: number;
  /** variable non-batch dims */
  shape?: number[];
  priority?: number;
  /** per-request queue timeout override, µs (KServe parameters.timeout) */
  timeoutUs?: number;
  id?: string;
  /** the request's place in a sequence of a stateful model (KServe parameters sequence_id/start/end) */
  sequence?: { id: number | string; start: boolean; end: boolean };
}
