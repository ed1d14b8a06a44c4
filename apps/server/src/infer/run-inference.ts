/**
 * One inference, whatever protocol it came in on: HTTP (routes.ts) and gRPC (grpc/infer.ts) both call
 * `runInference` with a decoder for their framing, so model resolution, validation, the refusal event,
 * the scheduler hand-off, output selection and classification exist once. The caller only frames the
 * answer (JSON/binary HTTP body, or a ModelInferResponse).
 */
import type { EventBus, InferResult, RequestProtocol, Tensor } from '@inferscope/core';
import { join } from 'node:path';
import { errors, InferError } from '@inferscope/core';
import { describeError } from './errors';
import { modelSpecFor, type ModelSpec } from './model-spec';
import type { ParsedRequest, ShmRef } from './parsed-request';
import { byteSizeMismatch, encodeBinaryData } from './binary-data';
import { elementByteSize } from '@inferscope/core/tensor';
import { resolveModel, type InferModelSource, type ServedModelView } from './resolve-model';
import { toSchedulerRequest, validateInferRequest, type DecodedInferRequest } from './validate-request';
import { classify, outputLabels } from './classification';
import type { ProtocolTaggingBus } from './protocol-bus';
import type { CancelSignal } from './cancellable';
import { isDecoupled, type ResponseStream, type StreamingPayload } from './response-stream';
import { overLimitMessage, type Held } from './inflight-bytes';
import type { MemoryLedger } from '../memory/ledger';
import { toMiB } from '../memory/ledger';
import { requestMemoryCost } from '../memory/request-cost';

export interface InferServiceDeps {
  manager: InferModelSource;
  /**
   * When given, a request refused by the codec (malformed, wrong inputs/shape/datatype) for a known model
   * is published as `request.rejected` with reason 'invalid', so the dashboard sees it. `now` is the
   * schedulers' clock in µs. A ProtocolTaggingBus also stamps the protocol onto `request.queued`.
   */
  events?: { bus: EventBus; now: () => number };
  /** registered system shared-memory regions (Triton's extension); absent = shared memory refused */
  shm?: SharedMemoryAccess;
  /** the memory budget (memory/ledger.ts): a request whose estimated cost passes what it leaves free is refused */
  memory?: Pick<MemoryLedger, 'freeFor'>;
}

/** What inference needs of the shared-memory registry (apps/server/src/shm/system-shm.ts). */
export interface SharedMemoryAccess {
  read(region: string, offset: number, byteSize: number): Buffer;
  write(region: string, offset: number, data: Uint8Array, capacity: number): void;
}

export interface InferCall {
  protocol: RequestProtocol;
  model: string;
  /** undefined or '' = the highest READY version */
  version?: string;
  /** the protocol's framing -> the protocol-neutral request (may throw INVALID_ARG) */
  decode(spec: ModelSpec): ParsedRequest | Promise<ParsedRequest>;
  /** aborted when the client goes away: a request still queued is cancelled (ModelManager.infer) */
  signal?: CancelSignal;
  /**
   * Where a decoupled model's responses go (stream-inference.ts); without one, a decoupled model is
   * refused as Triton refuses it on its unary endpoints.
   */
  stream?: ResponseStream;
  /** told once the request passed validation, just before it enters the scheduler */
  accepted?(served: ServedModelView, request: DecodedInferRequest): void;
  /** the request's share of --max-inflight-bytes (infer/inflight-bytes.ts), grown by the shm inputs it reads */
  charge?: Pick<Held, 'grow' | 'limit' | 'bytes'>;
}

/** Triton's words (UNSUPPORTED) when a unary endpoint is asked to run a decoupled model. */
const DECOUPLED_REFUSAL: Record<RequestProtocol, string> = {
  http: "HTTP end point doesn't support models with decoupled transaction policy",
  grpc: "ModelInfer RPC doesn't support models with decoupled transaction policy",
};

export interface InferOutcome {
  served: ServedModelView;
  request: DecodedInferRequest;
  /** the answer's outputs in order (requested order, or the model's), classification applied */
  outputs: Tensor[];
  /** outputs written into shared memory: name -> bytes written (the encoders send no data for them) */
  shmWritten?: Map<string, number>;
}

