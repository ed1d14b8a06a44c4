/**
 * The one rule for who may change the server, whatever protocol a change arrives on (HTTP routes, gRPC
 * methods, Socket.IO control messages). Each protocol asks this guard for a verdict on the credential it
 * carries and only maps the verdict onto its own refusal (HTTP 401/403, gRPC UNAUTHENTICATED /
 * PERMISSION_DENIED, a control ack); what counts as a valid token and the wording live here once.
 *
 * No token configured = nothing is guarded (a loopback bind; the serve command refuses a network bind
 * without a token unless told otherwise, see control/security.ts).
 */
import { tokenMatches } from './security';

export type ControlVerdict = 'allowed' | 'missing' | 'wrong';

/** The refusal a client reads, per verdict: worded once for every protocol. */
export const CONTROL_REFUSAL: Record<Exclude<ControlVerdict, 'allowed'>, string> = {
  missing: 'control refused: this operation changes the server and needs the control token (Authorization: Bearer <token>)',
  wrong: 'control refused: wrong control token',
};

export class ControlGuard {
  constructor(private readonly token: string | undefined) {}

  /** Whether any operation is guarded at all. */
  get required(): boolean {
    return this.token !== undefined;
  }

  /** The verdict for the credential a caller presents (undefined or '' when it presents none). */
  verdict(given: unknown): ControlVerdict {
    if (this.token === undefined) return 'allowed';
    if (typeof given !== 'string' || given.length === 0) return 'missing';
    return tokenMatches(this.token, given) ? 'allowed' : 'wrong';
  }
}

/** The token of an `Authorization: Bearer <token>` value (HTTP header or gRPC metadata), else undefined. */
export function bearerToken(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}
