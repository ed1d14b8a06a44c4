/**
 * Performance: the panels Triton users look for, per model version with a legend (throughput, latency,
 * queue vs compute, average batch size, pending requests, failures by reason, CPU), the batch-size
 * histogram, throughput vs p99 per configuration, memory over time, Little's law. Every time chart marks
 * configuration changes. Everything is drawn from the per-second aggregates (never sampled), so it is
 * exact under load; the time charts live in perf-time-charts.ts.
 */
import { appStore, live, useApp } from '../store/app-store';
import { SweepPanel } from '../sweep/SweepPanel';
import { statsKey } from '../store/select';
import { ChartCard } from '../charts/ChartCard';
import { chartTheme, modelColour } from '../charts/theme';
import { groupByConfig, mergeHistograms, aggregatesFor, niceMax, timeDomain } from '../charts/scales';
import { drawAxes, drawEmpty, drawLegend, drawLine, makePlot, relativeSeconds, withAlpha } from '../charts/draw';
import { drawMarkers } from '../charts/time-chart';
import { chartMarkers, drawAvgBatch, drawCpu, drawFailures, drawLatency, drawPending, drawQueueCompute, drawThroughput } from './perf-time-charts';
import { formatBytes, formatRate, formatUs } from '../charts/format';
import { dataNowUs, windowUs } from '../live/clock';
import { S } from '../i18n/strings';
import { LittleCard } from './LittleCard';
import { ProtocolCard } from './ProtocolCard';
import { CacheCard } from './CacheCard';
import { GenerationCharts } from './generate/GenerationCharts';

const drawHistogram = (ctx: CanvasRenderingContext2D, w: number, h: number) => {
  const th = chartTheme();
  const { window: win, model } = appStore.getState();
  const [from] = timeDomain(dataNowUs(), windowUs(win));
  const key = statsKey(live, model);
  const bins = mergeHistograms(live.stats.since(from, (m) => m.t).flatMap((s) => aggregatesFor(s, key)));
  if (bins.length === 0) return drawEmpty(ctx, th, w, h, live.stats.length ? S.noDataInWindow : S.waitingForStats);
  const maxSize = Math.max(...bins.map((b) => b.size));
  const p = makePlot(ctx, w, h, th, [0.5, maxSize + 0.5], [0, niceMax(bins.map((b) => b.count))]);
  drawAxes(p, { yFormat: formatRate, xFormat: (v) => String(v), xTicks: Math.min(maxSize, 12), xTitle: S.axis.batchSize, yTitle: S.axis.batches });
  const bw = Math.max(2, (p.right - p.left) / maxSize - 2);
  ctx.fillStyle = th.accent;
  for (const b of bins) ctx.fillRect(p.x(b.size) - bw / 2, p.y(b.count), bw, p.bottom - p.y(b.count));
};

const drawScatter = (ctx: CanvasRenderingContext2D, w: number, h: number) => {
  const th = chartTheme();
  const { model } = appStore.getState();
  const key = statsKey(live, model);
  const pts = live.perfPoints.toArray().filter((p) => key === 'all' || p.modelKey === key);
  if (pts.length === 0) return drawEmpty(ctx, th, w, h, live.stats.length ? S.noDataInWindow : S.waitingForStats);
  const groups = groupByConfig(pts);
  const p = makePlot(ctx, w, h, th, [0, niceMax(pts.map((d) => d.p99Us), 1000)], [0, niceMax(pts.map((d) => d.throughput), 10)]);
  drawAxes(p, { yFormat: formatRate, xFormat: formatUs, xTicks: 4, xTitle: S.axis.p99, yTitle: S.axis.inferencesPerS });
  groups.forEach((g, i) => {
    const c = modelColour(i);
    ctx.fillStyle = withAlpha(c, 0.35);
    for (const d of g.points) {
      ctx.beginPath();
      ctx.arc(p.x(d.p99Us), p.y(d.throughput), 3, 0, Math.PI * 2);
      ctx.fill();
    }
    ctx.fillStyle = c;
    ctx.strokeStyle = th.fg;
    ctx.beginPath();
    ctx.arc(p.x(g.meanP99Us), p.y(g.meanThroughput), 7, 0, Math.PI * 2);
    ctx.fill();
    ctx.stroke();
  });
  ctx.font = `${th.fontSize}px ${th.font}`;
  ctx.textAlign = 'left';
  groups.slice(-6).forEach((g, j) => {
    const i = groups.length - Math.min(6, groups.length) + j;
    ctx.fillStyle = modelColour(i);
    ctx.fillRect(p.right - 190, p.top + 6 + j * 15, 9, 9);
    ctx.fillStyle = th.fg;
    ctx.fillText(g.config, p.right - 176, p.top + 11 + j * 15);
  });
};

