import { useEffect, useRef } from 'react';
import { appStore, live, useApp } from './store/app-store';
import { Header } from './ui/Header';
import { TokenField } from './ui/TokenField';
import { ArchitectureView } from './views/ArchitectureView';
import { DataView } from './views/DataView';
import { StateView } from './views/StateView';
import { PerformanceView } from './views/PerformanceView';
import { ControlsPanel } from './controls/ControlsPanel';
import { LoadPanel } from './controls/LoadPanel';
import { AbStage } from './controls/AbStage';
import { connectLive, type LiveConnection } from './live/socket-source';
import { TeachingPanel } from './teach/TeachingPanel';
import { playback } from './teach/playback';
import { TeachStage } from './teach/TeachStage';

export function App() {
  const view = useApp((s) => s.view);
  const mode = useApp((s) => s.mode);
  const server = useApp((s) => s.server);
  const token = useApp((s) => s.token);
  // Changing the language re-renders the whole tree (S is read at render time); the simulation lives on.
  const lang = useApp((s) => s.lang);
  const conn = useRef<LiveConnection | null>(null);

  useEffect(() => {
    // Answers from the server and from the simulator must not mix in one list.
    appStore.setState({ acks: [] });
    if (mode !== 'live') return;
    playback.dispose();
    live.reset();
    appStore.setState({ connection: { status: 'connecting', attempts: 0 }, server: undefined });
    const c = connectLive();
    conn.current = c;
    return () => {
      c.close();
      conn.current = null;
    };
  }, [mode]);

  const connected = useApp((s) => s.connection.status === 'connected');
  // A disconnected page keeps its last picture, but nothing can be sent: controls are off until the
  // fresh snapshot of the (maybe restarted) server arrives.
  const canControl = mode === 'teach' || (connected && server?.can_control === true);
  return (
    <div className="app" key={lang}>
      <Header onResync={() => conn.current?.resync()} />
      <div className={mode === 'teach' ? 'layout teach' : 'layout'}>
        <main className="min-w-0" aria-live="off">
          {mode === 'teach' && <TeachStage />}
          {mode === 'live' && <AbStage />}
          {view === 'architecture' && <ArchitectureView />}
          {view === 'data' && <DataView />}
          {view === 'state' && <StateView />}
          {view === 'performance' && <PerformanceView />}
        </main>
        <aside className="space-y-3">
          {mode === 'teach' && <TeachingPanel />}
          <ControlsPanel canControl={canControl} />
          {mode === 'live' && <LoadPanel canControl={canControl} />}
          {mode === 'live' && server?.token_required && !server.can_control && <TokenField refused={connected && !!token} onToken={(t) => conn.current?.setToken(t)} />}
        </aside>
      </div>
    </div>
  );
}

