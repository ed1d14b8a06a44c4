/**
 * The "two models, one accelerator" lesson's picture, in two parts chosen by the first knob. The rate
 * limiter: each model's instance over time (a bar per batch it computed, a hatched bar while it waited for
 * the accel resource with its batch formed: waiting, not idle) for the mode and speech_net's priority the
 * knobs pick, beside each model's turns, batch time and p99 and the verdict computed from every run's rows
 * (claims.ts 'accelerator'). The response cache: the instance's compute time for repeated and unique
 * inputs, cache off and on, with hits and misses and the verdict (claims.ts 'cache'). Every run is core's
 * simulator with the server's scheduler, rate limiter and cache (accelerator-run.ts, cache-run.ts), cached
 * per setting; the rows stay folded below. Bars are DOM: their labels follow the page's type scale.
 */
import { useMemo, useState } from 'react';
import { language } from '../i18n/strings';
import { formatUs } from '../charts/format';
import { modelColour } from '../charts/theme';
import { ACCELERATOR_DEMO_EN, ACCELERATOR_DEMO_ZH, type AcceleratorDemoText } from '../i18n/lesson-accelerator';
import { claimHolds } from './claims';
import { acceleratorFigures, acceleratorRows, MODES, overlapUs, PICTURE_US, PRIORITIES, type AcceleratorRun, type LimitMode } from './accelerator-run';
import { cacheFigures, cacheRows, INPUTS, type CacheRun, type Inputs } from './cache-run';

const text = () => (language() === 'zh' ? ACCELERATOR_DEMO_ZH : ACCELERATOR_DEMO_EN);
type Part = 'limiter' | 'cache';
const pctOf = (v: number, end: number) => `${Math.max(0, Math.min(100, (v / end) * 100))}%`;

function Choice<T extends string | number>(props: { label: string; hideLabel?: boolean; code?: boolean; values: readonly T[]; value: T; name: (v: T) => string; set: (v: T) => void; testid: string; disabled?: boolean; note?: string }) {
  return (
    <div role="group" aria-label={props.label} className="flex gap-1 items-center">
      {!props.hideLabel && (props.code ? <code className="font-semibold mr-1">{props.label}</code> : <span className="font-semibold mr-1">{props.label}</span>)}
      {props.values.map((v) => (
        <button key={v} type="button" className="btn" aria-pressed={v === props.value} disabled={props.disabled} onClick={() => props.set(v)} data-testid={`${props.testid}-${v}`}>{props.name(v)}</button>
      ))}
      {props.note && <span className="text-muted">{props.note}</span>}
    </div>
  );
}

/** the lane's figures beside it, one column each, aligned across the lanes (they are the picture's table) */
const LANE_COLUMNS = { display: 'grid', gridTemplateColumns: 'minmax(0, 1fr) 7.5rem 3.2rem 5rem 5.2rem', columnGap: '0.6rem', alignItems: 'center' } as const;

function LimiterPicture(props: { run: AcceleratorRun; t: AcceleratorDemoText }) {
  const { run, t } = props;
  return (
    <figure className="exp-chart space-y-1" data-testid="accelerator-picture">
      <div className="exp-bars" role="img" aria-label={`${t.busy} / ${t.waiting}`}>
        <div className="text-sm font-semibold" style={LANE_COLUMNS}>
          <span className="text-muted font-normal">{t.axis}: 0 – {formatUs(PICTURE_US)}</span>
          {[t.figures.model, t.figures.turns, t.figures.batch, t.figures.p99].map((h) => <span key={h}>{h}</span>)}
        </div>
        {run.models.map((m, i) => (
          <div key={m.model} style={LANE_COLUMNS} data-testid="accel-lane" data-model={m.model}>
            <div className="exp-track" style={{ background: 'var(--c-grid, transparent)', height: '1.6rem' }}>
              {m.spans.filter((s) => s.from < PICTURE_US).map((s) => (
                <span key={`${s.state}${s.from}`} className="exp-bar" data-testid="accel-span" data-state={s.state} data-from={s.from} data-to={s.to}
                  title={`${m.model} ${s.state === 'busy' ? t.busy : t.waiting}: ${formatUs(s.from)} – ${formatUs(s.to)}`}
                  style={{
                    left: pctOf(s.from, PICTURE_US), width: `calc(${pctOf(Math.min(s.to, PICTURE_US), PICTURE_US)} - ${pctOf(s.from, PICTURE_US)})`,
                    ...(s.state === 'busy'
                      ? { background: modelColour(i) }
                      : { background: `repeating-linear-gradient(45deg, transparent 0 4px, ${modelColour(i)} 4px 6px)`, border: `1px solid ${modelColour(i)}`, opacity: 0.8 }),
                  }} />
              ))}
            </div>
            {/* the figures of the whole run (the lane draws its first PICTURE_US) */}
            <span className="text-sm font-mono font-semibold" data-verbatim>{m.model}</span>
            <span className="text-sm font-mono" data-testid="accel-figure" data-model={m.model} data-turns={m.executions} data-batch={m.meanBatchUs} data-p99={m.p99Us}>{m.executions}</span>
            <span className="text-sm font-mono whitespace-nowrap">{formatUs(m.meanBatchUs)}</span>
            <span className="text-sm font-mono whitespace-nowrap">{formatUs(m.p99Us)}</span>
          </div>
        ))}
      </div>
      <figcaption className="text-sm text-muted flex gap-3 flex-wrap">
        <span><span className="inline-block w-3 h-3 align-middle" style={{ background: modelColour(0) }} /> {t.busy}</span>
        <span><span className="inline-block w-3 h-3 align-middle" style={{ background: `repeating-linear-gradient(45deg, transparent 0 3px, ${modelColour(0)} 3px 5px)`, border: `1px solid ${modelColour(0)}` }} /> {t.waiting}</span>
      </figcaption>
    </figure>
  );
}

