/**
 * Encode an inference response: JSON (`application/json`) or, when any output goes binary, Triton's
 * binary layout (JSON header, then each binary output's bytes in output order; `Inference-Header-Content-Length`
 * gives the header's size and each output's `parameters.binary_data_size` its bytes).
 */
import type { Tensor } from '@inferscope/core';
import { encodeBinaryData } from '../infer/binary-data';
import { encodeJsonData } from '../infer/json-data';
import type { DecodedInferRequest } from '../infer/validate-request';

export interface EncodedResponse {
  body: Buffer | string;
  contentType: string;
  /** set when the body uses the binary extension */
  headerLength?: number;
}

export function encodeInferResponse(
  modelName: string,
  modelVersion: string,
  req: DecodedInferRequest,
  tensors: readonly Tensor[],
  /** outputs already written into shared memory (name -> bytes): described, their data not sent */
  shmWritten?: ReadonlyMap<string, number>,
): EncodedResponse {
  let json = `{"model_name":${JSON.stringify(modelName)},"model_version":${JSON.stringify(modelVersion)}`;
  // Triton leaves an empty request id out of the response
  if (req.id) json += `,"id":${JSON.stringify(req.id)}`;
  json += ',"outputs":[';
  const chunks: Uint8Array[] = [];
  let binaryBytes = 0;
  for (let i = 0; i < tensors.length; i++) {
    const t = tensors[i];
    const binary = req.binaryOutputs.get(t.name) ?? req.binaryDefault;
    json += `${i ? ',' : ''}{"name":${JSON.stringify(t.name)},"datatype":"${t.datatype}","shape":[${t.shape.join(',')}]`;
    const shm = shmWritten?.get(t.name);
    if (shm !== undefined) {
      const ref = req.shmOutputs!.get(t.name)!;
      json += `,"parameters":{"shared_memory_region":${JSON.stringify(ref.region)},"shared_memory_byte_size":${shm}${ref.offset ? `,"shared_memory_offset":${ref.offset}` : ''}}}`;
    } else if (binary) {
      const bytes = encodeBinaryData(t.datatype, t.data);
      // an empty binary output adds no bytes; when no output has any, Triton's answer is plain JSON
      if (bytes.byteLength > 0) chunks.push(bytes);
      binaryBytes += bytes.byteLength;
      json += `,"parameters":{"binary_data_size":${bytes.byteLength}}}`;
    } else {
      json += `,"data":${encodeJsonData(t.datatype, t.data, t.name)}}`;
    }
  }
  json += ']}';

  if (chunks.length === 0) return { body: json, contentType: 'application/json' };
  // One buffer, the header written straight into it: no separate header Buffer and no concat copy.
  const headerLength = Buffer.byteLength(json, 'utf8');
  const body = Buffer.allocUnsafe(headerLength + binaryBytes);
  body.write(json, 0, 'utf8');
  let offset = headerLength;
  for (const c of chunks) {
    body.set(c, offset);
    offset += c.byteLength;
  }
  return { body, contentType: 'application/octet-stream', headerLength };
}
