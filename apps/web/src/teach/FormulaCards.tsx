/**
 * Formula cards: each formula with the running simulation's numbers plugged in. The numbers come from the
 * window of the last aggregate the charts got (SimStats' WindowFigures), so a card and the chart beside it
 * describe the same requests: the throughput bound is built from the batches that ran in that window (it
 * cannot fall below the throughput measured there: instances cannot be busy more than the window), and
 * Little's law compares the window's time-averaged in-flight count with throughput × mean latency.
 */
import { useEffect, useState } from 'react';
import { live } from '../store/app-store';
import { formatBytes, formatRate, formatUs } from '../charts/format';
import { batchingOf, activeInstances } from '../store/config-paths';
import type { FormulaId } from './lessons';
import { playback } from './playback';
import { modelMemory } from './engine';
import { S } from '../i18n/strings';

interface Card { id: FormulaId; title: string; formula: string; live: string }

/** The largest batch each backend accepts in this lesson's world (a TensorRT plan: its profile's max). */
const BACKEND_LIMIT: Record<string, number> = { onnxruntime: Infinity, tensorrt: 64, pytorch: Infinity, python: Infinity };

function compute(id: FormulaId): Card {
  const c = S.cards;
  const models = [...live.models.values()];
  const withFigures = models.map((m) => ({ m, f: playback.windowFigures(m.key), a: live.latestAggregate(m.key) })).filter((x) => x.f && x.a && x.f.requests > 0);
  const card = (title: string, formula: string, text: string): Card => ({ id, title, formula, live: text || S.waitingForStats });
  switch (id) {
    case 'repoSize': {
      const total = models.reduce((n, m) => n + m.files.reduce((k, f) => k + f.bytes, 0), 0);
      return card(c.repoSize, c.repoSizeFormula, `${models.flatMap((m) => m.files.map((f) => formatBytes(f.bytes))).join(' + ')} = ${formatBytes(total)}`);
    }
    case 'maxBatchBound': {
      const parts = models.map((m) => {
        const mb = batchingOf(m.config, 0).maxBatchSize;
        const lim = BACKEND_LIMIT[m.backend] ?? Infinity;
        return `${m.name}: max_batch_size ${mb} ${mb <= lim ? '≤' : '>'} ${Number.isFinite(lim) ? lim : c.noLimit} (${m.backend})`;
      });
      return card(c.maxBatchBound, c.maxBatchBoundFormula, parts.join('; '));
    }
    case 'capacity': {
      const parts = withFigures.filter((x) => x.f!.busy_us > 0).map(({ m, f }) => {
        const inst = Math.max(1, activeInstances(m));
        const measured = (f!.samples / f!.window_us) * 1e6;
        const bound = (inst * f!.samples * 1e6) / f!.busy_us;
        const util = f!.busy_us / (inst * f!.window_us);
        return c.capacityLive(m.name, inst, String(f!.samples), formatUs(f!.busy_us), formatRate(bound), formatRate(measured), `${Math.round(util * 100)}%`);
      });
      return card(c.capacity, c.capacityFormula, parts.join('; '));
    }
    case 'speedup': {
      const per = withFigures.filter((x) => x.f!.samples > 0).map(({ m, f }) => ({ name: m.name, perSample: f!.busy_us / f!.samples }));
      if (per.length < 2) return card(c.speedup, c.speedupFormula, '');
      const [x, y] = per;
      return card(c.speedup, c.speedupFormula, `${x.name} ${formatUs(x.perSample)} / ${y.name} ${formatUs(y.perSample)} = ${(x.perSample / y.perSample).toFixed(1)}×`);
    }
    case 'memoryTotal': {
      const sim = playback.engine?.scenario.models ?? [];
      const parts = sim.map((sm) => {
        const lm = live.models.get(`${sm.name}:1`);
        const n = lm ? activeInstances(lm) : 0;
        const mb = Number(sm.config.max_batch_size ?? 1);
        return `${formatBytes(sm.memory.weights)} + ${n} × (${formatBytes(sm.memory.workspace)} + ${formatBytes(sm.memory.activationsPerItem)} × ${mb}) = ${formatBytes(modelMemory(sm, n))}`;
      });
      const dev = [...live.devices.values()][0];
      return card(c.memory, c.memoryFormula, `${parts.join(' + ') || '–'}${dev ? c.memoryOf(formatBytes(dev.used_bytes), dev.budget_bytes ? formatBytes(dev.budget_bytes) : c.noBudget) : ''}`);
    }
    case 'little': {
      const parts = withFigures.map(({ m, f }) => {
        const rate = (f!.requests / f!.window_us) * 1e6;
        const predicted = rate * (f!.mean_latency_us / 1e6);
        return c.littleLive(m.name, formatRate(rate), formatUs(f!.mean_latency_us), predicted.toFixed(2), f!.mean_in_flight.toFixed(2), formatUs(f!.window_us));
      });
      return card(c.little, c.littleFormula, parts.join('; '));
    }
  }
}

export function FormulaCards(props: { ids: FormulaId[] }) {
  const [cards, setCards] = useState<Card[]>([]);
  useEffect(() => {
    const tick = () => setCards(props.ids.map(compute));
    tick();
    const id = setInterval(tick, 500);
    return () => clearInterval(id);
  }, [props.ids.join()]);
  return (
    <div className="space-y-2" data-testid="formula-cards">
      <h3 className="text-xs uppercase tracking-wide text-muted">{S.formulas}</h3>
      {cards.map((c) => (
        <div key={c.id} className="border border-line rounded p-2" data-testid={`card-${c.id}`}>
          <div className="text-sm font-semibold">{c.title}</div>
          <div className="formula text-sm text-accent">{c.formula}</div>
          <div className="formula text-xs mt-1" data-testid={`card-${c.id}-live`}>{c.live}</div>
        </div>
      ))}
    </div>
  );
}
