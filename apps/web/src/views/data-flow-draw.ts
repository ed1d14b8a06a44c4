/**
 * The Data view's drawing: per model one row, left to right: arrivals -> one lane per priority queue
 * (oldest nearest the batcher) -> the dynamic batcher (formed batches waiting for an instance, with the
 * trigger that formed the last one) -> instances (the batch running on each) -> responses. Rejected and
 * timed-out requests drop out under the queue in red with their reason. Positions are recomputed from
 * the LiveModel every animation frame; moves are tweened over `animUs` of data time.
 */
import type { LiveModel } from '../store/live-model';
import type { ModelLive, RequestLive } from '../store/live-types';
import { chartTheme, modelColour, priorityColour, TRIGGER_COLOUR, type ChartTheme } from '../charts/theme';
import { withAlpha } from '../charts/draw';
import { S } from '../strings';

const MAX_DOTS_PER_LANE = 60;

interface Row {
  m: ModelLive;
  top: number;
  height: number;
}

const ease = (x: number) => (x >= 1 ? 1 : x <= 0 ? 0 : 1 - (1 - x) * (1 - x) * (1 - x));
const lerp = (a: number, b: number, k: number) => a + (b - a) * k;

export function drawDataFlow(
  ctx: CanvasRenderingContext2D, w: number, h: number, live: LiveModel, models: ModelLive[], now: number, anim: number, colourBy: 'model' | 'priority',
): void {
  const th = chartTheme();
  if (models.length === 0) {
    ctx.fillStyle = th.muted;
    ctx.fillText(S.noModels, 20, 30);
    return;
  }
  const headerH = 22;
  const rowH = (h - headerH) / models.length;
  const X = { arrive: 26, qStart: 70, qEnd: w * 0.44, batcher: w * 0.52, batcherW: Math.max(70, w * 0.1), inst: w * 0.68, instW: Math.max(90, w * 0.16), out: w - 30 };
  ctx.font = `600 ${th.fontSize}px ${th.font}`;
  ctx.fillStyle = th.muted;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  ctx.fillText(S.arrivals, X.arrive, 4);
  ctx.fillText(S.queues, (X.qStart + X.qEnd) / 2, 4);
  ctx.fillText(S.batcher, X.batcher + X.batcherW / 2, 4);
  ctx.fillText(S.instances, X.inst + X.instW / 2, 4);
  ctx.fillText(S.responses, X.out, 4);

  // One pass over in-flight requests, grouped by model and phase.
  const byModel = new Map<string, { queued: Map<number, RequestLive[]>; batched: Map<string, RequestLive[]>; running: Map<string, RequestLive[]> }>();
  for (const m of models) byModel.set(m.key, { queued: new Map(), batched: new Map(), running: new Map() });
  for (const r of live.requests.values()) {
    const g = byModel.get(r.modelKey);
    if (!g) continue;
    const bucket = r.phase === 'queued' ? g.queued : r.phase === 'batched' ? g.batched : g.running;
    const key = r.phase === 'queued' ? r.priority : r.phase === 'batched' ? r.batchId ?? '' : r.instance ?? '';
    const list = (bucket as Map<unknown, RequestLive[]>).get(key);
    if (list) list.push(r);
    else (bucket as Map<unknown, RequestLive[]>).set(key, [r]);
  }

  models.forEach((m, idx) => {
    const row: Row = { m, top: headerH + idx * rowH, height: rowH };
    drawRow(ctx, th, row, byModel.get(m.key)!, X, live, now, anim, colourBy, models.length > 1);
  });
}

