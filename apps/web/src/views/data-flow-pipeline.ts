/**
 * The Data view's row for an ensemble: its pipeline instead of queues, batcher and instances (it has
 * none). Each step is a box naming its composing model (border by that model's state), placed in
 * data-flow columns with arrows from the arrivals through the steps to the responses. Every step request
 * of this ensemble now in flight (linked to its ensemble request by the ensemble.step event) is a dot in
 * its step's box: faint while it waits in the composing model's queue, solid while its batch runs.
 * Answers leave on the right like any model's.
 */
import { composingModel, type Pipeline } from '../store/pipeline';
import type { RequestLive } from '../store/live-types';
import { withAlpha } from '../charts/draw';
import { S } from '../i18n/strings';
import { dot, ease, lerp, roundRect, text, type RowCtx } from './data-flow-shared';

interface Box { x: number; y: number; w: number; h: number }

const DOT = 10;

export function drawPipelineRow(c: RowCtx, p: Pipeline): void {
  const { ctx, th, X, m, now, anim } = c;
  const f = th.fontSize;
  const left = X.qStart;
  const right = X.inst + X.instW;
  const colW = (right - left) / Math.max(1, p.columns);
  const boxW = Math.min(colW - 44, 16 * f);
  const boxes = new Map<number, Box>();
  for (let col = 0; col < p.columns; col++) {
    const steps = p.steps.filter((s) => s.column === col);
    const boxH = Math.min(9 * f, (c.bottom - c.top - 30) / steps.length - 12);
    const total = steps.length * (boxH + 12) - 12;
    steps.forEach((s, k) => boxes.set(s.index, { x: left + col * colW + (colW - boxW) / 2, y: c.mid - total / 2 + k * (boxH + 12), w: boxW, h: boxH }));
  }

  // arrows first, under the boxes: arrivals -> first steps, step -> step, output steps -> responses
  const linkColour = withAlpha(th.muted, 0.7);
  dot(ctx, X.arrive, c.mid, th.muted, 5);
  for (const s of p.steps) {
    const b = boxes.get(s.index)!;
    if (s.from.length === 0) link(ctx, linkColour, X.arrive + 8, c.mid, b.x - 3, b.y + b.h / 2);
    for (const from of s.from) {
      const a = boxes.get(from)!;
      link(ctx, linkColour, a.x + a.w + 3, a.y + a.h / 2, b.x - 3, b.y + b.h / 2);
    }
    // to the responses: dashed, bending late so it passes beside the later columns rather than into them
    if (s.output) link(ctx, linkColour, b.x + b.w + 3, b.y + b.h / 2, X.out - 40, c.mid, { dashed: true, bendAt: right + 8 });
  }

  // in-flight step requests of this ensemble, per step
  const prefix = `${m.key}/`;
  const perStep = new Map<number, RequestLive[]>();
  for (const r of c.live.requests.values()) {
    if (r.step === undefined || !r.parent?.startsWith(prefix)) continue;
    const list = perStep.get(r.step);
    if (list) list.push(r);
    else perStep.set(r.step, [r]);
  }

  for (const s of p.steps) {
    const b = boxes.get(s.index)!;
    const composing = composingModel(c.live, s.model);
    const border = composing?.state === 'READY' ? th.ok : composing ? th.danger : th.muted;
    roundRect(ctx, b.x, b.y, b.w, b.h, 8);
    ctx.fillStyle = th.panel;
    ctx.fill();
    ctx.strokeStyle = border;
    ctx.lineWidth = 2;
    ctx.stroke();
    text(ctx, th, `${s.index + 1}  ${s.model}`, b.x + 8, b.y + f * 0.9, { weight: 700, maxW: b.w - 16 });
    const list = perStep.get(s.index) ?? [];
    const waiting = list.filter((r) => r.phase === 'queued').length;
    text(ctx, th, S.pipeline.flow(waiting, list.length - waiting, m.stepsSent?.[s.index] ?? 0), b.x + 8, b.y + f * 2.2, { colour: th.muted, size: f - 1, maxW: b.w - 16 });
    const cols = Math.max(1, Math.floor((b.w - 16) / DOT));
    const rows = Math.max(1, Math.floor((b.h - f * 3) / DOT));
    const shown = Math.min(list.length, cols * rows);
    for (let i = 0; i < shown; i++) {
      const r = list[i]!;
      const tx = b.x + 12 + (i % cols) * DOT;
      const ty = b.y + f * 3.1 + Math.floor(i / cols) * DOT;
      const k = ease((now - r.tQueued) / (anim * 0.4));
      c.dots.add(c.colourOf(r), lerp(b.x - 14, tx, k), ty, 3.5, r.phase === 'queued' ? 0.45 : 1, r.protocol === 'grpc');
    }
    if (list.length > shown) text(ctx, th, `+${list.length - shown}`, b.x + b.w - 8, b.y + b.h - 8, { align: 'right', weight: 700, size: f - 1 });
  }
}

/** An arrow with its head along its last segment; `bendAt`: run level to that x first, then turn. */
function link(ctx: CanvasRenderingContext2D, colour: string, x0: number, y0: number, x1: number, y1: number,
  o: { dashed?: boolean; bendAt?: number } = {}): void {
  const bx = o.bendAt !== undefined && o.bendAt > x0 && o.bendAt < x1 ? o.bendAt : x0;
  const angle = Math.atan2(y1 - y0, x1 - bx);
  ctx.strokeStyle = colour;
  ctx.fillStyle = colour;
  ctx.lineWidth = 1.5;
  if (o.dashed) ctx.setLineDash([5, 4]);
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  if (bx > x0) ctx.lineTo(bx, y0);
  ctx.lineTo(x1 - 6 * Math.cos(angle), y1 - 6 * Math.sin(angle));
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.beginPath();
  ctx.moveTo(x1, y1);
  ctx.lineTo(x1 - 8 * Math.cos(angle - 0.45), y1 - 8 * Math.sin(angle - 0.45));
  ctx.lineTo(x1 - 8 * Math.cos(angle + 0.45), y1 - 8 * Math.sin(angle + 0.45));
  ctx.fill();
}
