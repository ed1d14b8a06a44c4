/**
 * The dynamic batcher column of the Data view. In Triton (and here) the pending batch is not a separate
 * container: it is the head of the queue, the requests the next batch would take. So the box mirrors the
 * oldest waiting requests (highest priority first) as filled slots out of max_batch_size, with the
 * preferred sizes as ticks and the oldest request's wait as a countdown against max_queue_delay. Below it
 * the reason the last batch was sent, held long enough to read, and the mix of reasons over the last
 * moment. Batches already formed but still waiting for a free instance sit as chips to its right.
 */
import type { BatchLive, RequestLive } from '../store/live-types';
import { TRIGGER_COLOUR, textPx } from '../charts/theme';
import { withAlpha } from '../charts/draw';
import { formatUs } from '../charts/format';
import { batchingOf } from '../store/config-paths';
import { S } from '../i18n/strings';
import { gauge, roundRect, text, type RowCtx } from './data-flow-shared';

/** What the trigger label shows and since when: a new reason replaces it only after it was readable. */
const heldTrigger = new Map<string, { trigger: string; size: number; since: number }>();

export interface BatcherBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

export function drawBatcher(c: RowCtx, pending: RequestLive[]): BatcherBox {
  const { ctx, th, m, X, now, anim } = c;
  const b = batchingOf(m.config, 0);
  const h = Math.min(230, c.bottom - c.top - 70);
  const box: BatcherBox = { x: X.batcher, y: c.mid - h / 2 - 20, w: X.batcherW, h };
  roundRect(ctx, box.x, box.y, box.w, box.h, 8);
  ctx.strokeStyle = th.accent;
  ctx.lineWidth = 1.5;
  ctx.stroke();
  const pad = 10;
  const innerW = box.w - 2 * pad;
  if (!b.dynamic || b.maxBatchSize <= 0) {
    text(ctx, th, b.maxBatchSize <= 0 ? S.flow.noBatchDim : S.flow.noDynamic, box.x + box.w / 2, box.y + box.h / 2, { align: 'center', colour: th.muted, maxW: innerW });
    drawTriggerLabel(c, box);
    return box;
  }
  const n = Math.min(pending.length, b.maxBatchSize);
  text(ctx, th, S.flow.nextBatch, box.x + pad, box.y + 14, { weight: 600, colour: th.muted, maxW: innerW * 0.55 });
  text(ctx, th, `${n} / ${b.maxBatchSize}`, box.x + box.w - pad, box.y + 14, { weight: 700, align: 'right', maxW: innerW * 0.4 });

  // Slot grid: one cell per request up to 64 cells; larger max sizes share a cell between requests.
  const cells = Math.min(64, b.maxBatchSize);
  const perCell = b.maxBatchSize / cells;
  const cols = cells <= 8 ? cells : 8;
  const rows = Math.ceil(cells / cols);
  const gridTop = box.y + 28;
  const gridH = box.h - 28 - 86;
  const cell = Math.max(4, Math.min(innerW / cols, gridH / rows));
  const gx = box.x + (box.w - cell * cols) / 2;
  const filled = Math.min(cells, Math.ceil(n / perCell));
  const r = Math.max(1.5, cell * 0.36);
  ctx.beginPath(); // every empty slot in one stroke
  for (let i = 0; i < cells; i++) {
    const cx = gx + (i % cols) * cell + cell / 2;
    const cy = gridTop + Math.floor(i / cols) * cell + cell / 2;
    if (i < filled) {
      const req = pending[Math.min(pending.length - 1, Math.floor(i * perCell))];
      // A request that just reached the head pops in instead of appearing at full size.
      const grow = Math.min(1, (now - req.tQueued) / (anim * 0.4));
      c.dots.add(c.colourOf(req), cx, cy, r * (0.4 + 0.6 * grow), 1, req.protocol === 'grpc');
    } else {
      ctx.moveTo(cx + r, cy);
      ctx.arc(cx, cy, r, 0, Math.PI * 2);
    }
  }
  ctx.strokeStyle = withAlpha(th.muted, 0.35);
  ctx.lineWidth = 1;
  ctx.stroke();

  // Fill vs max_batch_size with the preferred sizes as ticks; a reached preferred size turns green.
  let y = box.y + box.h - 74;
  text(ctx, th, S.flow.fill, box.x + pad, y, { colour: th.muted, size: textPx(th, -1), maxW: innerW });
  y += 9;
  const reachedPreferred = b.preferred.some((p) => n >= p);
  gauge(ctx, th, box.x + pad, y, innerW, 8, n / b.maxBatchSize, reachedPreferred ? TRIGGER_COLOUR.preferred : th.accent);
  let lastLabelRight = -Infinity;
  for (const p of [...b.preferred].sort((x, z) => x - z)) {
    if (p > b.maxBatchSize) continue;
    const tx = box.x + pad + (innerW * p) / b.maxBatchSize;
    ctx.strokeStyle = th.fg;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.moveTo(tx, y - 3);
    ctx.lineTo(tx, y + 11);
    ctx.stroke();
    // Close preferred sizes (8 and 16 of 64) would print on top of each other: skip a label that collides.
    const half = (String(p).length * th.fontSize) / 3;
    if (tx - half > lastLabelRight + 2) {
      text(ctx, th, String(p), tx, y + 19, { align: 'center', size: textPx(th, -2), colour: th.muted });
      lastLabelRight = tx + half;
    }
  }

  // Countdown: how long the oldest request has waited against max_queue_delay.
  y += 38;
  const oldest = pending[0];
  const waited = oldest ? Math.max(0, now - oldest.tQueued) : 0;
  const frac = b.maxQueueDelayUs > 0 ? waited / b.maxQueueDelayUs : oldest ? 1 : 0;
  text(ctx, th, b.maxQueueDelayUs > 0 ? S.flow.waited(formatUs(waited), formatUs(b.maxQueueDelayUs)) : S.flow.noDelay, box.x + pad, y, { colour: th.muted, size: textPx(th, -1), maxW: innerW });
  gauge(ctx, th, box.x + pad, y + 9, innerW, 6, frac, frac >= 1 ? TRIGGER_COLOUR.delay : withAlpha(TRIGGER_COLOUR.delay, 0.7));

  drawTriggerLabel(c, box);
  return box;
}

