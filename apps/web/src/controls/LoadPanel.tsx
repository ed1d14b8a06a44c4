/** Load: scenario, rate/concurrency, start/stop, record, replay, and the A/B compare. */
import { useState } from 'react';
import { appStore, live, useApp } from '../store/app-store';
import { sendControl } from '../live/control';
import { controlTarget } from './target';
import { runAbCompare } from './ab-compare';
import type { AbResult } from './ab-rounds';
import { abRequest } from './ab-request';
import { startLoadMessage } from './load-message';
import { abResultStore } from './AbStage';
import { LoadRunFigures } from './LoadRunFigures';
import { SCENARIO_NAMES } from './scenarios';
import { versionLabel } from '../store/select';
import { S } from '../i18n/strings';

export function LoadPanel(props: { canControl: boolean }) {
  useApp((s) => s.structureRev);
  const pick = useApp((s) => s.model);
  const scenario = useApp((s) => s.scenario);
  const seed = useApp((s) => s.seed);
  const load = useApp((s) => s.load);
  const [rate, setRate] = useState(300);
  const [concurrency, setConcurrency] = useState(0);
  const [duration, setDuration] = useState(10);
  const [record, setRecord] = useState(false);
  const [trace, setTrace] = useState('');
  const [speed, setSpeed] = useState(1);
  const [ab, setAb] = useState({ a: 'delay=0', b: 'delay=5000' });
  const [abPhase, setAbPhase] = useState<string | null>(null);
  const [abRounds, setAbRounds] = useState(3);
  const [abError, setAbError] = useState<string | null>(null);
  const target = useApp((s) => s.target);
  const m = controlTarget(pick, target);
  const disabled = !props.canControl || !m;

  const start = () => {
    if (!m) return;
    void sendControl(startLoadMessage(m, { scenario, seed, record, duration, rate, concurrency }));
  };
  const runAb = async () => {
    if (!m) return;
    setAbError(null);
    abResultStore.setState({ result: null });
    try {
      const result = await runAbCompare(
        {
          send: sendControl,
          progress: (id) => appStore.getState().load.find((p) => p.id === id),
          statsSince: (ms) => live.stats.toArray().filter((s) => s.wall_ms >= ms),
          sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
          onPhase: setAbPhase,
        },
        abRequest(m, { scenario, rate, duration: Math.min(duration, 10), seed, rounds: abRounds }, ab.a, ab.b),
      );
      abResultStore.setState({ result });
    } catch (err) {
      setAbError((err as Error).message);
    } finally {
      setAbPhase(null);
    }
  };
  // the file a stopped recording wrote is offered for replay at once
  const stopRecording = async () => {
    const ack = await sendControl({ action: 'stopRecording' });
    const written = ack.ok ? ack.stopped.find((r) => r.error === undefined) : undefined;
    if (written) setTrace(written.recording);
  };
  const num = (set: (n: number) => void) => (e: React.ChangeEvent<HTMLInputElement>) => set(Number(e.target.value));
  return (
    <section className="card" data-testid="load-panel">
      <h2 className="card-title">{S.load}</h2>
      <div className="p-3 space-y-3">
        <div className="grid grid-cols-2 gap-2">
          <label className="field col-span-2">
            <span>{S.preset}</span>
            <select className="input" value={scenario} onChange={(e) => appStore.setState({ scenario: e.target.value })} data-testid="scenario-select">
              {[...new Set([scenario, ...SCENARIO_NAMES])].map((s) => <option key={s}>{s}</option>)}
            </select>
          </label>
          <label className="field"><span>{S.rate}</span><input type="number" className="input" min={1} value={rate} onChange={num(setRate)} /></label>
          <label className="field"><span>{S.concurrency}</span><input type="number" className="input" min={0} value={concurrency} onChange={num(setConcurrency)} /></label>
          <label className="field"><span>{S.duration}</span><input type="number" className="input" min={1} value={duration} onChange={num(setDuration)} /></label>
          <label className="field"><span>{S.seed}</span><input type="number" className="input" min={0} value={seed} onChange={(e) => appStore.setState({ seed: Number(e.target.value) })} /></label>
        </div>
        <label className="flex items-center gap-2 text-sm"><input type="checkbox" checked={record} onChange={(e) => setRecord(e.target.checked)} />{S.record}</label>
        <div className="flex gap-2">
          <button type="button" className="btn btn-primary flex-1" disabled={disabled} onClick={start} data-testid="load-start">{m ? S.startOn(versionLabel(m)) : S.start}</button>
          <button type="button" className="btn flex-1" disabled={disabled} onClick={() => void sendControl({ action: 'stopLoad' })} data-testid="load-stop">{S.stop}</button>
        </div>
        <ul className="text-sm space-y-1" data-testid="load-progress">
          {load.map((p) => (
            <li key={p.id}>
              <b data-verbatim>{p.scenario}</b> → {p.model} <span className="badge">{S.loadStates[p.state] ?? p.state}</span> {p.elapsed_s.toFixed(1)}/{p.duration_s.toFixed(1)} s
              <div className="text-muted">{S.progress(p.sent, p.answered, p.errors)}{p.skipped ? ` · ${S.skipped(p.skipped)}` : ''}{p.recording ? ` · ${p.recording}` : ''}</div>
              {p.recording && p.state !== 'running' && !p.recording_error && (
                <button type="button" className="btn text-xs" onClick={() => setTrace(p.recording!)} data-testid="replay-this">{S.replayThis}</button>
              )}
              {p.scenario !== 'recording' && <LoadRunFigures run={p} />}
            </li>
          ))}
        </ul>
        <div className="flex gap-2">
          <button type="button" className="btn flex-1" disabled={disabled} onClick={() => void sendControl({ action: 'startRecording' })} data-testid="record-start">● {S.recordLive}</button>
          <button type="button" className="btn flex-1" disabled={disabled} onClick={() => void stopRecording()}>■ {S.stopRecording}</button>
        </div>
        {/* wraps rather than squeezing the button to one character per line (large type, Chinese) */}
        <div className="flex flex-wrap gap-2 items-end">
          <label className="field flex-1 min-w-[10rem]"><span>{S.tracePath}</span><input className="input w-full" value={trace} onChange={(e) => setTrace(e.target.value)} placeholder="recordings/….ndjson" data-testid="trace-input" /></label>
          <label className="field w-16"><span>×</span><input type="number" className="input" min={0.1} step={0.1} value={speed} onChange={num(setSpeed)} /></label>
          <button type="button" className="btn shrink-0 whitespace-nowrap" disabled={disabled || !trace} onClick={() => void sendControl({ action: 'startReplay', trace, speed, model: m?.name })} data-testid="replay-start">{S.replay}</button>
        </div>
        <fieldset className="border-t pt-2 border-line">
          <legend className="text-xs uppercase tracking-wide text-muted">{S.abCompare}</legend>
          <div className="grid grid-cols-2 gap-2">
            <label className="field"><span>{S.abA}</span><input className="input" value={ab.a} onChange={(e) => setAb({ ...ab, a: e.target.value })} data-testid="ab-a" /></label>
            <label className="field"><span>{S.abB}</span><input className="input" value={ab.b} onChange={(e) => setAb({ ...ab, b: e.target.value })} data-testid="ab-b" /></label>
            <label className="field"><span>{S.abRounds}</span><input type="number" className="input" min={1} max={20} value={abRounds} onChange={num(setAbRounds)} data-testid="ab-rounds" /></label>
          </div>
          <button type="button" className="btn w-full mt-2" disabled={disabled || abPhase !== null} onClick={() => void runAb()}>{abPhase ? S.abRunning(abPhase) : S.abRun}</button>
          {abError && <p className="text-danger text-sm" role="alert">{abError}</p>}
        </fieldset>
      </div>
    </section>
  );
}
