/**
 * One way to send a control message, whichever source feeds the dashboard (socket or simulator), with
 * every attempt and its answer recorded in the acknowledgement log the controls panel shows.
 */
import { codeOf, type ControlAck, type ControlAckOf, type ControlMessage } from '@inferscope/core';
import { pushAck, resolveAck } from '../store/app-store';

export type ControlSender = (msg: ControlMessage) => Promise<ControlAck>;

let sender: ControlSender = async () => ({ ok: false, error: 'not connected', code: 'UNAVAILABLE' });

export function setControlSender(s: ControlSender): void {
  sender = s;
}

/** Sends `msg`; the answer is typed by its action (core's ControlAckBodies). */
export async function sendControl<M extends ControlMessage>(msg: M): Promise<ControlAckOf<M['action']>> {
  const id = pushAck(msg);
  let ack: ControlAckOf<M['action']>;
  try {
    ack = (await sender(msg)) as ControlAckOf<M['action']>;
  } catch (err) {
    ack = { ok: false, error: err instanceof Error ? err.message : String(err), code: codeOf(err) };
  }
  if (ack.ok) {
    const { ok: _ok, ...detail } = ack;
    resolveAck(id, true, undefined, detail);
  } else resolveAck(id, false, ack.error);
  return ack;
}
