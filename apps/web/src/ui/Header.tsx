/**
 * Top bar: mode, views, language, and the display settings (model, window, colours, theme, large type) with
 * the connection state; teaching mode folds the display settings under one button so the header is one row.
 */
import { appStore, live, useApp } from '../store/app-store';
import { VIEWS, WINDOWS } from '../store/url-state';
import { useLiveText } from '../charts/use-live-text';
import { LANGUAGES, LANGUAGE_NAMES, S } from '../i18n/strings';
import { useShallow } from 'zustand/react/shallow';
import { replicaName } from '../live/replica-path';

export function Header(props: { onResync(): void }) {
  const st = useApp(useShallow((s) => ({ mode: s.mode, view: s.view, lang: s.lang })));
  return (
    <header className={st.mode === 'teach' ? 'header header-teach' : 'header'}>
      <div className="flex items-center gap-3">
        <h1 className="text-xl font-bold tracking-tight">
          <span className="text-accent">◉</span> {S.appName}
        </h1>
        {replicaName && <a className="badge font-mono" href="/?fleet=1" title={S.fleet.title} data-testid="replica-name">{S.fleet.replicaBadge(replicaName)}</a>}
        <div role="tablist" aria-label={S.modeLabel} className="seg">
          {(['live', 'teach'] as const).map((m) => (
            <button key={m} type="button" role="tab" aria-selected={st.mode === m} className={st.mode === m ? 'on' : ''} onClick={() => appStore.setState({ mode: m })} data-testid={`mode-${m}`}>
              {m === 'live' ? S.modeLive : S.modeTeach}
            </button>
          ))}
        </div>
      </div>
      <nav role="tablist" aria-label={S.viewsLabel} className="seg">
        {VIEWS.map((v) => (
          <button key={v} type="button" role="tab" aria-selected={st.view === v} className={st.view === v ? 'on' : ''} onClick={() => appStore.setState({ view: v })} data-testid={`tab-${v}`}>
            {S.views[v]}
          </button>
        ))}
      </nav>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <div role="group" aria-label={S.language} className="seg" data-testid="lang-switch">
          {LANGUAGES.map((l) => (
            <button key={l} type="button" lang={l === 'zh' ? 'zh-CN' : 'en'} aria-pressed={st.lang === l} className={st.lang === l ? 'on' : ''} onClick={() => appStore.setState({ lang: l })} data-testid={`lang-${l}`}>
              {LANGUAGE_NAMES[l]}
            </button>
          ))}
        </div>
        {st.mode === 'teach' ? (
          // a lesson's stage needs the screen's height: the display settings fold away, one row of header
          <details className="header-more">
            <summary className="btn" data-testid="display-settings">⚙ {S.displaySettings}</summary>
            <div className="header-more-body card">
              <DisplaySettings />
              <ConnectionBadge onResync={props.onResync} />
            </div>
          </details>
        ) : (
          <>
            <DisplaySettings />
            <ConnectionBadge onResync={props.onResync} />
          </>
        )}
      </div>
    </header>
  );
}

/** Which model, how wide a window, what colours, the theme and the type size: how the views are drawn. */
function DisplaySettings() {
  useApp((s) => s.structureRev);
  const st = useApp(useShallow((s) => ({ model: s.model, window: s.window, theme: s.theme, large: s.large, colour: s.colour })));
  return (
    <>
      <label className="flex items-center gap-1">
        <span className="sr-only">{S.model}</span>
        <select className="input" value={st.model} onChange={(e) => appStore.setState({ model: e.target.value, target: undefined })} data-testid="model-select">
          <option value="all">{S.allModels}</option>
          {[...live.models.values()].map((m) => <option key={m.key} value={m.key} data-verbatim>{m.name} v{m.version}</option>)}
          {st.model !== 'all' && !live.models.has(st.model) && <option value={st.model} data-verbatim>{st.model}</option>}
        </select>
      </label>
      <label className="flex items-center gap-1">
        <span>{S.window}</span>
        <select className="input" value={st.window} onChange={(e) => appStore.setState({ window: Number(e.target.value) })}>
          {[...new Set([...WINDOWS, st.window])].sort((a, b) => a - b).map((w) => <option key={w} value={w}>{w} s</option>)}
        </select>
      </label>
      <label className="flex items-center gap-1">
        <span>{S.colourBy}</span>
        <select className="input" value={st.colour} onChange={(e) => appStore.setState({ colour: e.target.value as 'model' | 'priority' })}>
          <option value="model">{S.colourModel}</option>
          <option value="priority">{S.colourPriority}</option>
        </select>
      </label>
      <button type="button" className="btn" aria-pressed={st.theme === 'dark'} onClick={() => appStore.setState({ theme: st.theme === 'dark' ? 'light' : 'dark' })} data-testid="theme-toggle">
        {st.theme === 'dark' ? `☀ ${S.themeLight}` : `☾ ${S.themeDark}`}
      </button>
      <button type="button" className="btn" aria-pressed={st.large} onClick={() => appStore.setState({ large: !st.large })}>A+ {S.largeType}</button>
    </>
  );
}

function ConnectionBadge(props: { onResync(): void }) {
  const c = useApp((s) => s.connection);
  const mode = useApp((s) => s.mode);
  let lastEvents = live.eventsSeen;
  let lastAt = performance.now();
  let rate = 0;
  const rateRef = useLiveText<HTMLSpanElement>(() => {
    const now = performance.now();
    if (now - lastAt >= 1000) {
      rate = ((live.eventsSeen - lastEvents) * 1000) / (now - lastAt);
      lastEvents = live.eventsSeen;
      lastAt = now;
    }
    const extra = [live.droppedEvents ? S.dropped(live.droppedEvents) : '', live.seqGaps ? S.gaps(live.seqGaps) : ''].filter(Boolean).join(' · ');
    return `${Math.round(rate)} ${S.eventsPerSecond}${extra ? ` · ${extra}` : ''}`;
  });
  const status = mode === 'teach' ? 'offline' : c.status;
  return (
    <div className="flex items-center gap-2" data-testid="connection" data-status={status}>
      <span className={`dot dot-${status}`} aria-hidden />
      <span className="font-semibold">{S.connection[status]}</span>
      {status === 'connecting' && c.attempts > 0 && <span className="text-muted">{S.reconnectAttempt(c.attempts)}</span>}
      {c.error && status !== 'connected' && mode === 'live' && <span className="text-danger text-xs">{c.error}</span>}
      <span ref={rateRef} className="text-muted text-xs" />
      {mode === 'live' && <EventLoopFigure />}
      {mode === 'live' && <button type="button" className="btn btn-sm" onClick={props.onResync} disabled={status !== 'connected'}>{S.resync}</button>}
    </div>
  );
}

/** The server's own event-loop delay (p99 of its last window): a stall there delays every batch. */
function EventLoopFigure() {
  const ref = useLiveText<HTMLSpanElement>(() => {
    const f = live.stats.last()?.event_loop;
    return f ? S.eventLoop(f.p99_ms.toFixed(f.p99_ms < 10 ? 2 : 1)) : '';
  });
  return <span ref={ref} className="text-muted text-xs" data-testid="event-loop-delay" />;
}
