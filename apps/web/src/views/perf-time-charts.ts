/**
 * The Performance view's time charts, one series per model version (Triton's Grafana panels are per
 * model and version, never one merged line): throughput, latency, queue vs compute, average batch size,
 * pending requests, failures by reason, CPU utilisation. Each takes its points from the per-second stats
 * in the window and draws the configuration changes of the selected models as markers.
 */
import type { ModelAggregate, StatsMessage } from '@inferscope/core';
import { FAILURE_REASONS } from '@inferscope/core';
import { appStore, live } from '../store/app-store';
import { statsKey, versionLabel } from '../store/select';
import { chartTheme, modelColour } from '../charts/theme';
import { timeDomain } from '../charts/scales';
import { failureRates, pendingOf, seriesByVersion, type Series } from '../charts/series';
import { drawTimeChart, type ChartInfo, type LineSpec, type Marker } from '../charts/time-chart';
import type { DrawOptions } from '../charts/use-canvas';
import { formatRate, formatUs } from '../charts/format';
import { dataNowUs, windowUs } from '../live/clock';
import { S } from '../i18n/strings';
import { autotuneTip, targetGuides } from '../charts/autotune-marks';

interface Window {
  stats: StatsMessage[];
  key: string;
  from: number;
  now: number;
  markers: Marker[];
}

const SHORT: Record<string, string> = {
  max_queue_delay_microseconds: 'delay',
  preferred_batch_size: 'preferred',
  max_batch_size: 'max_batch',
  count: 'instances',
};

function changeText(path: string, value: unknown): string {
  const leaf = path.split('.').pop()?.replace(/\[\d+\]/g, '') ?? path;
  const name = SHORT[leaf] ?? leaf;
  const v = leaf === 'max_queue_delay_microseconds' && typeof value === 'number' ? formatUs(value) : Array.isArray(value) ? value.join(',') : String(value);
  return `${name} ${v}`;
}

/** The configuration changes of the selected model(s), as chart markers. */
export function configMarkers(key: string, from: number): Marker[] {
  return live.configLog
    .since(from, (e) => e.t)
    .filter((e) => key === 'all' || e.modelKey === key)
    .map((e) => {
      const changed = e.changes.map((c) => changeText(c.path, c.new)).join(' ') || e.by;
      const autotune = e.by === 'autotune';
      const what = autotune ? `${S.autotune.marker}: ${changed}` : changed;
      // with several models on the chart, say whose config changed, after what changed: a label cut to fit
      // its line keeps the change ("delay 2 ms"), not only the model's name
      const label = key === 'all' && live.models.size > 1 ? `${what} · ${labelOf(e.modelKey)}` : what;
      return { t: e.t, label, autotune, tip: autotune && e.reason ? `${label} — ${autotuneTip(e.reason)}` : label };
    });
}

/** Restarts of the server seen across reconnects (store/server-restart.ts), as chart markers. */
export function restartMarkers(from: number): Marker[] {
  return live.restarts.since(from, (r) => r.t).map((r) => ({ t: r.t, label: S.serverRestarted }));
}

/** Everything a time chart marks: the selected models' config changes and the server's restarts, in time order. */
export function chartMarkers(key: string, from: number): Marker[] {
  return [...configMarkers(key, from), ...restartMarkers(from)].sort((a, b) => a.t - b.t);
}

function currentWindow(): Window {
  const { window: win, model } = appStore.getState();
  const now = dataNowUs();
  const [from] = timeDomain(now, windowUs(win));
  const key = statsKey(live, model);
  return { stats: live.stats.since(from, (m) => m.t), key, from, now, markers: chartMarkers(key, from) };
}

/** The palette colour a model version has everywhere in the dashboard. */
function colourOf(key: string, i: number): string {
  return modelColour(live.models.get(key)?.colour ?? i);
}

function labelOf(key: string): string {
  const m = live.models.get(key);
  if (m) return versionLabel(m);
  const [name, version] = key.split(':');
  return versionLabel({ name, version: version ?? '' });
}

/** One line per version in its colour; dashed companions (p50, queue) share the colour and stay out of the legend. */
function versionLines(series: Series[], dash?: number[], suffix = ''): LineSpec[] {
  return series.map((s, i) => ({
    label: labelOf(s.key) + suffix, colour: colourOf(s.key, i), points: s.points, dash, fill: series.length === 1 && !dash, inLegend: !dash,
  }));
}

// the title is read at draw time: the language can change while the chart lives
function perVersionChart(pick: (a: ModelAggregate) => number, yFormat: (v: number) => string, yTitle: () => string, floor: number) {
  return (ctx: CanvasRenderingContext2D, w: number, h: number, o: DrawOptions): ChartInfo => {
    const win = currentWindow();
    return drawTimeChart(ctx, w, h, chartTheme(), {
      lines: versionLines(seriesByVersion(win.stats, win.key, pick)), from: win.from, now: win.now, markers: win.markers,
      yFormat, yTitle: yTitle(), floor, log: o.log, legendAll: o.legendAll, emptyText: emptyText(),
    });
  };
}

const emptyText = () => (live.stats.length ? S.noDataInWindow : S.waitingForStats);

