/**
 * State: queue depth per priority over time, the oldest waiting request against max_queue_delay, a
 * timeline per instance with each batch as a bar, and the log of model/instance/config changes.
 */
import { RateLimiterCard } from './RateLimiterCard';
import { latestLimiter, waitsForResources } from '../store/rate-limiter-rows';
import { appStore, live, useApp } from '../store/app-store';
import { selectedModels, versionLabel } from '../store/select';
import { batchingOf, activeInstances, formatDelay } from '../store/config-paths';
import { ChartCard } from '../charts/ChartCard';
import { chartTheme, modelColour, priorityColour, TRIGGER_COLOUR } from '../charts/theme';
import { niceMax, timeDomain } from '../charts/scales';
import { drawAxes, drawEmpty, drawLegend, drawLine, fitText, makePlot, relativeSeconds, withAlpha } from '../charts/draw';
import { formatUs } from '../charts/format';
import { dataNowUs, windowUs } from '../live/clock';
import { S } from '../i18n/strings';
import { ChangeLog } from './ChangeLog';
import { SequenceSlotsCard } from './SequenceSlots';
import { GenerationStateCard } from './generate/GenerationStateCard';
import { useLiveText } from '../charts/use-live-text';

const drawQueueDepth = (ctx: CanvasRenderingContext2D, w: number, h: number) => {
  const th = chartTheme();
  const { window: win, model } = appStore.getState();
  const now = dataNowUs();
  const [from] = timeDomain(now, windowUs(win));
  const keys = new Set(selectedModels(live, model).map((m) => m.key));
  // Sum over the chosen models per sample time, one series per priority level.
  const byT = new Map<number, Record<number, number>>();
  const levels = new Set<number>();
  for (const s of live.queueSamples.since(from, (q) => q.t)) {
    if (!keys.has(s.modelKey)) continue;
    const row = byT.get(s.t) ?? {};
    for (const [l, n] of Object.entries(s.depth)) {
      levels.add(Number(l));
      row[Number(l)] = (row[Number(l)] ?? 0) + n;
    }
    byT.set(s.t, row);
  }
  const rows = [...byT.entries()].sort((a, b) => a[0] - b[0]);
  if (rows.length === 0) return drawEmpty(ctx, th, w, h, S.noQueueSamples);
  const lv = [...levels].sort((a, b) => a - b);
  const p = makePlot(ctx, w, h, th, [from, now], [0, niceMax(rows.flatMap(([, r]) => Object.values(r)), 4)]);
  drawAxes(p, { yFormat: (v) => String(v), xFormat: relativeSeconds(now), xRelativeTo: now, yTitle: S.axis.waiting });
  for (const l of lv) drawLine(p, rows, ([t]) => t, ([, r]) => r[l] ?? 0, priorityColour(l), 2);
  drawLegend(ctx, th, lv.map((l) => ({ label: S.priority(l), colour: priorityColour(l) })), p.left + 6, p.top + 6);
};

const drawOldestWait = (ctx: CanvasRenderingContext2D, w: number, h: number) => {
  const th = chartTheme();
  const { window: win, model } = appStore.getState();
  const now = dataNowUs();
  const [from] = timeDomain(now, windowUs(win));
  const models = selectedModels(live, model);
  if (models.length === 0) return drawEmpty(ctx, th, w, h, S.noModels);
  const samples = live.queueSamples.since(from, (q) => q.t);
  const delays = models.map((m) => batchingOf(m.config, 0).maxQueueDelayUs);
  const series = models.map((m) => samples.filter((s) => s.modelKey === m.key));
  const p = makePlot(ctx, w, h, th, [from, now], [0, niceMax([...series.flat().map((s) => s.oldestWaitUs), ...delays], 1000)]);
  drawAxes(p, { yFormat: formatUs, yKind: 'us', xFormat: relativeSeconds(now), xRelativeTo: now, yTitle: S.axis.wait });
  models.forEach((m, i) => {
    const c = modelColour(m.colour);
    if (delays[i] > 0) drawLine(p, [from, now], (t) => t, () => delays[i], withAlpha(c, 0.8), 1.5, [6, 4]);
    drawLine(p, series[i], (s) => s.t, (s) => s.oldestWaitUs, c, 2);
  });
  drawLegend(ctx, th, models.map((m) => ({ label: versionLabel(m), colour: modelColour(m.colour) })).concat([{ label: '- - max_queue_delay', colour: th.muted }]), p.left + 6, p.top + 6);
};

/**
 * One lane per instance, each batch a bar from start to end (height = batch size vs max_batch_size).
 * The time axis is the same window ending at the same "now" as the charts above, so a queue spike and
 * the batches that drained it line up by their tick labels.
 */