let invalidSeq = 0;

export function checkVersion(model: string, version: string | undefined): string | undefined {
  if (version === undefined || version === '') return undefined;
  if (!/^[0-9]+$/.test(version)) {
    throw errors.INVALID(`invalid model version '${version}' for model '${model}': versions are positive integers`);
  }
  return version;
}

export async function runInference(deps: InferServiceDeps, call: InferCall): Promise<InferOutcome> {
  const served = resolveModel(deps.manager, call.model, checkVersion(call.model, call.version));
  if (!call.stream && isDecoupled(served.config)) {
    throw new InferError('UNSUPPORTED', DECOUPLED_REFUSAL[call.protocol]);
  }
  let request: DecodedInferRequest;
  const spec = modelSpecFor(served.name, served.version, served.config);
  try {
    const parsed = call.decode(spec);
    // a synchronous decoder (an uncompressed HTTP body, a gRPC message) costs no extra turn of the loop
    request = validateInferRequest(readSharedInputs(parsed instanceof Promise ? await parsed : parsed, deps.shm, spec, call), spec);
    admitMemory(deps, call, served, request);
  } catch (err) {
    deps.events?.bus.emit({
      type: 'request.rejected', t: deps.events.now(), model: served.name, version: served.version,
      request_id: `${call.protocol}-invalid-${++invalidSeq}`, reason: 'invalid', message: describeError(err).message,
      protocol: call.protocol,
    });
    throw err;
  }
  if (call.signal?.aborted) throw errors.CLIENT_CANCELLED('the client cancelled the request');
  const schedulerRequest = toSchedulerRequest(request);
  if (call.stream) (schedulerRequest.payload as StreamingPayload).stream = call.stream;
  call.accepted?.(served, request);
  const bus = deps.events?.bus as ProtocolTaggingBus | undefined;
  // enter/leave rather than within(fn): a closure per request is what this path avoids (see routes.ts)
  const tagging = bus !== undefined && typeof bus.enter === 'function';
  const previous = tagging ? bus.enter(call.protocol) : undefined;
  let pending: Promise<InferResult>;
  try {
    pending = deps.manager.infer(served.name, served.version, schedulerRequest, call.signal);
  } finally {
    if (tagging) bus.leave(previous);
  }
  const result = await pending;
  const outputs = selectOutputs(served, spec, request, result);
  const shmWritten = request.shmOutputs ? writeSharedOutputs(outputs, request.shmOutputs, deps.shm) : undefined;
  return { served, request, outputs, ...(shmWritten ? { shmWritten } : {}) };
}

/**
 * Inputs given by shared-memory region: their bytes, bounds-checked against the registered window. Nothing
 * is read before every such input's byte_size is known to be its tensor's (a small request must not make
 * the server copy a whole large window only to refuse it) and the bytes are charged to the request's
 * share of --max-inflight-bytes, as an HTTP body's are.
 */
function readSharedInputs(req: ParsedRequest, shm: SharedMemoryAccess | undefined, spec: ModelSpec, call: InferCall): ParsedRequest {
  let total = 0;
  for (const input of req.inputs) {
    if (!input.shm) continue;
    if (!shm) throw errors.INVALID(`shared memory inputs are not supported by this server (input '${input.name}')`);
    checkSharedByteSize(input, spec.name);
    total += input.shm.byteSize;
  }
  if (total === 0) return req;
  if (call.charge && !call.charge.grow(total)) throw new InferError('UNAVAILABLE', overLimitMessage(call.charge.limit));
  for (const input of req.inputs) {
    if (input.shm) input.binary = shmCall(() => shm!.read(input.shm!.region, input.shm!.offset, input.shm!.byteSize));
  }
  return req;
}

/**
 * The request's estimated memory while it runs (memory/request-cost.ts), before it is queued: refused
 * with 400 (it can never fit) past what the memory budget leaves free or past --max-inflight-bytes as a
 * whole; else its charge on --max-inflight-bytes grows to it (503 while others hold the rest, as a body).
 */
