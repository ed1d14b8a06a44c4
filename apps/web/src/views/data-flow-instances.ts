/**
 * The instances column of the Data view: one card per model instance. A busy card lights up in the
 * model's colour, says the size of the batch it runs, shows that batch's requests and a progress hint:
 * time elapsed against the instance's typical compute time over its recent batches (a hint, since the
 * server cannot know in advance how long a run takes).
 */
import { withAlpha } from '../charts/draw';
import { modelColour, textPx } from '../charts/theme';
import { formatUs } from '../charts/format';
import { S } from '../i18n/strings';
import { ease, gauge, lerp, roundRect, text, type RowCtx } from './data-flow-shared';

export interface CardAt {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Mean compute time of an instance's recent batches (µs), from the completed-batch timeline. */
function typicalComputeUs(c: RowCtx, instance: string): number {
  let sum = 0;
  let n = 0;
  for (let i = c.live.timeline.length - 1, k = 0; i >= 0 && k < 300 && n < 20; i--, k++) {
    const b = c.live.timeline.at(i)!;
    if (b.modelKey === c.m.key && b.instance === instance && b.computeUs !== undefined) {
      sum += b.computeUs;
      n++;
    }
  }
  return n > 0 ? sum / n : 0;
}

export function drawInstances(c: RowCtx, from: (batchId: string | undefined) => { x: number; y: number }): Map<string, CardAt> {
  const { ctx, th, m, X, now, anim } = c;
  const cards = new Map<string, CardAt>();
  const insts = [...m.instances.values()];
  if (insts.length === 0) {
    text(ctx, th, S.flow.noInstances, X.inst + X.instW / 2, c.mid, { align: 'center', colour: th.muted });
    return cards;
  }
  const gap = 8;
  const cardH = Math.max(26, Math.min(84, (c.bottom - c.top - 10) / insts.length - gap));
  const total = insts.length * (cardH + gap) - gap;
  const top = Math.max(c.top, c.mid - total / 2);
  const mc = modelColour(m.colour);
  insts.forEach((inst, k) => {
    const y = top + k * (cardH + gap);
    if (y + cardH > c.bottom + 4) return;
    const card = { x: X.inst, y, w: X.instW, h: cardH };
    cards.set(inst.name, card);
    const busy = inst.state === 'busy';
    const bad = inst.state === 'failed';
    roundRect(ctx, card.x, card.y, card.w, card.h, 8);
    ctx.fillStyle = busy ? withAlpha(mc, 0.2) : bad ? withAlpha(th.danger, 0.12) : th.panel;
    ctx.fill();
    ctx.strokeStyle = bad ? th.danger : busy ? mc : withAlpha(th.muted, 0.45);
    ctx.lineWidth = busy ? 2.5 : 1;
    ctx.stroke();
    const small = cardH < 52;
    const state = S.instanceStates[inst.state] ?? inst.state;
    const status = busy ? S.busyWith(inst.batchSize ?? 0, inst.nextSize) : inst.reason && inst.state !== 'idle' ? `${state}: ${inst.reason}` : state;
    const statusStyle = { weight: busy ? 700 : 400, colour: busy ? mc : bad ? th.danger : th.muted };
    if (small) {
      // One line: the name on the left, the state on the right, each given its share of the width.
      text(ctx, th, inst.name, card.x + 8, card.y + cardH / 2, { weight: 600, size: textPx(th, -1), maxW: card.w * 0.55 - 8 });
      text(ctx, th, status, card.x + card.w - 8, card.y + cardH / 2, { ...statusStyle, align: 'right', size: textPx(th, -1), maxW: card.w * 0.42 - 8 });
      return;
    }
    text(ctx, th, inst.name, card.x + 10, card.y + 13, { weight: 600, maxW: card.w - 20 });
    const line2 = card.y + 16 + th.fontSize;
    text(ctx, th, status, card.x + 10, line2, { ...statusStyle, maxW: card.w - 20 });
    if (busy && inst.batchStart !== undefined) {
      const typical = typicalComputeUs(c, inst.name);
      const elapsed = Math.max(0, now - inst.batchStart);
      // Never show "done" before the completion arrives: the hint stops short of full.
      const frac = typical > 0 ? Math.min(0.95, elapsed / typical) : 0.5;
      gauge(ctx, th, card.x + 10, card.y + card.h - 13, card.w - 20, 5, frac, mc);
      if (typical > 0) {
        // Beside the status when both fit, else on a line of its own, else left out (never squeezed).
        const hint = S.flow.running(formatUs(elapsed), formatUs(typical));
        ctx.font = `${statusStyle.weight} ${th.fontSize}px ${th.font}`;
        const statusW = ctx.measureText(status).width;
        ctx.font = `400 ${textPx(th, -2)}px ${th.font}`;
        const hintW = ctx.measureText(hint).width;
        const hintStyle = { colour: th.muted, size: textPx(th, -2) };
        if (statusW + hintW + 12 <= card.w - 20) text(ctx, th, hint, card.x + card.w - 10, line2, { ...hintStyle, align: 'right' });
        else if (hintW <= card.w - 20 && line2 + th.fontSize + 4 < card.y + card.h - 16) text(ctx, th, hint, card.x + 10, line2 + th.fontSize + 2, hintStyle);
      }
    }
    // The batch's requests, flying in from where the batch was formed.
    const running = c.g.running.get(inst.name) ?? [];
    const src = from(inst.batchId);
    const cols = Math.max(4, Math.floor((card.w - 20) / 8));
    const dotsTop = card.y + 2 * th.fontSize + 22;
    const rowsFit = Math.max(1, Math.floor((card.y + card.h - 30 - dotsTop) / 8) + 1);
    running.slice(0, cols * rowsFit).forEach((r, i) => {
      const k2 = ease((now - (r.tStarted ?? now)) / anim);
      const tx = card.x + 12 + (i % cols) * 8;
      const ty = dotsTop + Math.floor(i / cols) * 8;
      c.dots.add(c.colourOf(r), lerp(src.x, tx, k2), lerp(src.y, ty, k2), 3, 1, r.protocol === 'grpc');
    });
  });
  const shown = cards.size;
  if (shown < insts.length) text(ctx, th, S.flow.moreInstances(insts.length - shown), X.inst + X.instW / 2, c.bottom + 6, { align: 'center', colour: th.muted, size: textPx(th, -1) });
  return cards;
}
