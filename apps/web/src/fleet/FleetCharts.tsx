/**
 * The fleet view's per-replica charts: inferences/s and p99 of every replica over the last minute, one
 * line per replica (a balancer that favours one replica, or one replica slower than the rest, shows at
 * a glance). Points are the replicas' own per-second rows (fleet-rows.ts), timed by each replica's wall
 * clock: replicas' monotonic clocks do not share a zero.
 */
import { useStore } from 'zustand';
import { chartTheme, modelColour } from '../charts/theme';
import { drawTimeChart, type LineSpec } from '../charts/time-chart';
import { formatRate, formatUs } from '../charts/format';
import { ChartCard } from '../charts/ChartCard';
import type { DrawOptions } from '../charts/use-canvas';
import { S } from '../i18n/strings';
import { fleetStore } from './fleet-connections';
import type { ReplicaPoint, ReplicaState } from './fleet-rows';

const WINDOW_US = 60_000_000;

/** Bumped on every store change: the canvases redraw when a replica's stats arrive. */
let revision = 0;
fleetStore.subscribe(() => { revision++; });
const rev = () => revision;

function linesOf(replicas: ReplicaState[], v: (p: ReplicaPoint) => number): LineSpec[] {
  return replicas.map((r, i) => ({ label: r.name, colour: modelColour(i), points: r.history.map((p) => ({ t: p.wallMs * 1000, v: v(p) })) }));
}

function drawFigure(v: (p: ReplicaPoint) => number, o: { yFormat: (x: number) => string; yKind?: 'us'; yTitle: string; floor: number }) {
  return (ctx: CanvasRenderingContext2D, w: number, h: number, opts: DrawOptions) => {
    const now = Date.now() * 1000;
    const lines = linesOf(fleetStore.getState().replicas, v)
      .map((l) => ({ ...l, points: l.points.filter((p) => p.t >= now - WINDOW_US) }))
      .filter((l) => l.points.length > 0);
    return drawTimeChart(ctx, w, h, chartTheme(), { lines, from: now - WINDOW_US, now, markers: [], log: opts.log, legendAll: opts.legendAll, emptyText: S.noDataInWindow, ...o });
  };
}

const drawThroughput = drawFigure((p) => p.inferencesPerS, { yFormat: formatRate, yTitle: S.fleet.inferencesPerS, floor: 1 });
const drawP99 = drawFigure((p) => p.p99Us, { yFormat: formatUs, yKind: 'us', yTitle: S.axis.latency, floor: 1000 });

export function FleetCharts() {
  useStore(fleetStore, (s) => s.replicas.length);
  return (
    <div className="grid gap-3 md:grid-cols-2" data-testid="fleet-charts">
      <ChartCard title={S.fleet.throughputChart} draw={drawThroughput} rev={rev} testId="fleet-chart-throughput" logToggle />
      <ChartCard title={S.fleet.p99Chart} draw={drawP99} rev={rev} testId="fleet-chart-p99" logToggle />
    </div>
  );
}
