/**
 * An inference request as a front end decoded it, before it is checked against the model: the one shape
 * HTTP's JSON and binary framing (kserve/parse-request.ts), gRPC's messages (grpc/codec.ts), ensembles'
 * steps and Python BLS calls all produce, and that validate-request.ts checks.
 */
import type { KServeDatatype } from '@inferscope/core';
import type { SequenceFields } from '@inferscope/core/scheduler';

/** Triton's shared-memory parameters of an input or output: a window of a registered region. */
export interface ShmRef {
  region: string;
  offset: number;
  byteSize: number;
}

export interface ParsedInput {
  name: string;
  datatype: KServeDatatype;
  shape: number[];
  /** JSON `data` (flat or nested) when the input came as JSON */
  json?: unknown;
  /** raw bytes when the input came through the binary extension (a view into the body) */
  binary?: Uint8Array;
  /** where the data is when it came through system shared memory (read before validation) */
  shm?: ShmRef;
}

export interface ParsedOutput {
  name: string;
  binary?: boolean;
  /** classification extension: return the top N classes of this output instead of its values */
  classification?: number;
  /** write this output into a registered shared-memory region instead of the response body */
  shm?: ShmRef;
}

export interface ParsedRequest {
  id?: string;
  inputs: ParsedInput[];
  /** undefined = the request named no outputs: return all of them */
  outputs?: ParsedOutput[];
  /** request-level `binary_data_output`: the default for outputs not listed or not saying */
  binaryOutput: boolean;
  priority?: number;
  timeoutUs?: number;
  /** sequence_id / sequence_start / sequence_end, when the request set any (a stateful model reads them) */
  sequence?: SequenceFields;
  /**
   * Binary extension, `Inference-Header-Content-Length: 0`: the whole body is the raw data of the model's
   * only input (name, datatype and shape come from the config; see validate-request).
   */
  raw?: Uint8Array;
}

/** Largest element count we accept for one tensor: keeps shape arithmetic exact and allocations sane. */
export const MAX_ELEMENTS = 2 ** 31 - 1;