function drawRow(
  ctx: CanvasRenderingContext2D, th: ChartTheme, row: Row,
  g: { queued: Map<number, RequestLive[]>; batched: Map<string, RequestLive[]>; running: Map<string, RequestLive[]> },
  X: Record<string, number>, live: LiveModel, now: number, anim: number, colourBy: 'model' | 'priority', labelRow: boolean,
): void {
  const { m, top, height } = row;
  const mid = top + height / 2;
  const colourOf = (r: RequestLive) => (colourBy === 'priority' ? priorityColour(r.priority) : modelColour(m.colour));
  const dot = (x: number, y: number, r: RequestLive, radius = 4, alpha = 1) => {
    ctx.fillStyle = alpha < 1 ? withAlpha(colourOf(r), alpha) : colourOf(r);
    ctx.beginPath();
    ctx.arc(x, y, radius, 0, Math.PI * 2);
    ctx.fill();
  };
  if (labelRow) {
    ctx.font = `600 ${th.fontSize}px ${th.font}`;
    ctx.fillStyle = modelColour(m.colour);
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(m.name, 4, top + 2);
    ctx.strokeStyle = th.grid;
    ctx.beginPath();
    ctx.moveTo(0, top + 0.5);
    ctx.lineTo(X.out + 30, top + 0.5);
    ctx.stroke();
  }
  // Arrival point.
  ctx.fillStyle = th.muted;
  ctx.beginPath();
  ctx.arc(X.arrive, mid, 6, 0, Math.PI * 2);
  ctx.fill();

  // Queue lanes: one per priority level that exists (at least level 1).
  const levels = [...new Set([...m.queued.keys(), ...g.queued.keys(), 1])].sort((a, b) => a - b).slice(0, 5);
  const laneH = Math.min(26, (height - 30) / levels.length);
  const lanesTop = mid - (laneH * levels.length) / 2;
  ctx.font = `${th.fontSize}px ${th.font}`;
  levels.forEach((level, k) => {
    const y = lanesTop + k * laneH + laneH / 2;
    ctx.strokeStyle = withAlpha(priorityColour(level), 0.45);
    ctx.lineWidth = 1;
    ctx.strokeRect(X.qStart, y - laneH / 2 + 2, X.qEnd - X.qStart, laneH - 4);
    ctx.fillStyle = th.muted;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    ctx.fillText(`P${level}`, X.qStart - 22, y);
    const list = g.queued.get(level) ?? [];
    const spacing = Math.max(5, Math.min(12, (X.qEnd - X.qStart - 20) / Math.min(list.length || 1, MAX_DOTS_PER_LANE)));
    // Oldest first in the list: it sits nearest the batcher on the right.
    list.slice(0, MAX_DOTS_PER_LANE).forEach((r, i) => {
      const slot = X.qEnd - 8 - i * spacing;
      // Entering is quick (40% of a move): under load a request often waits less than a full move.
      const k2 = ease((now - r.tQueued) / (anim * 0.4));
      dot(lerp(X.arrive, slot, k2), lerp(mid, y, k2), r, r.delayed ? 3 : 4);
    });
    if (list.length > MAX_DOTS_PER_LANE) {
      ctx.fillStyle = th.fg;
      ctx.textAlign = 'left';
      ctx.fillText(`+${list.length - MAX_DOTS_PER_LANE}`, X.qStart + 4, y);
    }
  });

  // Batcher: formed batches waiting for (or just handed to) an instance.
  const bTop = mid - Math.min(60, height / 2 - 8);
  const bH = Math.min(120, height - 16);
  ctx.strokeStyle = th.accent;
  ctx.lineWidth = 1.5;
  ctx.strokeRect(X.batcher, bTop, X.batcherW, bH);
  let bi = 0;
  for (const [, reqs] of g.batched) {
    reqs.slice(0, 64).forEach((r, i) => {
      const k2 = ease((now - (r.tBatched ?? now)) / anim);
      const tx = X.batcher + 8 + (i % 8) * 8;
      const ty = bTop + 8 + bi * 18 + Math.floor(i / 8) * 8;
      dot(lerp(X.qEnd, tx, k2), lerp(mid, ty, k2), r, 3);
    });
    bi++;
    if (bi > 4) break;
  }
  // The most recent batch of this model and why it formed.
  const last = lastBatchOf(live, m.key);
  if (last) {
    const fade = Math.max(0.35, 1 - (now - last.tFormed) / (anim * 6));
    ctx.fillStyle = withAlpha(TRIGGER_COLOUR[last.trigger] ?? th.accent, fade);
    ctx.font = `600 ${th.fontSize}px ${th.font}`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    ctx.fillText(`${last.size} · ${S.triggers[last.trigger] ?? last.trigger}`, X.batcher + X.batcherW / 2, bTop + bH + 4);
  }

  // Instances with their running batch.
  const insts = [...m.instances.values()];
  const iH = Math.min(40, (height - 12) / Math.max(1, insts.length));
  const iTop = mid - (iH * insts.length) / 2;
  insts.forEach((inst, k) => {
    const y = iTop + k * iH;
    const busy = inst.state === 'busy';
    ctx.fillStyle = busy ? withAlpha(modelColour(m.colour), 0.18) : 'transparent';
    ctx.fillRect(X.inst, y + 2, X.instW, iH - 4);
    ctx.strokeStyle = inst.state === 'failed' ? th.danger : busy ? modelColour(m.colour) : th.grid;
    ctx.lineWidth = busy ? 2 : 1;
    ctx.strokeRect(X.inst, y + 2, X.instW, iH - 4);
    ctx.fillStyle = th.muted;
    ctx.font = `${th.fontSize - 1}px ${th.font}`;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    ctx.fillText(inst.state === 'busy' ? S.busyWith(inst.batchSize ?? 0) : inst.state, X.inst + X.instW - 4, y + iH / 2);
    const running = g.running.get(inst.name) ?? [];
    running.slice(0, 32).forEach((r, i) => {
      const k2 = ease((now - (r.tStarted ?? now)) / anim);
      const tx = X.inst + 8 + (i % 8) * 7;
      const ty = y + 8 + Math.floor(i / 8) * 7;
      dot(lerp(X.batcher + X.batcherW, tx, k2), lerp(mid, ty, k2), r, 3);
    });
  });

  // Responses leaving, and rejections dropping out under the queue.
  let lastReject: RequestLive | undefined;
  for (let i = live.finished.length - 1, seen = 0; i >= 0 && seen < 400; i--, seen++) {
    const r = live.finished.at(i)!;
    if (r.modelKey !== m.key) continue;
    const age = now - (r.tDone ?? now);
    if (age > anim * 8) break;
    if (r.phase === 'rejected') {
      lastReject ??= r;
      const k2 = Math.min(1, age / (anim * 8));
      const x = X.qStart + 10 + (hash(r.id) % Math.max(1, X.qEnd - X.qStart - 20));
      const y = lanesTop + laneH * levels.length + 6 + k2 * 30;
      ctx.strokeStyle = withAlpha(th.danger, 1 - k2);
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(x - 4, y - 4); ctx.lineTo(x + 4, y + 4); ctx.moveTo(x + 4, y - 4); ctx.lineTo(x - 4, y + 4);
      ctx.stroke();
    } else if (age <= anim * 2) {
      const k2 = ease(age / (anim * 2));
      dot(lerp(X.inst + X.instW, X.out, k2), lerp(mid, mid + ((hash(r.id) % 41) - 20), k2), r, 3, r.ok === false ? 0.4 : 1 - k2);
    }
  }
  if (lastReject) {
    ctx.fillStyle = th.danger;
    ctx.font = `${th.fontSize}px ${th.font}`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(`${S.rejected}: ${lastReject.reason} — ${lastReject.message ?? ''}`.slice(0, 80), X.qStart, Math.min(top + height - 16, lanesTop + laneH * levels.length + 40));
  }
}

function lastBatchOf(live: LiveModel, key: string) {
  let best: { tFormed: number; size: number; trigger: string } | undefined;
  for (const b of live.batches.values()) if (b.modelKey === key && (!best || b.tFormed > best.tFormed)) best = b;
  if (best) return best;
  for (let i = live.timeline.length - 1, n = 0; i >= 0 && n < 200; i--, n++) {
    const b = live.timeline.at(i)!;
    if (b.modelKey === key) return b;
  }
  return undefined;
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
