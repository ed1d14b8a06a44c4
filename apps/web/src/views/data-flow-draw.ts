/**
 * The Data view's drawing. Per model one row, left to right: arrivals -> one lane per priority queue
 * (every waiting request a dot, oldest nearest the batcher) -> the dynamic batcher (the batch the queue
 * head would make, filling towards max_batch_size, and why the last one left) -> instance cards (busy
 * ones light up with their batch) -> responses flying out and fading. Rejected requests drop out under
 * the queues in red with their reason. Positions are recomputed from the LiveModel every animation
 * frame; moves are tweened over `animUs` of data time, so no per-dot state is kept.
 */
import type { LiveModel } from '../store/live-model';
import type { ModelLive, RequestLive } from '../store/live-types';
import { chartTheme, priorityColour, textPx } from '../charts/theme';
import { withAlpha } from '../charts/draw';
import { S } from '../i18n/strings';
import { formatRate } from '../charts/format';
import { drawBatcher, drawWaitingBatches } from './data-flow-batcher';
import { drawInstances } from './data-flow-instances';
import { drawPipelineRow } from './data-flow-pipeline';
import { pipelineOf } from '../store/pipeline';
import { colourFn, dot, DotBatch, ease, hash, lerp, roundRect, spreadHeaders, text, type Columns, type Groups, type RowCtx } from './data-flow-shared';

const DOT_STEP = 11;

export function drawDataFlow(
  ctx: CanvasRenderingContext2D, w: number, h: number, live: LiveModel, models: ModelLive[], now: number, anim: number, colourBy: 'model' | 'priority',
): void {
  const th = chartTheme();
  if (models.length === 0) {
    text(ctx, th, S.noModels, 20, 30, { colour: th.muted });
    return;
  }
  const headerH = th.fontSize + 14;
  const rowH = (h - headerH) / models.length;
  // Widths follow the label size too (large type), and the queues give way first on a narrow canvas.
  const f = th.fontSize;
  const batcherW = Math.max(13 * f, w * 0.17);
  const instW = Math.max(11 * f, w * 0.18);
  const inst = Math.min(w - instW - Math.max(60, w * 0.1), Math.max(w * 0.67, w * 0.44 + batcherW + 50));
  const batcher = inst - 50 - batcherW;
  const X: Columns = { arrive: 22, qStart: 74, qEnd: Math.max(120, batcher - 36), batcher, batcherW, inst, instW, out: w - 6 };
  const heads: [string, number, CanvasTextAlign][] = [
    [S.arrivals, 4, 'left'], [S.queues, (X.qStart + X.qEnd) / 2, 'center'], [S.batcher, X.batcher + X.batcherW / 2, 'center'],
    [S.instances, X.inst + X.instW / 2, 'center'], [S.responses, w - 4, 'right'],
  ];
  // a view of ensembles only has no queues, batcher or instances of its own: its steps fill the middle
  if (models.every((m) => pipelineOf(m.config))) heads.splice(1, 3, [S.pipeline.title, (X.qStart + X.inst + X.instW) / 2, 'center']);
  const headSize = textPx(th, -1);
  ctx.font = `700 ${headSize}px ${th.font}`;
  const headItems = heads.map(([label, x, align]) => ({ label: label.toUpperCase(), x, align, w: ctx.measureText(label.toUpperCase()).width }));
  const headLeft = spreadHeaders(headItems, w - 4);
  headItems.forEach((hd, i) => text(ctx, th, hd.label, headLeft[i], 6, { base: 'top', weight: 700, colour: th.muted, size: headSize }));

  // One pass over in-flight requests, grouped by model and phase (Map order = arrival order).
  const byModel = new Map<string, Groups>();
  for (const m of models) byModel.set(m.key, { queued: new Map(), batched: new Map(), running: new Map() });
  for (const r of live.requests.values()) {
    const g = byModel.get(r.modelKey);
    if (!g) continue;
    if (r.phase === 'queued') push(g.queued, r.priority, r);
    else if (r.phase === 'batched') push(g.batched, r.batchId ?? '', r);
    else push(g.running, r.instance ?? '', r);
  }

  models.forEach((m, idx) => {
    const rowTop = headerH + idx * rowH;
    if (models.length > 1) {
      ctx.strokeStyle = th.grid;
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(0, rowTop + 0.5);
      ctx.lineTo(w, rowTop + 0.5);
      ctx.stroke();
    }
    const top = rowTop + (models.length > 1 ? th.fontSize + 10 : 4);
    const bottom = rowTop + rowH - 8;
    const c: RowCtx = { ctx, th, live, m, g: byModel.get(m.key)!, X, top, bottom, mid: (top + bottom) / 2, now, anim, colourOf: colourFn(m, colourBy), dots: new DotBatch() };
    if (models.length > 1) text(ctx, th, m.name, 4, rowTop + 6, { base: 'top', weight: 700, colour: th.fg });
    drawRow(c);
    c.dots.flush(ctx);
  });
}