function CachePicture(props: { rows: CacheRun[]; now: CacheRun; t: AcceleratorDemoText }) {
  const { rows, now, t } = props;
  const end = Math.max(...rows.map((r) => r.computeUs)) * 1.05;
  return (
    <figure className="exp-chart space-y-1" data-testid="accelerator-picture">
      <div className="exp-bars" role="img" aria-label={t.cacheFigures.compute}>
        <div className="text-sm font-semibold" style={LANE_COLUMNS}>
          <span className="text-muted font-normal">{t.cacheFigures.row}</span>
          {[t.cacheFigures.compute, t.cacheFigures.hits, t.cacheFigures.misses, t.cacheFigures.p50].map((h) => <span key={h}>{h}</span>)}
        </div>
        {rows.map((r) => (
          <div key={`${r.inputs}${r.cache}`} className={r === now ? 'current' : ''} style={LANE_COLUMNS} data-testid="cache-bar" data-inputs={r.inputs} data-cache={r.cache} data-compute={r.computeUs}>
            <div className="exp-track" style={{ height: '1.6rem' }}>
              <span className="exp-bar" style={{ width: pctOf(r.computeUs, end), background: modelColour(r.cache ? 1 : 0), ...(r === now ? { outline: '3px solid var(--c-fg)', outlineOffset: 1 } : {}) }} />
              {/* the row's name on a chip over the bar's start, not inside it: a short bar (the cache's win) would cut it off */}
              <span className="text-sm absolute whitespace-nowrap rounded px-1" style={{ left: 4, top: '50%', transform: 'translateY(-50%)', background: 'var(--c-bg)', color: 'var(--c-fg)' }}>
                {t.rowName(t.inputChoices[r.inputs], t.cacheChoices[r.cache ? 'on' : 'off'])}
              </span>
            </div>
            <span className="text-sm font-mono whitespace-nowrap" {...(r === now ? { 'data-testid': 'cache-figure', 'data-compute': r.computeUs, 'data-hits': r.hits, 'data-misses': r.misses, 'data-p50': r.p50Us } : {})}>{formatUs(r.computeUs)}</span>
            <span className="text-sm font-mono">{r.hits}</span>
            <span className="text-sm font-mono">{r.misses}</span>
            <span className="text-sm font-mono whitespace-nowrap">{formatUs(r.p50Us)}</span>
          </div>
        ))}
      </div>
    </figure>
  );
}