const drawInstanceTimeline = (ctx: CanvasRenderingContext2D, w: number, h: number) => {
  const th = chartTheme();
  const { window: win, model, colour } = appStore.getState();
  const now = dataNowUs();
  const [from] = timeDomain(now, windowUs(win));
  const models = selectedModels(live, model);
  const lanes = models.flatMap((m) => [...m.instances.values()].map((i) => ({ m, i })));
  if (lanes.length === 0) return drawEmpty(ctx, th, w, h, S.noModels);
  const labelW = Math.min(220, w * 0.3);
  const p = makePlot(ctx, w, h, th, [from, now], [0, 1], { l: labelW, r: 10, t: 4, b: th.fontSize + 10 });
  const laneH = Math.max(14, Math.min(56, (p.bottom - p.top) / lanes.length));
  ctx.font = `${th.fontSize}px ${th.font}`;
  ctx.textBaseline = 'middle';
  const limiter = latestLimiter(live);
  const index = new Map(lanes.map((l, k) => [`${l.m.key}|${l.i.name}`, k]));
  lanes.forEach((l, k) => {
    const y = p.top + k * laneH;
    ctx.fillStyle = k % 2 ? withAlpha(th.grid, 0.35) : 'transparent';
    ctx.fillRect(p.left, y, p.right - p.left, laneH);
    // a batch held back by the rate limiter is waiting, not idle or running: its own word and colour
    const waiting = waitsForResources(limiter, l.m.name, l.m.version, l.i.name);
    ctx.fillStyle = waiting ? th.warn : l.i.state === 'busy' ? th.fg : th.muted;
    ctx.textAlign = 'right';
    // cut with "…" rather than squeezed by fillText's maxWidth: squeezed text falls below the large-type floor
    ctx.fillText(fitText(ctx, `${l.i.name} · ${waiting ? S.cacheLimiter.waitingForResources : S.instanceStates[l.i.state] ?? l.i.state}`, labelW - 12), p.left - 8, y + laneH / 2);
  });
  // Vertical grid at the time ticks (drawn under the bars), then the tick labels under the lanes.
  const lanesBottom = p.top + lanes.length * laneH;
  const axis = { ...p, bottom: lanesBottom };
  drawAxes(axis, { yFormat: () => '', yTicks: 0, xFormat: relativeSeconds(now), xRelativeTo: now });
  const maxMb = Math.max(1, ...models.map((m) => batchingOf(m.config, 0).maxBatchSize));
  let drawn = 0;
  const bar = (key: string, inst: string | undefined, t0: number, t1: number, size: number, fill: string) => {
    const k = index.get(`${key}|${inst}`);
    if (k === undefined || t1 < from) return;
    drawn++;
    const y = p.top + k * laneH;
    const bh = Math.max(3, (laneH - 4) * Math.min(1, size / maxMb));
    const x0 = Math.max(p.left, p.x(t0));
    const x1 = Math.max(x0 + 1.5, p.x(t1));
    ctx.fillStyle = fill;
    ctx.fillRect(x0, y + laneH - 2 - bh, x1 - x0, bh);
    if (x1 - x0 > 22 && laneH > 16) {
      ctx.fillStyle = th.bg;
      ctx.textAlign = 'center';
      ctx.fillText(String(size), (x0 + x1) / 2, y + laneH - 2 - bh / 2);
    }
  };
  const fillFor = (key: string, trigger: string, ok = true) =>
    !ok ? th.danger : colour === 'priority' ? TRIGGER_COLOUR[trigger] ?? th.accent : modelColour(live.models.get(key)?.colour ?? 0);
  for (const b of live.timeline.since(from - 5_000_000, (b) => b.tDone ?? 0)) bar(b.modelKey, b.instance, b.tStarted ?? b.tFormed, b.tDone ?? now, b.size, fillFor(b.modelKey, b.trigger, b.ok));
  for (const b of live.batches.values()) if (b.tStarted !== undefined) bar(b.modelKey, b.instance, b.tStarted, now, b.size, withAlpha(fillFor(b.modelKey, b.trigger), 0.6));
  if (drawn === 0) {
    ctx.font = `${th.fontSize}px ${th.font}`;
    ctx.fillStyle = th.muted;
    ctx.textAlign = 'center';
    ctx.fillText(S.noBatchesInWindow, (p.left + p.right) / 2, p.top + Math.min(lanes.length * laneH, p.bottom - p.top) / 2);
  }
};

export function StateView() {
  useApp((s) => s.structureRev);
  const model = useApp((s) => s.model);
  const models = selectedModels(live, model);
  return (
    <div className="grid gap-3 lg:grid-cols-2" data-testid="view-state">
      <ChartCard title={S.queueDepth} draw={drawQueueDepth} height={220} testId="chart-queue-depth" />
      <ChartCard title={S.oldestWait} draw={drawOldestWait} height={220}>
        <PendingLine keys={models.map((m) => m.key)} />
      </ChartCard>
      <div className="lg:col-span-2">
        <ChartCard title={S.instanceTimeline} draw={drawInstanceTimeline} height={Math.max(160, 52 * models.reduce((n, m) => n + m.instances.size, 0) + 34)} testId="chart-instance-timeline" />
      </div>
      <div className="lg:col-span-2">
        <RateLimiterCard />
      </div>
      <SequenceSlotsCard models={models} />
      <GenerationStateCard models={models} />
      <ChangeLog />
    </div>
  );
}

function PendingLine(props: { keys: string[] }) {
  const ref = useLiveText(() =>
    props.keys
      .map((k) => {
        const m = live.models.get(k);
        if (!m) return '';
        const oldest = live.oldestQueued(k);
        const n = [...m.queued.values()].reduce((a, b) => a + b, 0);
        const b = batchingOf(m.config, activeInstances(m));
        return `${m.name}: ${S.pendingNow(n, formatUs(oldest ? dataNowUs() - oldest.tQueued : 0), b.dynamic ? formatDelay(b.maxQueueDelayUs) : '–')}`;
      })
      .filter(Boolean)
      .join('   '),
  );
  return <p ref={ref} className="px-3 pb-2 text-sm font-mono text-muted" />;
}

