/**
 * The performance view's charts of an iterative model, one point a second from the `generation`
 * messages (core GenFigures windows): time to first token and inter-token latency (p99 solid, p50
 * dashed, genai-perf's figures), output tokens/s, and KV blocks used against the budget; configuration
 * changes and restarts marked as on every time chart (perf-time-charts.ts's chartMarkers).
 */
import type { GenWindow, Spread } from '@inferscope/core/iterative';
import { appStore, live } from '../../store/app-store';
import { statsKey, versionLabel } from '../../store/select';
import { chartTheme, modelColour } from '../../charts/theme';
import { timeDomain } from '../../charts/scales';
import { drawTimeChart, type ChartInfo, type Guide, type LineSpec } from '../../charts/time-chart';
import type { DrawOptions } from '../../charts/use-canvas';
import type { SeriesPoint } from '../../charts/series';
import { formatRate, formatUs } from '../../charts/format';
import { dataNowUs, windowUs } from '../../live/clock';
import { S } from '../../i18n/strings';
import { chartMarkers } from '../perf-time-charts';

interface GenSeries {
  key: string;
  label: string;
  colour: string;
  points: GenWindow[];
}

function currentSeries(): { from: number; now: number; key: string; series: GenSeries[] } {
  const { window: win, model } = appStore.getState();
  const now = dataNowUs();
  const [from] = timeDomain(now, windowUs(win));
  const key = statsKey(live, model);
  const series = [...live.generation.entries()]
    .filter(([k]) => key === 'all' || k === key)
    .map(([k, view], i) => {
      const m = live.models.get(k);
      return { key: k, label: m ? versionLabel(m) : k, colour: modelColour(m?.colour ?? i), points: view.points.filter((p) => p.t >= from) };
    });
  return { from, now, key, series };
}

const pick = (points: GenWindow[], v: (p: GenWindow) => number | null | undefined): SeriesPoint[] =>
  points.flatMap((p) => {
    const y = v(p);
    return y === null || y === undefined || !Number.isFinite(y) ? [] : [{ t: p.t, v: y }];
  });

/** p99 solid and p50 dashed per model (the legend names the p99 lines; the note says which is which). */
function spreadLines(series: GenSeries[], of: (p: GenWindow) => Spread | null): LineSpec[] {
  return series.flatMap((s) => [
    { label: `${s.label} p99`, colour: s.colour, points: pick(s.points, (p) => of(p)?.p99) },
    { label: `${s.label} p50`, colour: s.colour, points: pick(s.points, (p) => of(p)?.p50), dash: [4, 3], inLegend: false },
  ]);
}

function chart(lines: (s: GenSeries[]) => LineSpec[], o: { yTitle: () => string; yFormat: (v: number) => string; yKind?: 'us'; floor: number; guides?: (s: GenSeries[]) => Guide[]; note?: () => string }) {
  return (ctx: CanvasRenderingContext2D, w: number, h: number, d: DrawOptions): ChartInfo => {
    const { from, now, key, series } = currentSeries();
    return drawTimeChart(ctx, w, h, chartTheme(), {
      lines: lines(series), from, now, markers: chartMarkers(key, from), yFormat: o.yFormat, yKind: o.yKind, yTitle: o.yTitle(), floor: o.floor,
      log: d.log, legendAll: d.legendAll, emptyText: S.genWaiting, guides: o.guides?.(series), note: o.note?.(),
    });
  };
}

export const drawGenTtft = chart((s) => spreadLines(s, (p) => p.ttftUs), { yTitle: () => S.genCharts.ttft, yFormat: formatUs, yKind: 'us', floor: 1000, note: () => S.panels.solidDashedLatency });
export const drawGenItl = chart((s) => spreadLines(s, (p) => p.interTokenUs), { yTitle: () => S.genCharts.itl, yFormat: formatUs, yKind: 'us', floor: 1000, note: () => S.panels.solidDashedLatency });
export const drawGenTokens = chart(
  (s) => s.map((x) => ({ label: x.label, colour: x.colour, points: pick(x.points, (p) => p.outputTokensPerSec), fill: s.length === 1 })),
  { yTitle: () => S.genAxis.tokensPerS, yFormat: formatRate, floor: 10 },
);
export const drawGenKv = chart(
  (s) => s.map((x) => ({ label: x.label, colour: x.colour, points: pick(x.points, (p) => p.kv?.usedBlocks), fill: s.length === 1 })),
  {
    yTitle: () => S.genAxis.blocks, yFormat: (v) => String(Math.round(v)), floor: 4,
    guides: (s) => s.flatMap((x) => {
      const total = x.points.at(-1)?.kv?.totalBlocks;
      return total ? [{ v: total, label: S.genKvBudget(total), colour: chartTheme().danger }] : [];
    }),
  },
);
