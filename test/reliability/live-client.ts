/** socket.io-client helpers for the reliability tests. */
import { io, type Socket } from 'socket.io-client';
import type { ControlAccepted, ControlAck, ControlAckOf, ControlAction, Snapshot } from '@inferscope/core';

export async function connectLive(url: string, token?: string): Promise<{ socket: Socket; snapshot: Snapshot }> {
  const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, auth: token ? { token } : {} });
  const snapshot = await new Promise<Snapshot>((resolve, reject) => {
    socket.once('snapshot', resolve);
    socket.once('connect_error', reject);
  });
  return { socket, snapshot };
}

/**
 * Emits a control message and waits for the acknowledgement (or fails after timeoutMs): typed by its
 * action (core's ControlAckBodies) when the message names one, else any answer (hostile messages).
 */
export async function control<A extends ControlAction>(socket: Socket, msg: { action: A } & Record<string, unknown>, timeoutMs?: number): Promise<ControlAckOf<A>>;
export async function control(socket: Socket, msg: unknown, timeoutMs?: number): Promise<ControlAck>;
export async function control(socket: Socket, msg: unknown, timeoutMs = 10_000): Promise<ControlAck> {
  return (await socket.timeout(timeoutMs).emitWithAck('control', msg)) as ControlAck;
}

/** A control message that must succeed: its answer. */
export async function accepted<A extends ControlAction>(socket: Socket, msg: { action: A } & Record<string, unknown>): Promise<ControlAccepted<A>> {
  const ack = await control(socket, msg);
  if (!ack.ok) throw new Error(`${msg.action} refused: ${ack.error}`);
  return ack;
}
