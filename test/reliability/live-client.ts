/** socket.io-client helpers for the reliability tests. */
import { io, type Socket } from 'socket.io-client';
import type { ControlAck, Snapshot } from '@inferscope/core';

export async function connectLive(url: string, token?: string): Promise<{ socket: Socket; snapshot: Snapshot }> {
  const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, auth: token ? { token } : {} });
  const snapshot = await new Promise<Snapshot>((resolve, reject) => {
    socket.once('snapshot', resolve);
    socket.once('connect_error', reject);
  });
  return { socket, snapshot };
}

/** Emits a control message and waits for the acknowledgement (or fails after timeoutMs). */
export async function control(socket: Socket, msg: unknown, timeoutMs = 10_000): Promise<ControlAck> {
  return (await socket.timeout(timeoutMs).emitWithAck('control', msg)) as ControlAck;
}
