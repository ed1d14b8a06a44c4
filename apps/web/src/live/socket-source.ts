/**
 * Feeds the stores from the server's live gateway: snapshot on connect (and on resync), coalesced frames,
 * per-second stats. Reconnects by itself (socket.io's backoff) and asks for a fresh snapshot after each
 * reconnect, so what the page shows is never a stale picture.
 */
import { io, type Socket } from 'socket.io-client';
import { WIRE, type ClientToServerEvents, type ControlAck, type ControlMessage, type ServerToClientEvents } from '@inferscope/core';
import { appStore, live, syncStructure } from '../store/app-store';
import { FrameClock, setDataClock } from './clock';
import { setControlSender } from './control';
import { socketPath } from './replica-path';

const ACK_TIMEOUT_MS = 8000;

export interface LiveConnection {
  resync(): void;
  setToken(token: string): void;
  close(): void;
}

export function connectLive(url?: string): LiveConnection {
  const clock = new FrameClock();
  setDataClock(clock);
  let token = appStore.getState().token;
  const setConn = (patch: Partial<ReturnType<typeof appStore.getState>['connection']>) =>
    appStore.setState((s) => ({ connection: { ...s.connection, ...patch } }));

  const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io(url ?? '/', {
    path: socketPath(),
    transports: ['websocket'],
    auth: (cb) => cb(token ? { token } : {}),
    reconnectionDelayMax: 4000,
  });

  socket.on('connect', () => setConn({ status: 'resyncing', error: undefined }));
  // socket.io reconnects by itself after a network drop, but NOT after a disconnect the server started
  // ('io server disconnect': what a graceful shutdown sends before a restart). Retry those too, with the
  // same capped backoff, so a restarted server is picked up and its fresh snapshot replaces the old one.
  let retry: ReturnType<typeof setTimeout> | undefined;
  let retries = 0;
  let closed = false;
  const retryLater = () => {
    if (closed) return;
    retries++;
    setConn({ status: 'connecting', attempts: retries });
    retry = setTimeout(() => { if (!closed && !socket.connected) socket.connect(); }, Math.min(4000, 250 * 2 ** Math.min(retries, 4)));
  };
  socket.on('connect', () => { retries = 0; });
  socket.on('disconnect', (reason) => {
    setConn({ status: 'disconnected', error: reason });
    if (reason === 'io server disconnect') retryLater();
  });
  // After a server-initiated disconnect the manager does not retry on its own: keep trying.
  socket.on('connect_error', () => { if (!socket.active) retryLater(); });
  socket.on('connect_error', (err) => setConn({ status: 'disconnected', error: err.message }));
  socket.io.on('reconnect_attempt', (n) => setConn({ status: 'connecting', attempts: n }));

  socket.on(WIRE.snapshot, (s) => {
    if (live.applySnapshot(s)) clock.restart();
    clock.onFrame(s.t, performance.now());
    appStore.setState((st) => ({
      server: s.server,
      connection: { ...st.connection, status: 'connected', lastSnapshotAt: Date.now(), attempts: 0 },
      load: s.stats?.load ?? st.load,
    }));
    syncStructure();
  });
  socket.on(WIRE.frame, (f) => {
    live.applyFrame(f);
    clock.onFrame(f.t, performance.now());
    syncStructure();
  });
  socket.on(WIRE.generation, (g) => {
    live.applyGeneration(g);
    // stamped with the server's data time like a frame: when a burst of generation ends and frames stop,
    // its figures points (a second closed after the last token) must not lie beyond the charts' "now"
    clock.onFrame(g.t, performance.now());
  });
  socket.on(WIRE.stats, (s) => {
    live.applyStats(s);
    if (s.load) appStore.setState({ load: s.load });
  });

  setControlSender(
    (msg: ControlMessage) =>
      new Promise<ControlAck>((resolve) => {
        if (!socket.connected) return resolve({ ok: false, error: 'not connected to the server', code: 'UNAVAILABLE' });
        const withToken = token ? { ...msg, token } : msg;
        socket.timeout(ACK_TIMEOUT_MS).emit(WIRE.control, withToken, (err: Error | null, ack: ControlAck) => {
          resolve(err ? { ok: false, error: `no answer from the server within ${ACK_TIMEOUT_MS / 1000} s`, code: 'UNAVAILABLE' } : ack);
        });
      }),
  );

  return {
    resync() {
      setConn({ status: 'resyncing' });
      socket.emit(WIRE.resync);
    },
    setToken(next: string) {
      token = next;
      appStore.setState({ token: next });
      // The server decides can_control at connect time: reconnect so the new token counts.
      socket.disconnect().connect();
    },
    close() {
      closed = true;
      clearTimeout(retry);
      socket.close();
    },
  };
}
