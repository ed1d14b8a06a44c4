/**
 * Correlation ids and the request checks the sequence batcher makes, with Triton's words (infer_request.cc
 * ValidateCorrelationId; sequence_batch_scheduler.cc Enqueue; sequence_utils.h SetupSequenceRequest). Pure
 * functions: the batcher runs them at submit, and a front end may run them earlier to answer before queueing.
 */
import { tritonToKServeDatatype } from '../../config/datatype';
import type { DataType } from '../../config/types';
import { errors } from '../../errors/messages';
import type { InferError } from '../../errors/infer-error';
import type { CorrelationId } from './types';

/** A map key per sequence: the type is part of it, so 42n and '42' never meet. */
export function sequenceKey(id: CorrelationId): string {
  return typeof id === 'bigint' ? `u:${id}` : `s:${id}`;
}

/** As Triton prints an id in its messages: the decimal number or the string itself. */
export function formatCorrelationId(id: CorrelationId): string {
  return String(id);
}

/** Triton's SequenceId::InSequence: 0 and "" mean the request names no sequence. */
export function inSequence(id: CorrelationId | undefined): id is CorrelationId {
  return id !== undefined && id !== 0n && id !== '';
}

const NUMERIC_CORRID = new Set(['TYPE_UINT64', 'TYPE_INT64', 'TYPE_UINT32', 'TYPE_INT32']);

const protocolName = (dt: string): string => tritonToKServeDatatype(dt as DataType) ?? dt;

/**
 * The request's id type against the config's CORRID control (Triton checks it while normalising the request,
 * before the batcher): a string id needs TYPE_STRING, a uint64 id one of the integer types. A request without
 * an id counts as uint64 0, as in Triton. Undefined when the model has no CORRID control or the types agree.
 */
export function corridTypeError(corrid: { name: string; dataType: string } | undefined, model: string, id: CorrelationId | undefined): InferError | undefined {
  if (!corrid) return undefined;
  const isString = typeof id === 'string';
  if (isString ? corrid.dataType === 'TYPE_STRING' : NUMERIC_CORRID.has(corrid.dataType)) return undefined;
  const given = isString ? 'BYTES' : 'UINT64';
  return errors.INVALID(
    `sequence batching control '${corrid.name}' data-type is '${given}', but model '${model}' expects '${protocolName(corrid.dataType)}'`,
  );
}

/** Triton's batch-size rule: the sequence batcher takes no statically batched requests. */
export function batchSizeError(model: string, batchSize: number): InferError | undefined {
  if (batchSize <= 1) return undefined;
  return errors.INVALID(`inference request to model '${model}' must specify batch-size 1 due to requirements of sequence batcher`);
}

export function missingIdError(model: string): InferError {
  return errors.INVALID(`inference request to model '${model}' must specify a non-zero or non-empty correlation ID`);
}

/** A request without START for a sequence that is neither in a slot nor in the backlog. */
export function missingStartError(model: string, id: CorrelationId): InferError {
  return errors.INVALID(
    `inference request for sequence ${formatCorrelationId(id)} to model '${model}' must specify the START flag on the first request of the sequence`,
  );
}

/** A backlogged sequence whose request timeout ran out (Triton's reaper rejects the whole backlog queue). */
export function backlogTimeoutError(): InferError {
  return errors.MODEL_UNAVAILABLE('timeout of the corresponding sequence', 'has been expired');
}

/** A START while the model unloads: running sequences may finish, new ones may not begin. */
export function stoppingError(): InferError {
  return errors.MODEL_UNAVAILABLE('Server is stopping, scheduler for model', 'has stopped accepting new inference requests');
}
