/**
 * Triton's generate extension (HTTP only): `POST /v2/models/{m}[/versions/{v}]/generate` and
 * `.../generate_stream`. The request is one JSON object whose members name the model's inputs (a scalar
 * becomes a one-element tensor, an array a 1-D one; a batching model gets the batch dimension of 1
 * prepended), plus an optional `id` and `parameters` (checked as an infer request's). A response is one
 * JSON object: `model_name`, `model_version`, `id` when given, and each output by name (a one-element
 * output as a scalar, others as arrays, BYTES as strings).
 *
 * generate answers once: for a decoupled model, with its last response that carried data. generate_stream
 * sends each response as a server-sent event (`data: {...}`); a failure before the first response is an
 * ordinary JSON error with its status, one after it an event `data: {"error": "..."}`, then the stream ends.
 */
import type { Tensor } from '@inferscope/core';
import { applyRequestParameters } from './parse-request';
import type { ParsedRequest } from '../infer/parsed-request';
import type { ModelSpec } from '../infer/model-spec';
import { invalid } from '../infer/errors';
import { bytesAsText } from '../infer/json-data';
import type { StreamedResponse } from '../infer/stream-inference';

const RESERVED = new Set(['id', 'parameters']);

export function parseGenerateRequest(body: unknown, spec: ModelSpec): ParsedRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('the generate request must be a JSON object');
  const fields = body as Record<string, unknown>;
  const req: ParsedRequest = { inputs: [], binaryOutput: false };
  if (fields.id !== undefined) {
    if (typeof fields.id !== 'string') throw invalid("Unable to parse 'id'");
    req.id = fields.id;
  }
  if (fields.parameters !== undefined) {
    if (typeof fields.parameters !== 'object' || fields.parameters === null || Array.isArray(fields.parameters)) throw invalid("Unable to parse 'parameters'");
    applyRequestParameters(fields.parameters as Record<string, unknown>, req);
  }
  for (const [name, value] of Object.entries(fields)) {
    if (RESERVED.has(name)) continue;
    const io = spec.inputs.get(name);
    if (!io) throw invalid(`unexpected inference input '${name}' for model '${spec.name}'`);
    if (!io.datatype) throw invalid(`input '${name}' of model '${spec.name}' has datatype ${io.datatypeName}, which the generate endpoint cannot send`);
    const data = Array.isArray(value) ? value : [value];
    if (data.some((v) => v === null || typeof v === 'object')) throw invalid(`input '${name}': the generate endpoint takes a string, number, boolean or a flat array of them`);
    const shape = spec.maxBatchSize > 0 ? [1, data.length] : [data.length];
    req.inputs.push({ name, datatype: io.datatype, shape, json: data });
  }
  return req;
}

function jsonValue(t: Tensor): unknown {
  const values = Array.isArray(t.data)
    ? (t.data as Uint8Array[]).map((b, i) => bytesAsText(b, `element ${i} of BYTES output '${t.name}'`, 'the generate endpoint sends BYTES as JSON strings only (the infer endpoint can send them as binary data)'))
    : Array.from(t.data as ArrayLike<number | bigint>, (v) => (typeof v === 'bigint' ? Number(v) : t.datatype === 'BOOL' ? v !== 0 : v));
  return values.length === 1 ? values[0] : values;
}

/** One generate response object. */
export function generateResponse(r: Pick<StreamedResponse, 'served' | 'request' | 'outputs'>): Record<string, unknown> {
  const out: Record<string, unknown> = { model_name: r.served.name, model_version: r.served.version };
  if (r.request.id !== undefined) out.id = r.request.id;
  for (const t of r.outputs) out[t.name] = jsonValue(t);
  return out;
}
