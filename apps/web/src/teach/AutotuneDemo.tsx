/**
 * The autotuning lesson's picture: the uneven day (autotune-day.ts) with the static delay a class picks
 * against the autotuner at a p99 target, per phase: p99 bars under the target line, and instance time per
 * request beside them (with the whole day's). The two knobs re-run the simulator (cached per value);
 * the run is deferred a tick so "simulating…" shows while it works. Bars are DOM, so their labels
 * follow the page's type scale (large type included).
 */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { language } from '../i18n/strings';
import { formatUs } from '../charts/format';
import { MODEL_PALETTE } from '../charts/theme';
import { AUTOTUNE_DEMO_EN, AUTOTUNE_DEMO_ZH } from '../i18n/lesson-autotune';
import { calibrationStore } from './calibrations';
import { compareDay, STATIC_DELAYS_US, TARGETS_MS, type DayComparison } from './autotune-day';

const text = () => (language() === 'zh' ? AUTOTUNE_DEMO_ZH : AUTOTUNE_DEMO_EN);
/** static, autotuned: the experiment chart's series colours */
const COLOURS = [MODEL_PALETTE[0], MODEL_PALETTE[1]];

interface Bar { value: number; label: string; over?: boolean }

/**
 * One chart in the lessons' experiment-chart style (index.css .exp-*: horizontal bars on one scale, the
 * value at the bar's end, the type scale's floor): groups of two bars (static, autotuned), and the target
 * as a dashed line through every track. Not ExperimentChart itself: that one draws a table of whole-run
 * summaries by one metric, with no target; this picture is per phase, with one.
 */
function Bars(props: { title: string; groups: { name: string; bars: [Bar, Bar] }[]; line?: { at: number; label: string }; testid: string }) {
  const top = Math.max(props.line?.at ?? 0, ...props.groups.flatMap((g) => g.bars.map((b) => b.value))) * 1.1 || 1;
  const pct = (v: number) => `${Math.max(0, Math.min(100, (v / top) * 100))}%`;
  return (
    <figure className="exp-chart space-y-1" data-testid={props.testid}>
      <div className="flex flex-wrap items-baseline gap-x-3">
        <figcaption className="font-semibold">{props.title}</figcaption>
        {props.line && <span className="text-sm text-danger" data-testid="autotune-target-line"><span className="autotune-target-key" /> {props.line.label}</span>}
      </div>
      <div className="exp-bars autotune-bars" role="img" aria-label={props.title}>
        {props.groups.map((g) => (
          <div key={g.name} className="exp-group">
            <div className="exp-group-label text-sm">{g.name}</div>
            <div>
              {g.bars.map((b, i) => (
                <div key={i} className="exp-row" data-value={b.value}>
                  <div className="exp-track">
                    <span className="exp-bar" style={{ width: pct(b.value), background: COLOURS[i], outline: b.over ? '3px solid var(--c-danger)' : undefined }} />
                    {props.line && <span className="autotune-target" style={{ left: pct(props.line.at) }} />}
                  </div>
                  <span className="exp-value">{b.label}</span>
                </div>
              ))}
            </div>
          </div>
        ))}
      </div>
    </figure>
  );
}

