/**
 * The control token on HTTP: the same rule as the live socket's control (control/security.ts). When a token
 * is set, every route that changes the server's state needs it (`Authorization: Bearer <token>`); without
 * one, loopback binds stay open as before (the serve command refuses a non-loopback bind without a token).
 *
 * Fail-safe by construction: the guard is attached by an onRoute hook to EVERY route whose method can
 * change state (anything but GET/HEAD/OPTIONS), except the data plane listed here (inference itself, which
 * Triton never guards either). A route added later is guarded unless someone adds it to DATA_PLANE.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken, ControlGuard, CONTROL_REFUSAL } from '../control/guard';
import { errors } from '@inferscope/core';
import { sendHttpError } from './errors';

const READ_ONLY_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Routes that take requests from any client: inference (the server's job), not control. */
export const DATA_PLANE: readonly RegExp[] = [/^\/v2\/models\/:[a-z]+(\/versions\/:[a-z]+)?\/(infer|generate|generate_stream)$/];

export function isControlRoute(method: string | string[], url: string): boolean {
  const methods = Array.isArray(method) ? method : [method];
  if (methods.every((m) => READ_ONLY_METHODS.has(m.toUpperCase()))) return false;
  return !DATA_PLANE.some((re) => re.test(url));
}

/** Call before any route is registered. No token = nothing is guarded (loopback default). */
export function installControlAuth(app: FastifyInstance, control: ControlGuard): void {
  if (!control.required) return;
  const guard = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const verdict = control.verdict(bearerToken(req.headers.authorization));
    if (verdict === 'missing') {
      reply.header('www-authenticate', 'Bearer');
      await sendHttpError(reply, errors.CONTROL_REFUSED(CONTROL_REFUSAL.missing, 401));
      return reply;
    }
    if (verdict === 'wrong') {
      await sendHttpError(reply, errors.CONTROL_REFUSED(CONTROL_REFUSAL.wrong, 403));
      return reply;
    }
  };
  app.addHook('onRoute', (route) => {
    if (!isControlRoute(route.method, route.url)) return;
    const existing = route.onRequest ? (Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) : [];
    // First of all hooks: nothing of the request (body included) is looked at before the token.
    route.onRequest = [guard as never, ...existing];
  });
}
