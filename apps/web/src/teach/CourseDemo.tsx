/**
 * The course demo (lesson 7): the naive batcher and Triton's rule on the same seeded arrivals, as two
 * lanes (each line a request's wait, each bar a batch), with the arrival gap, batch size and delay beside
 * them, a per-request table and the verdict. The numbers come from core's runCourseDemo (the naive policy
 * and the real scheduler); the data-flow view below runs the same scheduler live on the same kind of traffic.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { chartTheme, textPx } from '../charts/theme';
import { useShallow } from 'zustand/react/shallow';
import { appStore, useApp } from '../store/app-store';
import { COURSE_DEFAULTS, runCourseDemo, type CourseDemoResult } from '@inferscope/core/sim';
import { sendControl } from '../live/control';
import { formatUs } from '../charts/format';
import { S } from '../i18n/strings';
import { lessonById } from './lessons';
import { playback } from './playback';
import { sliderRange } from '@inferscope/core/live-config';

// The demo's sliders span what the lesson shows (batches up to 8, half a second of delay) inside the
// live limits the server applies to the same fields.
const BATCH = sliderRange('max_batch_size', 8);
const DELAY = sliderRange('max_queue_delay_microseconds', 500_000);

export function CourseDemo() {
  const st = useApp(useShallow((s) => ({ delay: s.delay, mbs: s.mbs, gap: s.gap, seed: s.seed })));
  const delay = st.delay ?? COURSE_DEFAULTS.delayUs;
  const maxBatch = st.mbs ?? COURSE_DEFAULTS.maxBatch;
  const gap = st.gap ?? (COURSE_DEFAULTS.gapMinUs + COURSE_DEFAULTS.gapMaxUs) / 2;
  const r = useMemo(() => runCourseDemo({ seed: st.seed, delayUs: delay, maxBatch, gapMinUs: gap / 2, gapMaxUs: (gap * 3) / 2 }), [st.seed, delay, maxBatch, gap]);
  const c = S.course;
  const setDelay = (v: number) => {
    appStore.setState({ delay: v });
    void sendControl({ action: 'setDynamicBatching', model: 'course_demo', max_queue_delay_microseconds: v });
  };
  const setBatch = (v: number) => {
    appStore.setState({ mbs: v });
    // max_batch_size can only be lowered live: restart the live run with the new size
    const lesson = lessonById('course')!;
    const s = appStore.getState();
    void playback.load(lesson, s.seed, s);
  };
  const ratio = r.worst_wait_us.triton > 0 ? r.worst_wait_us.naive / r.worst_wait_us.triton : 0;
  return (
    <div className="card p-2 mb-2 space-y-1" data-testid="course-demo">
      <div className="grid gap-3 md:grid-cols-3 text-sm">
        <Slider label={c.gap} value={gap} min={20_000} max={1_000_000} step={10_000} onChange={(v) => appStore.setState({ gap: v })} testId="course-gap" />
        <Slider label={c.batchSize} value={maxBatch} {...BATCH} onChange={setBatch} testId="course-batch" plain />
        <Slider label={c.delay} value={delay} {...DELAY} onChange={setDelay} testId="course-delay" />
      </div>
      <Lanes r={r} delay={delay} />
      <p className="text-sm" data-testid="course-verdict">
        {c.verdict(formatUs(r.worst_wait_us.naive), formatUs(r.worst_wait_us.triton), ratio.toFixed(1))}
      </p>
      <p className="text-xs text-muted">
        {c.worst}{S.colon}<b data-testid="course-worst-naive">{formatUs(r.worst_wait_us.naive)}</b> / <b data-testid="course-worst-triton">{formatUs(r.worst_wait_us.triton)}</b>
        {' · '}{c.mean}{S.colon}{formatUs(r.mean_wait_us.naive)} / {formatUs(r.mean_wait_us.triton)}
      </p>
    </div>
  );
}

function Slider(props: { label: string; value: number; min: number; max: number; step: number; onChange(v: number): void; testId: string; plain?: boolean }) {
  return (
    <label className="field">
      <span className="flex justify-between gap-2"><span className="font-mono text-xs">{props.label}</span><b data-testid={`${props.testId}-value`}>{props.plain ? props.value : formatUs(props.value)}</b></span>
      <input type="range" min={props.min} max={props.max} step={props.step} value={props.value} onChange={(e) => props.onChange(Number(e.target.value))} data-testid={props.testId} />
    </label>
  );
}

/**
 * Two lanes on one time axis: per request a dot at arrival and a line to its batch's start; batches as bars
 * (the naive lane labels why each left; Triton's many batches say it in their tooltip, so labels never collide).
 */
