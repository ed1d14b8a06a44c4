/** A socket.io client for tests: websocket only, no reconnection, resolved once connected. */
import { io, type Socket } from 'socket.io-client';

export async function connectSocket(url: string, auth?: Record<string, unknown>): Promise<Socket> {
  const s = io(url, { transports: ['websocket'], auth, reconnection: false });
  try {
    await new Promise<void>((resolve, reject) => {
      s.once('connect', () => resolve());
      s.once('connect_error', reject);
    });
  } catch (err) {
    s.close();
    throw err;
  }
  return s;
}