function push<K>(map: Map<K, RequestLive[]>, key: K, r: RequestLive): void {
  const list = map.get(key);
  if (list) list.push(r);
  else map.set(key, [r]);
}

function drawRow(c: RowCtx): void {
  const { ctx, th, m, g, X, now, anim } = c;
  const pipeline = pipelineOf(m.config);
  if (pipeline) {
    // an ensemble has no queue or instance of its own: its steps, then its answers
    drawPipelineRow(c, pipeline);
    drawOutcomes(c, new Map(), c.bottom - 56);
    return;
  }
  // Arrival point: a ring that pulses when something arrived in the last moment.
  let lastArrival = 0;
  for (const list of g.queued.values()) for (const r of list) if (r.tQueued > lastArrival) lastArrival = r.tQueued;
  const pulse = Math.max(0, 1 - (now - lastArrival) / (anim * 2));
  dot(ctx, X.arrive, c.mid, th.muted, 7 + 3 * pulse, 0.25 + 0.5 * pulse);
  dot(ctx, X.arrive, c.mid, th.muted, 5);
  const rate = c.live.latestAggregate(m.key)?.requests_per_s;
  if (rate !== undefined) text(ctx, th, `${formatRate(rate)}/s`, 2, c.mid + 20, { colour: th.muted, size: textPx(th, -1), maxW: X.qStart - 6 }); // left-aligned: centred on the arrival dot it left the canvas

  const levels = [...new Set([...m.queued.keys(), ...g.queued.keys(), 1])].sort((a, b) => a - b).slice(0, 5);
  const laneArea = Math.min(c.bottom - c.top - 90, levels.length * 150);
  const laneH = laneArea / levels.length;
  const lanesTop = c.mid - laneArea / 2 - 20;
  const pending: RequestLive[] = [];
  levels.forEach((level, k) => {
    const y0 = lanesTop + k * laneH + 3;
    const lh = laneH - 6;
    const list = g.queued.get(level) ?? [];
    pending.push(...list);
    drawLane(c, level, list, y0, lh);
  });
  // The queue head feeds the batcher: draw the hand-off arrow, then the batcher itself.
  arrow(ctx, withAlpha(th.muted, 0.6), X.qEnd + 4, c.mid - 20, X.batcher - 4, c.mid - 20);
  const box = drawBatcher(c, pending);
  const chips = drawWaitingBatches(c, box);
  arrow(ctx, withAlpha(th.muted, 0.6), box.x + box.w + 4, c.mid - 20, X.inst - 4, c.mid - 20);
  const cards = drawInstances(c, (batchId) => (batchId && chips.get(batchId)) || { x: box.x + box.w, y: box.y + box.h / 2 });
  drawOutcomes(c, cards, lanesTop + laneArea);
}

function drawLane(c: RowCtx, level: number, list: RequestLive[], y0: number, lh: number): void {
  const { ctx, th, X, now, anim } = c;
  const pc = priorityColour(level);
  // Outline only: a translucent fill over this much area cost frames in software-rendered browsers.
  roundRect(ctx, X.qStart, y0, X.qEnd - X.qStart, lh, 6);
  ctx.strokeStyle = withAlpha(pc, 0.5);
  ctx.lineWidth = 1;
  ctx.stroke();
  text(ctx, th, `P${level}`, X.qStart - 8, y0 + lh / 2 - 7, { align: 'right', weight: 700, colour: pc });
  text(ctx, th, String(list.length), X.qStart - 8, y0 + lh / 2 + 8, { align: 'right', colour: th.muted, size: textPx(th, -1) });
  const rows = Math.max(1, Math.floor((lh - 6) / DOT_STEP));
  const cols = Math.max(1, Math.floor((X.qEnd - X.qStart - 34) / DOT_STEP));
  const fit = rows * cols;
  const gridTop = y0 + (lh - rows * DOT_STEP) / 2 + DOT_STEP / 2;
  // Oldest first in the list: it sits nearest the batcher on the right, newer ones pile up to the left.
  const shown = Math.min(list.length, fit);
  for (let i = 0; i < shown; i++) {
    const r = list[i];
    const tx = X.qEnd - 10 - Math.floor(i / rows) * DOT_STEP;
    const ty = gridTop + (i % rows) * DOT_STEP;
    // Entering is quick (40% of a move): under load a request often waits less than a full move.
    const k = ease((now - r.tQueued) / (anim * 0.4));
    c.dots.add(c.colourOf(r), lerp(X.arrive, tx, k), lerp(c.mid, ty, k), r.delayed ? 3 : 4, 1, r.protocol === 'grpc');
  }
  if (list.length > fit) text(ctx, th, `+${list.length - fit}`, X.qStart + 6, y0 + lh / 2, { weight: 700, size: textPx(th, -1) });
  if (list.length === 0) text(ctx, th, S.flow.emptyQueue, (X.qStart + X.qEnd) / 2, y0 + lh / 2, { align: 'center', colour: withAlpha(th.muted, 0.7), size: textPx(th, -1) });
}