function Lanes({ r, delay }: { r: CourseDemoResult; delay: number }) {
  // drawn at the box's own width in px (no viewBox scaling), with the type scale's sizes: large type
  // makes the lane titles, batch labels and ticks as large as the rest of the page
  const [box, W] = useWidth(900);
  const th = chartTheme();
  const f = textPx(th);
  // a request's row: thin enough that both lanes and the verdict fit one 1280x720 screen with large type
  const ROW = Math.max(8, Math.round(f * 0.5));
  const n = r.arrivals_us.length;
  const end = Math.max(...r.naive.requests.map((x) => x.done_us), ...r.triton.requests.map((x) => x.done_us), 1);
  const x = (t: number) => 10 + (t / end) * (W - 20);
  // the naive lane labels its batches under them; Triton's lane has no labels and needs no room for them
  const laneH = n * ROW + 2 * f + 24;
  const tritonH = n * ROW + f + 12;
  const lane = (top: number, title: string, reqs: CourseDemoResult['naive']['requests'], batches: { start_us: number; requests: number[]; label: string; showLabel: boolean }[], colour: string, id: string) => (
    <g transform={`translate(0 ${top})`} data-testid={`course-lane-${id}`}>
      <text x={0} y={f} className="lane-title" fontSize={textPx(th, 2)} fontWeight={600} fill="currentColor">{title}</text>
      {batches.map((b, i) => (
        <g key={i}>
          <rect x={x(b.start_us)} y={f + 6} width={Math.max(2, x(b.start_us + COURSE_DEFAULTS.processUs) - x(b.start_us))} height={n * ROW} style={{ fill: colour }} opacity={0.14} />
          <title>{b.label}</title>
          {b.showLabel && <text x={x(b.start_us) + 3} y={n * ROW + 2 * f + 10} fontSize={f} fill="currentColor" opacity={0.7} textAnchor={x(b.start_us) > W - 8 * f ? 'end' : 'start'}>{b.requests.length} · {b.label}</text>}
        </g>
      ))}
      {reqs.map((q, i) => (
        <g key={i}>
          <line x1={x(q.arrive_us)} x2={x(q.start_us)} y1={f + 12 + i * ROW} y2={f + 12 + i * ROW} style={{ stroke: colour }} strokeWidth={3} />
          <circle cx={x(q.arrive_us)} cy={f + 12 + i * ROW} r={3.5} style={{ fill: colour }} />
        </g>
      ))}
    </g>
  );
  const c = S.course;
  return (
    <div ref={box} className="w-full">
    <svg width={W} height={laneH + 10 + tritonH + f + 12} viewBox={`0 0 ${W} ${laneH + 10 + tritonH + f + 12}`} className="block" role="img" aria-label={`${c.naiveLane} / ${c.tritonLane(formatUs(delay))}`}>
      {lane(0, c.naiveLane, r.naive.requests, r.naive.batches.map((b) => ({ ...b, label: b.why === 'full' ? c.full : c.flush, showLabel: true })), 'var(--c-danger)', 'naive')}
      {lane(laneH + 10, c.tritonLane(formatUs(delay)), r.triton.requests, r.triton.batches.map((b) => ({ ...b, label: S.triggers[b.trigger] ?? b.trigger, showLabel: false })), 'var(--c-accent)', 'triton')}
      {[0, 0.25, 0.5, 0.75, 1].map((q) => (
        <text key={q} x={x(q * end)} y={laneH + 10 + tritonH + f + 6} fontSize={f} textAnchor={q === 1 ? 'end' : q === 0 ? 'start' : 'middle'} fill="currentColor" opacity={0.6}>{formatUs(q * end)}</text>
      ))}
    </svg>
    </div>
  );
}

/** A box's width in px, followed as it resizes (`initial` until the first measure). */
function useWidth(initial: number): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement | null>(null);
  const [w, setW] = useState(initial);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setW(Math.max(200, Math.floor(el.clientWidth))));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, w];
}