const drawMemory = (ctx: CanvasRenderingContext2D, w: number, h: number) => {
  const th = chartTheme();
  const { window: win } = appStore.getState();
  const now = dataNowUs();
  const [from] = timeDomain(now, windowUs(win));
  const samples = live.memorySamples.since(from, (s) => s.t);
  const devices = [...new Set([...live.devices.keys(), ...samples.map((s) => s.device)])];
  if (devices.length === 0) return drawEmpty(ctx, th, w, h, S.waitingForStats);
  // Carry the last known value to "now" so a quiet device still shows a flat line.
  const series = devices.map((d) => {
    const pts = samples.filter((s) => s.device === d).map((s) => ({ t: s.t, used: s.used, budget: s.budget }));
    const cur = live.devices.get(d);
    if (cur) pts.push({ t: now, used: cur.used_bytes, budget: cur.budget_bytes });
    if (pts.length === 1) pts.unshift({ ...pts[0], t: from });
    return { device: d, pts };
  });
  const max = niceMax(series.flatMap((s) => s.pts.flatMap((p) => [p.used, p.budget])), 1024 * 1024);
  const p = makePlot(ctx, w, h, th, [from, now], [0, max], { l: Math.max(60, th.fontSize * 5.5), r: 10, t: th.fontSize + 6, b: th.fontSize + 10 });
  drawAxes(p, { yFormat: formatBytes, yKind: 'bytes', xFormat: relativeSeconds(now), xRelativeTo: now, yTitle: S.axis.bytesUsed });
  const markers = drawMarkers(p, chartMarkers(statsKey(live, appStore.getState().model), from), from, now);
  let anyBudget = false;
  series.forEach((s, i) => {
    const c = modelColour(i + 3);
    drawLine(p, s.pts, (d) => d.t, (d) => d.used, c);
    if (s.pts.some((d) => d.budget > 0)) {
      anyBudget = true;
      drawLine(p, s.pts, (d) => d.t, (d) => d.budget, th.danger, 1.5, [5, 4]);
    }
  });
  // The budget entry only names a line that is drawn; without one each device's entry says so (a separate
  // "no budget set" at the right edge ran into the legend on a narrow chart and read "cpu budget set").
  const items = series.map((s, i) => ({ label: anyBudget ? s.device : `${s.device} · ${S.noBudgetSet}`, colour: modelColour(i + 3) }));
  drawLegend(ctx, th, anyBudget ? items.concat([{ label: S.budget, colour: th.danger }]) : items, p.left + 6, p.top + 6);
  return { legend: items.map((i) => i.label), markers };
};

/** Chart height: tall enough that the grid fills the space beside the side panel on a laptop screen. */
const H = 220;

export function PerformanceView() {
  const mode = useApp((s) => s.mode);
  return (
    <div className="grid gap-3 md:grid-cols-2 xl:grid-cols-3" data-testid="view-performance">
      <ChartCard title={S.throughput} draw={drawThroughput} height={H} testId="chart-throughput" logToggle />
      <ChartCard title={S.panels.latencyByVersion} draw={drawLatency} height={H} testId="chart-latency" logToggle />
      <ChartCard title={S.queueVsCompute} draw={drawQueueCompute} height={H} testId="chart-queue-compute" logToggle />
      <ChartCard title={S.panels.avgBatch} draw={drawAvgBatch} height={H} testId="chart-avg-batch" />
      <ChartCard title={S.panels.pending} draw={drawPending} height={H} testId="chart-pending" logToggle />
      <ChartCard title={S.panels.failures} draw={drawFailures} height={H} testId="chart-failures" logToggle />
      <ChartCard title={S.panels.cpu} draw={drawCpu} height={H} testId="chart-cpu" />
      <ChartCard title={S.batchHistogram} draw={drawHistogram} height={H} testId="chart-histogram" />
      <ChartCard title={S.tputVsP99} draw={drawScatter} height={H} />
      <ChartCard title={S.memoryOverTime} draw={drawMemory} height={H} testId="chart-memory" />
      <GenerationCharts height={H} />
      {/* Full width: alone in a grid cell it left a wide empty hole beside it. */}
      <div className="md:col-span-2 xl:col-span-3">
        <LittleCard />
      </div>
      <div className="md:col-span-2 xl:col-span-3">
        <ProtocolCard />
      </div>
      <div className="md:col-span-2 xl:col-span-3">
        <CacheCard />
      </div>
      {mode === 'live' && (
        <div className="md:col-span-2 xl:col-span-3">
          <SweepPanel />
        </div>
      )}
    </div>
  );
}