/** Responses fly right from their instance and fade; rejections drop out under the queues in red. */
function drawOutcomes(c: RowCtx, cards: Map<string, { x: number; y: number; w: number; h: number }>, lanesBottom: number): void {
  const { ctx, th, live, m, X, now, anim } = c;
  let lastReject: RequestLive | undefined;
  let rejects = 0;
  const holdUs = anim * 15;
  // Under load hundreds of answers are in the air; a sample of them reads the same and draws faster.
  let flying = 0;
  let hits = 0;
  // the cache's lane: above the queues, from the arrival point straight out (a hit skips everything between)
  const doorY = c.top + th.fontSize + 4;
  for (let i = live.finished.length - 1, seen = 0; i >= 0 && seen < 600; i--, seen++) {
    const r = live.finished.at(i)!;
    if (r.modelKey !== m.key) continue;
    const age = now - (r.tDone ?? now);
    if (age > holdUs) break;
    if (r.cached) {
      hits++;
      if (age > anim * 3 || flying++ >= 240) continue;
      const k = age / (anim * 3);
      c.dots.add(c.colourOf(r), lerp(X.arrive, X.out - 6, k), doorY, 3.5, 1 - k * k, r.protocol === 'grpc');
    } else if (r.phase === 'rejected') {
      lastReject ??= r;
      rejects++;
      if (age > anim * 8) continue;
      const k = Math.min(1, age / (anim * 8));
      const x = X.qStart + 14 + (hash(r.id) % Math.max(1, X.qEnd - X.qStart - 28));
      const y = lanesBottom + 8 + k * 26;
      ctx.strokeStyle = withAlpha(th.danger, 1 - k * 0.8);
      ctx.lineWidth = 2.5;
      ctx.beginPath();
      ctx.moveTo(x - 4, y - 4); ctx.lineTo(x + 4, y + 4); ctx.moveTo(x + 4, y - 4); ctx.lineTo(x - 4, y + 4);
      ctx.stroke();
    } else if (age <= anim * 3 && flying++ < 240) {
      const card = cards.get(r.instance ?? '');
      const sx = card ? card.x + card.w : X.inst + X.instW;
      const sy = card ? card.y + card.h / 2 : c.mid;
      // Constant speed and a steady fade read as "leaving"; an eased move would pile dots at the edge.
      const k = age / (anim * 3);
      const spread = (hash(r.id) % 121) - 60;
      const failed = r.ok === false;
      c.dots.add(failed ? th.danger : c.colourOf(r), lerp(sx + 4, X.out - 6, k), lerp(sy, c.mid + spread, k), failed ? 4 : 3.5, failed ? 1 - k * 0.5 : 1 - k * k, r.protocol === 'grpc');
    }
  }
  if (hits > 0) {
    ctx.strokeStyle = withAlpha(th.ok, 0.5);
    ctx.lineWidth = 1;
    ctx.setLineDash([2, 4]);
    ctx.beginPath();
    ctx.moveTo(X.arrive, c.mid);
    ctx.lineTo(X.arrive + 10, doorY);
    ctx.lineTo(X.out - 6, doorY);
    ctx.stroke();
    ctx.setLineDash([]);
    text(ctx, th, S.cacheLimiter.hitLane(hits), X.qStart, doorY - th.fontSize / 2 - 3, { colour: th.ok, size: textPx(th, -1) });
  }
  if (lastReject) {
    const y = Math.min(c.bottom - 8, lanesBottom + 48);
    text(ctx, th, `✕ ${S.flow.rejectedCount(rejects)}`, X.qStart, y - th.fontSize - 4, { weight: 700, colour: th.danger });
    text(ctx, th, `${lastReject.reason ?? ''}: ${lastReject.message ?? ''}`, X.qStart, y, { colour: th.danger, maxW: X.qEnd - X.qStart });
  }
}

function arrow(ctx: CanvasRenderingContext2D, colour: string, x0: number, y0: number, x1: number, y1: number): void {
  if (x1 - x0 < 10) return;
  ctx.strokeStyle = colour;
  ctx.fillStyle = colour;
  ctx.lineWidth = 1.5;
  ctx.setLineDash([4, 4]);
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1 - 6, y1);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.beginPath();
  ctx.moveTo(x1, y1);
  ctx.lineTo(x1 - 7, y1 - 4);
  ctx.lineTo(x1 - 7, y1 + 4);
  ctx.fill();
}