export function AcceleratorDemo() {
  const t = text();
  const [part, setPart] = useState<Part>('limiter');
  const [mode, setMode] = useState<LimitMode>('execution_count');
  const [priority, setPriority] = useState(PRIORITIES[PRIORITIES.length - 1]!);
  const [inputs, setInputs] = useState<Inputs>('repeated');
  const [cache, setCache] = useState(true);
  // every row of each part (small runs, cached): the verdicts are computed from them
  const limiter = useMemo(() => acceleratorRows(), []);
  const caching = useMemo(() => cacheRows(), []);
  const a = acceleratorFigures(limiter, mode, priority);
  const c = cacheFigures(caching, inputs, cache);
  const holds = part === 'limiter' ? claimHolds('accelerator', a.figures) : claimHolds('cache', c.figures);
  const pair = <T,>(f: (i: number) => T): [T, T] => [f(0), f(1)];
  return (
    <div className="card p-3 mb-2 space-y-3" data-testid="accelerator-demo" data-part={part} data-mode={mode} data-priority={priority}
      data-inputs={inputs} data-cache={cache} data-claim={holds ? 'holds' : 'fails'}>
      <div className="flex flex-wrap gap-x-4 gap-y-2 items-center text-sm">
        <Choice label={t.part} hideLabel values={['limiter', 'cache'] as Part[]} value={part} name={(p) => t.parts[p]} set={setPart} testid="accel-part" />
        {part === 'limiter' ? (
          <>
            <Choice label={t.mode} code values={MODES} value={mode} name={(m) => t.modes[m]} set={setMode} testid="accel-mode" />
            <Choice label={t.priority} values={PRIORITIES} value={priority} name={String} set={setPriority} testid="accel-priority" disabled={mode === 'off'} note={mode === 'off' ? t.ignored : undefined} />
          </>
        ) : (
          <>
            <Choice label={t.inputs} values={INPUTS} value={inputs} name={(i) => t.inputChoices[i]} set={setInputs} testid="cache-inputs" />
            <Choice label={t.cache} values={['off', 'on'] as const} value={cache ? 'on' : 'off'} name={(v) => t.cacheChoices[v]} set={(v) => setCache(v === 'on')} testid="cache-enable" />
          </>
        )}
      </div>
      {part === 'limiter' ? <LimiterPicture run={a.now} t={t} /> : <CachePicture rows={caching} now={c.now} t={t} />}
      <p className="font-semibold" data-testid="accelerator-verdict">
            {part === 'limiter'
              ? t.limiterVerdict({
                on: mode !== 'off', priority, widest: a.widest.priority,
                offBatch: pair((i) => formatUs(a.off.models[i]!.meanBatchUs)), onBatch: pair((i) => formatUs((mode === 'off' ? a.even : a.now).models[i]!.meanBatchUs)),
                turns: pair((i) => a.now.models[i]!.executions), p99: pair((i) => formatUs(a.now.models[i]!.p99Us)),
                widestTurns: pair((i) => a.widest.models[i]!.executions), overlap: formatUs(overlapUs(a.now)),
              }, holds)
              : t.cacheVerdict({
                hits: c.rOn.hits, sent: c.rOn.sent, hitRate: `${Math.round(c.figures.hitRate * 100)}%`, computeOff: formatUs(c.rOff.computeUs), computeOn: formatUs(c.rOn.computeUs),
                ratio: `${c.figures.computeRepeated.toFixed(2)}x`, uniqueCompute: formatUs(c.uOn.computeUs), uniqueHits: c.uOn.hits, lookup: formatUs(c.figures.lookupCostUs),
              }, holds)}
      </p>
      <details data-testid="accelerator-rows">
        <summary className="text-sm cursor-pointer">{t.rows}</summary>
        <table className="text-sm font-mono" data-testid="accelerator-table">
          <tbody>
            <tr>{[t.mode, t.priority, t.figures.model, t.figures.turns, t.figures.batch, t.figures.wait, t.figures.p99].map((h) => <th key={h} className="text-left pr-4">{h}</th>)}</tr>
            {limiter.map((r) => r.models.map((m) => (
              <tr key={`${r.mode}${r.priority}${m.model}`} data-testid="accel-row" data-mode={r.mode} data-priority={r.priority} data-model={m.model} data-turns={m.executions} data-batch={m.meanBatchUs} data-wait={m.waitUs} data-p99={m.p99Us}>
                <td className="pr-4">{t.modes[r.mode]}</td><td className="pr-4">{r.mode === 'off' ? '' : r.priority}</td><td className="pr-4" data-verbatim>{m.model}</td>
                <td className="pr-4">{m.executions}</td><td className="pr-4">{formatUs(m.meanBatchUs)}</td><td className="pr-4">{formatUs(m.waitUs)}</td><td className="pr-4">{formatUs(m.p99Us)}</td>
              </tr>
            )))}
            <tr>{[t.cacheFigures.row, '', '', t.cacheFigures.compute, t.cacheFigures.hits, t.cacheFigures.misses, t.cacheFigures.p50].map((h, i) => <th key={i} className="text-left pr-4">{h}</th>)}</tr>
            {caching.map((r) => (
              <tr key={`${r.inputs}${r.cache}`} data-testid="cache-row" data-inputs={r.inputs} data-cache={r.cache} data-compute={r.computeUs} data-hits={r.hits} data-misses={r.misses} data-p50={r.p50Us}>
                <td className="pr-4" colSpan={3}>{t.rowName(t.inputChoices[r.inputs], t.cacheChoices[r.cache ? 'on' : 'off'])}</td>
                <td className="pr-4">{formatUs(r.computeUs)}</td><td className="pr-4">{r.hits}</td><td className="pr-4">{r.misses}</td><td className="pr-4">{formatUs(r.p50Us)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