export function AutotuneDemo() {
  const t = text();
  const calVersion = useStore(calibrationStore, (c) => c.version);
  const [delayUs, setDelay] = useState(500);
  const [targetMs, setTarget] = useState(3);
  const [shown, setCmp] = useState<DayComparison | null>(null);
  // the comparison for the knobs as they are now (an older one is not shown while the new one runs)
  const cmp = shown && shown.delayUs === delayUs && shown.targetUs === Math.round(targetMs * 1000) ? shown : null;

  useEffect(() => {
    // one tick first: the "simulating…" line paints before the simulator holds the thread
    const h = setTimeout(() => setCmp(compareDay(delayUs, targetMs)), 0);
    return () => clearTimeout(h);
  }, [delayUs, targetMs, calVersion]);

  const ms = (us: number) => formatUs(us);
  const fixedName = t.fixed(formatUs(delayUs));
  const tunedName = t.tuned(`${targetMs} ms`);
  const misses = (w: boolean[]) => w.filter((x) => !x).length;
  return (
    <div className="card p-2 mb-2 space-y-1" data-testid="autotune-demo" data-delay={delayUs} data-target={targetMs}
      data-ready={cmp ? 'true' : 'false'}
      data-fixed-p99={cmp?.fixed.phases.map((p) => p.p99_us).join(',') ?? ''}
      data-tuned-p99={cmp?.tuned.phases.map((p) => p.p99_us).join(',') ?? ''}
      data-fixed-compute={cmp ? cmp.fixedComputeUs.toFixed(1) : ''} data-tuned-compute={cmp ? cmp.tunedComputeUs.toFixed(1) : ''}>
      <div className="flex flex-wrap gap-4 items-center text-sm">
        <div role="group" aria-label={t.staticDelay} className="flex gap-1 items-center">
          <span className="font-semibold mr-1">{t.staticDelay}</span>
          {STATIC_DELAYS_US.map((d) => (
            <button key={d} type="button" className="btn btn-sm" aria-pressed={d === delayUs} onClick={() => setDelay(d)} data-testid={`autotune-delay-${d}`}>{formatUs(d)}</button>
          ))}
        </div>
        <div role="group" aria-label={t.target} className="flex gap-1 items-center">
          <span className="font-semibold mr-1">{t.target}</span>
          {TARGETS_MS.map((m) => (
            <button key={m} type="button" className="btn btn-sm" aria-pressed={m === targetMs} onClick={() => setTarget(m)} data-testid={`autotune-target-${m}`}>{m} ms</button>
          ))}
        </div>
      </div>
      <div className="flex flex-wrap gap-3 text-sm">
        <span><span className="inline-block w-3 h-3 mr-1 align-middle" style={{ background: COLOURS[0] }} />{fixedName}</span>
        <span><span className="inline-block w-3 h-3 mr-1 align-middle" style={{ background: COLOURS[1] }} />{tunedName}</span>
      </div>
      {!cmp ? <p className="text-sm text-muted" data-testid="autotune-computing">{t.computing}</p> : (
        <>
          {/* side by side: the two charts and the verdict fit one 1280x720 screen with large type */}
          <div className="grid gap-4 lg:grid-cols-2">
            <Bars testid="autotune-p99" title={t.p99} line={{ at: cmp.targetUs, label: t.targetLine(ms(cmp.targetUs)) }}
              groups={t.phases.map((name, i) => ({ name, bars: [
                { value: cmp.fixed.phases[i].p99_us, label: ms(cmp.fixed.phases[i].p99_us), over: !cmp.fixedWithin[i] },
                { value: cmp.tuned.phases[i].p99_us, label: ms(cmp.tuned.phases[i].p99_us), over: !cmp.tunedWithin[i] },
              ] as [Bar, Bar] }))} />
            <Bars testid="autotune-compute" title={t.compute}
              groups={[...t.phases.map((name, i) => ({ name, bars: [
                { value: cmp.fixed.phases[i].compute_per_request_us, label: ms(cmp.fixed.phases[i].compute_per_request_us) },
                { value: cmp.tuned.phases[i].compute_per_request_us, label: ms(cmp.tuned.phases[i].compute_per_request_us) },
              ] as [Bar, Bar] })), { name: t.dayCompute, bars: [
                { value: cmp.fixedComputeUs, label: ms(cmp.fixedComputeUs) }, { value: cmp.tunedComputeUs, label: ms(cmp.tunedComputeUs) },
              ] as [Bar, Bar] }]} />
          </div>
          {/* one paragraph, the finding then its takeaway: both stay on the screen under the charts */}
          <p>
            <span data-testid="autotune-verdict">
              {t.verdict({ fixedMisses: misses(cmp.fixedWithin), tunedMisses: misses(cmp.tunedWithin), fixed: ms(cmp.fixedComputeUs), tuned: ms(cmp.tunedComputeUs) })}
            </span>{' '}
            <b data-testid="autotune-takeaway">
              {t.takeaway({
                fixedMisses: misses(cmp.fixedWithin), tunedMisses: misses(cmp.tunedWithin), tunedCheaper: cmp.tunedComputeUs <= cmp.fixedComputeUs,
                tunedMissed: cmp.tuned.phases.flatMap((p, i) => (cmp.tunedWithin[i] ? [] : [`${t.phases[i]} (p99 ${ms(p.p99_us)})`])).join(', '),
              })}
            </b>
          </p>
        </>
      )}
    </div>
  );
}
