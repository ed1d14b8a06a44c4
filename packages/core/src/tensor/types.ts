/**
 * Tensors as they travel between the KServe codec, the scheduler payload and the backends.
 * Datatypes use KServe v2 names (BOOL, INT8 ... FP64, BYTES); the config uses Triton's TYPE_* names and
 * the conversion between the two lives next to the config types.
 */
export type KServeDatatype =
  | 'BOOL'
  | 'UINT8' | 'UINT16' | 'UINT32' | 'UINT64'
  | 'INT8' | 'INT16' | 'INT32' | 'INT64'
  | 'FP16' | 'FP32' | 'FP64'
  | 'BYTES';

export type TensorData =
  | Uint8Array | Uint16Array | Uint32Array | BigUint64Array
  | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Float32Array | Float64Array
  | Uint8Array[] /* BYTES: one element per entry */;

export interface Tensor {
  name: string;
  datatype: KServeDatatype;
  shape: number[];
  /** FP16 is carried as raw Uint16Array bits; BOOL as Uint8Array of 0/1 */
  data: TensorData;
}

/**
 * What the KServe front end hands the scheduler for one inference request, and what the backend
 * executor returns for it: the requested output tensors of that request alone (already split back out
 * of the batch).
 */
export interface InferPayload {
  inputs: Tensor[];
  /** names of the outputs to return; empty/undefined = all outputs of the model */
  outputs?: string[];
  /**
   * Every input's data was made for this request and nobody else holds it (a generative model's step
   * tensors, built fresh each step): a backend may hand the buffers to its worker thread as they are
   * instead of copying them first, after which they are unusable here. Absent for a client's request,
   * whose tensors may be views into a body or a shared cache key.
   */
  owned?: true;
}
export type InferResult = Tensor[];
