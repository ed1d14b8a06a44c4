/**
 * Who may change the server: the control token and the bind rule every control channel shares (live socket,
 * HTTP control routes, gRPC control methods; control/guard.ts applies it).
 *
 * Control over a socket can reconfigure models, start load and write config files, so: loopback binds are
 * open by default (only local users reach them); any other bind needs a control token, unless the operator
 * explicitly accepts an open control channel (--allow-open-control). The token is compared in constant
 * time and never logged.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { isIP } from 'node:net';

/** Environment variable read when --control-token is not given. */
export const CONTROL_TOKEN_ENV = 'INFERSCOPE_CONTROL_TOKEN';

/** True for addresses only this machine can reach (127.0.0.0/8, ::1, 'localhost'). */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (h.startsWith('::ffff:')) return h.slice(7).startsWith('127.');
  return false;
}

/**
 * Throws with a message fit for the command line when binding `host` would expose control to the network.
 * Called by the serve command before listen.
 */
export function checkBindSecurity(host: string, token: string | undefined, allowOpen: boolean): void {
  if (isLoopbackHost(host)) return;
  if (token && token.length > 0) return;
  if (allowOpen) return;
  throw new Error(
    `refusing to bind ${host}: the live control channel would be open to the network. ` +
      `Set --control-token (or ${CONTROL_TOKEN_ENV}), or pass --allow-open-control to accept an open control channel.`,
  );
}

/** The flag wins over the environment; empty strings count as "no token". */
export function resolveControlToken(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const t = flag ?? env[CONTROL_TOKEN_ENV];
  return t && t.length > 0 ? t : undefined;
}

/**
 * Constant-time comparison. Both sides are hashed first so the comparison length does not depend on the
 * secret's length either.
 */
export function tokenMatches(expected: string | undefined, given: unknown): boolean {
  if (!expected) return true;
  if (typeof given !== 'string' || given.length === 0) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}