export const drawThroughput = perVersionChart((a) => a.throughput_per_s, formatRate, () => S.axis.inferencesPerS, 10);
export const drawAvgBatch = perVersionChart((a) => a.avg_batch_size || NaN, (v) => String(+v.toFixed(1)), () => S.axis.batchSize.replace(' →', ''), 1);
export const drawPending = perVersionChart(pendingOf, formatRate, () => S.panels.requests, 1);

export const drawLatency = (ctx: CanvasRenderingContext2D, w: number, h: number, o: DrawOptions): ChartInfo => {
  const win = currentWindow();
  const served = (a: ModelAggregate) => a.requests_per_s > 0;
  const p99 = seriesByVersion(win.stats, win.key, (a) => (served(a) ? a.latency_us.p99 : NaN));
  const budget = appStore.getState().mode === 'teach' ? appStore.getState().latencyBudgetUs : undefined;
  const p50 = seriesByVersion(win.stats, win.key, (a) => (served(a) ? a.latency_us.p50 : NaN));
  let lines: LineSpec[];
  if (p99.length === 1) {
    // One version: its three percentiles, as perf_analyzer reports them.
    const p90 = seriesByVersion(win.stats, win.key, (a) => (served(a) ? a.latency_us.p90 : NaN))[0];
    lines = [
      { label: 'p50', colour: '#10b981', points: p50[0].points },
      { label: 'p90', colour: '#f59e0b', points: p90.points },
      { label: 'p99', colour: '#e11d48', points: p99[0].points },
    ];
  } else {
    lines = [...versionLines(p99), ...versionLines(p50, [4, 3], ' p50')];
  }
  return drawTimeChart(ctx, w, h, chartTheme(), {
    lines, from: win.from, now: win.now, markers: win.markers, yFormat: formatUs, yKind: 'us', yTitle: S.axis.latency, floor: 1000, log: o.log, legendAll: o.legendAll, emptyText: emptyText(),
    guides: [...targetGuides(win.key, chartTheme().danger), ...(budget === undefined ? [] : [{ v: budget, label: S.chartWords.budget(formatUs(budget)), colour: chartTheme().danger }])],
    note: p99.length > 1 ? S.panels.solidDashedLatency : undefined,
  });
};

export const drawQueueCompute = (ctx: CanvasRenderingContext2D, w: number, h: number, o: DrawOptions): ChartInfo => {
  const win = currentWindow();
  const served = (a: ModelAggregate) => a.requests_per_s > 0;
  const compute = seriesByVersion(win.stats, win.key, (a) => (served(a) ? a.compute_us_mean : NaN));
  const queue = seriesByVersion(win.stats, win.key, (a) => (served(a) ? a.queue_us_mean : NaN));
  const lines: LineSpec[] = compute.length === 1
    ? [{ label: S.chartWords.queue, colour: '#f59e0b', points: queue[0].points }, { label: S.chartWords.compute, colour: '#6366f1', points: compute[0].points }]
    : [...versionLines(compute), ...versionLines(queue, [4, 3], ` ${S.chartWords.queue}`)];
  return drawTimeChart(ctx, w, h, chartTheme(), {
    lines, from: win.from, now: win.now, markers: win.markers, yFormat: formatUs, yKind: 'us', yTitle: S.axis.meanTime, floor: 1000, log: o.log, legendAll: o.legendAll,
    emptyText: emptyText(), note: compute.length > 1 ? S.panels.solidDashed : undefined,
  });
};

const REASON_COLOUR = { REJECTED: '#d97706', CANCELED: '#64748b', BACKEND: '#dc2626', OTHER: '#8b5cf6' } as const;

export const drawFailures = (ctx: CanvasRenderingContext2D, w: number, h: number, o: DrawOptions): ChartInfo => {
  const win = currentWindow();
  const rates = failureRates(win.stats, win.key);
  const lines: LineSpec[] = rates.length === 0 ? [] : FAILURE_REASONS.map((r) => ({ label: S.chartWords.reasons[r] ?? r, colour: REASON_COLOUR[r], points: rates.map((x) => ({ t: x.t, v: x.perS[r] })) }));
  return drawTimeChart(ctx, w, h, chartTheme(), {
    lines, from: win.from, now: win.now, markers: win.markers, yFormat: formatRate, yTitle: S.panels.perSecond, floor: 1, log: o.log, legendAll: o.legendAll, emptyText: emptyText(),
  });
};

export const drawCpu = (ctx: CanvasRenderingContext2D, w: number, h: number): ChartInfo => {
  const win = currentWindow();
  const points = win.stats.flatMap((s) => (s.cpu ? [{ t: s.t, v: s.cpu.utilization }] : []));
  return drawTimeChart(ctx, w, h, chartTheme(), {
    lines: points.length ? [{ label: 'nv_cpu_utilization', colour: '#0ea5e9', points, fill: true }] : [], from: win.from, now: win.now,
    markers: win.markers, yFormat: (v) => `${Math.round(v * 100)}%`, yTitle: S.panels.cpu, fixedMax: 1, emptyText: emptyText(),
  });
};
