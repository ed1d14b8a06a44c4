/**
 * The control token on gRPC: the server's one ControlGuard (control/guard.ts) applied to every method of
 * `inference.GRPCInferenceService` that changes the server, as the HTTP side applies it to every
 * state-changing route. The token travels as call metadata `authorization: Bearer <token>` (what
 * tritonclient.grpc's `headers=` sends).
 *
 * Fail-safe by construction: only the methods named in OPEN_METHODS (reads and inference, which Triton
 * never guards) skip the guard; every other method the service registers, including one added later, is
 * guarded. The repository index is guarded as its HTTP route is (POST /v2/repository/index).
 */
import { Metadata, status as Status, type ServiceError, type UntypedHandleCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { bearerToken, CONTROL_REFUSAL, type ControlGuard } from '../control/guard';

export const OPEN_METHODS: ReadonlySet<string> = new Set([
  'ServerLive', 'ServerReady', 'ModelReady', 'ServerMetadata', 'ModelMetadata', 'ModelConfig', 'ModelStatistics',
  'ModelInfer', 'ModelStreamInfer',
]);

export const isControlMethod = (name: string): boolean => !OPEN_METHODS.has(name);

type AnyCall = { metadata: Metadata; emit(event: 'error', err: Partial<ServiceError>): unknown };

/** The refusal of a call whose credential the guard does not accept, or undefined when it may go on. */
function refusal(guard: ControlGuard, call: AnyCall): Partial<ServiceError> | undefined {
  const given = call.metadata.get('authorization')[0];
  const verdict = guard.verdict(bearerToken(typeof given === 'string' ? given : given?.toString()));
  if (verdict === 'allowed') return undefined;
  const code = verdict === 'missing' ? Status.UNAUTHENTICATED : Status.PERMISSION_DENIED;
  return { code, details: CONTROL_REFUSAL[verdict], message: CONTROL_REFUSAL[verdict] };
}

/** The same handlers, each control method behind the guard (checked before the handler sees anything). */
export function guardControlMethods(handlers: UntypedServiceImplementation, guard: ControlGuard): UntypedServiceImplementation {
  if (!guard.required) return handlers;
  const out: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(handlers)) {
    out[name] = isControlMethod(name) ? guarded(handler, guard) : handler;
  }
  return out;
}

function guarded(handler: UntypedHandleCall, guard: ControlGuard): UntypedHandleCall {
  const inner = handler as (call: AnyCall, callback?: (err: Partial<ServiceError>) => void) => void;
  return ((call: AnyCall, callback?: (err: Partial<ServiceError>) => void) => {
    const refused = refusal(guard, call);
    if (!refused) return inner(call, callback);
    // unary and client-streaming calls answer through the callback; server and bidi streams by an error
    if (typeof callback === 'function') callback(refused);
    else call.emit('error', refused);
  }) as UntypedHandleCall;
}