function admitMemory(deps: InferServiceDeps, call: InferCall, served: ServedModelView, request: DecodedInferRequest): void {
  const cost = requestMemoryCost(served.config, request.inputs, request.batchSize);
  const room = deps.memory?.freeFor(served.name, served.version);
  if (room && cost.total > room.free) {
    throw errors.INVALID(
      `request for model '${served.name}' would need ${toMiB(cost.total)} MiB while it runs (inputs ${toMiB(cost.inputs)} MiB, ` +
      `outputs and intermediates ${toMiB(cost.outputs + cost.intermediates)} MiB, estimated), more than the ${toMiB(room.free)} MiB ` +
      `the memory budget leaves free on ${room.device} (--memory-budget ${toMiB(room.budget)} MiB)`);
  }
  if (call.charge && cost.total > call.charge.limit) {
    throw errors.INVALID(
      `request for model '${served.name}' would need ${toMiB(cost.total)} MiB while it runs (inputs, outputs and intermediates, estimated), ` +
      `more than the ${toMiB(call.charge.limit)} MiB --max-inflight-bytes allows for all requests in flight`);
  }
  const extra = cost.total - (call.charge?.bytes ?? 0);
  if (call.charge && extra > 0 && !call.charge.grow(extra)) throw new InferError('UNAVAILABLE', overLimitMessage(call.charge.limit));
}

/**
 * A shared-memory input's byte_size against its tensor's: exactly elements x element size for fixed-size
 * types; for BYTES (4-byte length + data per element) at least the prefixes (the decoder checks the rest).
 */
function checkSharedByteSize(input: ParsedRequest['inputs'][number], model: string): void {
  const byteSize = input.shm!.byteSize;
  const elements = input.shape.reduce((a, b) => a * b, 1);
  if (input.datatype === 'BYTES') {
    if (byteSize < 4 * elements) {
      throw errors.INVALID(`shared memory byte size ${byteSize} of input '${input.name}' for model '${model}' is too small for ${elements} string elements`);
    }
    return;
  }
  const expected = elements * elementByteSize(input.datatype);
  if (byteSize !== expected) throw byteSizeMismatch(input.name, model, expected, byteSize);
}

function writeSharedOutputs(outputs: Tensor[], refs: Map<string, ShmRef>, shm: SharedMemoryAccess | undefined): Map<string, number> {
  const written = new Map<string, number>();
  for (const t of outputs) {
    const ref = refs.get(t.name);
    if (!ref) continue;
    if (!shm) throw errors.INVALID(`shared memory outputs are not supported by this server (output '${t.name}')`);
    const bytes = encodeBinaryData(t.datatype, t.data);
    if (bytes.byteLength > ref.byteSize) {
      throw errors.INVALID(`shared memory size specified with the request for output '${t.name}' (${ref.byteSize} bytes) should be at least ${bytes.byteLength} bytes to hold the results`);
    }
    shmCall(() => shm.write(ref.region, ref.offset, bytes, ref.byteSize));
    written.set(t.name, bytes.byteLength);
  }
  return written;
}

/** Registry refusals (unknown region, window out of bounds) are the client's error (ShmError's code) with its words. */
function shmCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw err instanceof InferError ? err : errors.INVALID((err as Error).message);
  }
}

/** The requested outputs in request order (all of the model's otherwise), classification applied. */
export function selectOutputs(served: ServedModelView, spec: ModelSpec, req: DecodedInferRequest, result: Tensor[]): Tensor[] {
  let tensors = result;
  if (req.outputs) {
    const byName = new Map<string, Tensor>();
    for (const t of result) byName.set(t.name, t);
    tensors = req.outputs.map((name) => {
      const t = byName.get(name);
      if (!t) throw new InferError('INTERNAL', `backend returned no output '${name}' for model '${served.name}'`);
      return t;
    });
  }
  const classes = req.classification;
  if (!classes) return tensors;
  const dir = served.repository ? join(served.repository, served.name) : undefined;
  return tensors.map((t) => {
    const k = classes.get(t.name);
    if (k === undefined) return t;
    const labelFile = served.config.output?.find((o) => o.name === t.name)?.label_filename;
    return classify(t, k, spec.maxBatchSize > 0, outputLabels(dir, labelFile));
  });
}