/** The last batch's trigger (held ~1 s of data time so it can be read) and the trigger mix of the last second. */
function drawTriggerLabel(c: RowCtx, box: BatcherBox): void {
  const { ctx, th, live, m, now, anim } = c;
  const holdUs = anim * 5;
  const recent: BatchLive[] = [];
  for (const b of live.batches.values()) if (b.modelKey === m.key) recent.push(b);
  for (let i = live.timeline.length - 1, k = 0; i >= 0 && k < 600; i--, k++) {
    const b = live.timeline.at(i)!;
    if (b.tFormed < now - holdUs) break;
    if (b.modelKey === m.key) recent.push(b);
  }
  let last: BatchLive | undefined;
  for (const b of recent) if (!last || b.tFormed > last.tFormed) last = b;
  // a label held from later than now belongs to a run the clock went back from (Restart, a seek back)
  if ((heldTrigger.get(m.key)?.since ?? -Infinity) > now) heldTrigger.delete(m.key);
  const held = heldTrigger.get(m.key);
  if (last && (!held || (last.trigger !== held.trigger && now - held.since > holdUs) || (last.trigger === held.trigger && now - held.since > holdUs / 2))) {
    heldTrigger.set(m.key, { trigger: last.trigger, size: last.size, since: now });
  }
  const show = heldTrigger.get(m.key);
  const y = box.y + box.h + 16;
  if (show && now - show.since < holdUs * 4) {
    const fade = Math.max(0.45, 1 - (now - show.since) / (holdUs * 4));
    const colour = withAlpha(TRIGGER_COLOUR[show.trigger] ?? th.accent, fade);
    text(ctx, th, S.flow.sent(show.size), box.x + box.w / 2, y, { align: 'center', colour: th.muted, size: textPx(th, -1) });
    text(ctx, th, S.triggers[show.trigger] ?? show.trigger, box.x + box.w / 2, y + th.fontSize + 4, { align: 'center', colour, weight: 700, size: textPx(th, 2), maxW: box.w + 40 });
  } else {
    text(ctx, th, S.flow.noBatchYet, box.x + box.w / 2, y, { align: 'center', colour: th.muted, size: textPx(th, -1) });
  }
  // Trigger mix of the batches formed within the hold window: a thin stacked bar.
  if (recent.length > 1) {
    const counts = new Map<string, number>();
    for (const b of recent) counts.set(b.trigger, (counts.get(b.trigger) ?? 0) + 1);
    let x = box.x;
    const by = y + 2 * th.fontSize + 8;
    for (const [t, k] of counts) {
      const w = (box.w * k) / recent.length;
      ctx.fillStyle = TRIGGER_COLOUR[t] ?? th.accent;
      ctx.fillRect(x, by, Math.max(1, w - 1), 5);
      x += w;
    }
    text(ctx, th, S.flow.mix(recent.length, formatUs(holdUs)), box.x + box.w / 2, by + 14, { align: 'center', colour: th.muted, size: textPx(th, -2) });
  }
}

/** Batches formed but not yet started (every instance busy): chips between the batcher and the instances. */
export function drawWaitingBatches(c: RowCtx, box: BatcherBox): Map<string, { x: number; y: number }> {
  const { ctx, th, live, m, X } = c;
  const at = new Map<string, { x: number; y: number }>();
  const waiting: BatchLive[] = [];
  for (const b of live.batches.values()) if (b.modelKey === m.key && b.tStarted === undefined) waiting.push(b);
  const cx = (box.x + box.w + X.inst) / 2;
  const chipW = Math.min(44, X.inst - box.x - box.w - 12);
  waiting.slice(0, 6).forEach((b, i) => {
    const y = box.y + 20 + i * 24;
    roundRect(ctx, cx - chipW / 2, y, chipW, 18, 5);
    ctx.fillStyle = withAlpha(TRIGGER_COLOUR[b.trigger] ?? th.accent, 0.85);
    ctx.fill();
    text(ctx, th, String(b.size), cx, y + 9, { align: 'center', colour: '#ffffff', weight: 700, size: textPx(th, -1) });
    at.set(b.id, { x: cx, y: y + 9 });
  });
  if (waiting.length > 0) {
    text(ctx, th, S.flow.waitingForInstance(waiting.length), cx, box.y + 8, { align: 'center', colour: th.muted, size: textPx(th, -2) });
  }
  return at;
}
