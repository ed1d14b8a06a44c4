/** Formula cards: each formula with the numbers of the running simulation (or live server) plugged in. */
import { useEffect, useState } from 'react';
import { live } from '../store/app-store';
import { formatBytes, formatRate, formatUs } from '../charts/format';
import { batchingOf, activeInstances } from '../store/config-paths';
import type { FormulaId } from './lessons';
import { playback } from './playback';
import { modelMemory } from './engine';
import { S } from '../strings';

interface Card { title: string; formula: string; live: string }

/** The largest batch each backend accepts in this lesson's world (a TensorRT plan: its profile's max). */
const BACKEND_LIMIT: Record<string, number> = { onnxruntime: Infinity, tensorrt: 64, pytorch: Infinity, python: Infinity };

function compute(id: FormulaId): Card {
  const models = [...live.models.values()];
  const aggs = models.map((m) => ({ m, a: live.latestAggregate(m.key) }));
  switch (id) {
    case 'repoSize': {
      const total = models.reduce((n, m) => n + m.files.reduce((k, f) => k + f.bytes, 0), 0);
      return { title: 'Repository size', formula: 'size = Σ model files', live: `${models.flatMap((m) => m.files.map((f) => formatBytes(f.bytes))).join(' + ')} = ${formatBytes(total)}` };
    }
    case 'maxBatchBound': {
      const parts = models.map((m) => {
        const mb = batchingOf(m.config, 0).maxBatchSize;
        const lim = BACKEND_LIMIT[m.backend] ?? Infinity;
        return `${m.name}: max_batch_size ${mb} ${mb <= lim ? '≤' : '>'} ${Number.isFinite(lim) ? lim : 'no limit'} (${m.backend})`;
      });
      return { title: 'max_batch_size is bounded by the backend', formula: '1 ≤ max_batch_size ≤ backend limit', live: parts.join('; ') };
    }
    case 'batchThroughput': {
      const parts = aggs.filter((x) => x.a && x.a.requests_per_s > 0).map(({ m, a }) => {
        const wait = a!.queue_us_mean, compute = a!.compute_us_mean, b = a!.avg_batch_size;
        const pred = wait + compute > 0 ? (b / ((wait + compute) / 1e6)) * activeInstances(m) : 0;
        return `${m.name}: ${b.toFixed(1)} / (${formatUs(wait)} + ${formatUs(compute)}) × ${activeInstances(m)} inst = ${formatRate(pred)}/s max (measured ${formatRate(a!.throughput_per_s)}/s)`;
      });
      return { title: 'Throughput of batching', formula: 'throughput ≤ batch / (wait + compute) × instances', live: parts.join('; ') || S.waitingForStats };
    }
    case 'speedup': {
      const per = aggs.filter((x) => x.a && x.a.avg_batch_size > 0).map(({ m, a }) => ({ name: m.name, perSample: a!.compute_us_mean / a!.avg_batch_size }));
      if (per.length < 2) return { title: 'Speedup between backends', formula: 'speedup = time(A) / time(B)', live: S.waitingForStats };
      const [x, y] = per;
      return { title: 'Speedup between backends', formula: 'speedup = compute per sample (A) / compute per sample (B)', live: `${formatUs(x.perSample)} / ${formatUs(y.perSample)} = ${(x.perSample / y.perSample).toFixed(1)}×` };
    }
    case 'memoryTotal': {
      const sim = playback.engine?.scenario.models ?? [];
      const parts = sim.map((sm) => {
        const n = live.models.get(`${sm.name}:1`) ? activeInstances(live.models.get(`${sm.name}:1`)!) : 0;
        const mb = Number(sm.config.max_batch_size ?? 1);
        return `${formatBytes(sm.memory.weights)} + ${n} × (${formatBytes(sm.memory.workspace)} + ${formatBytes(sm.memory.activationsPerItem)} × ${mb}) = ${formatBytes(modelMemory(sm, n))}`;
      });
      const dev = [...live.devices.values()][0];
      return {
        title: 'Memory total', formula: 'total = Σ models (weights + instances × (workspace + activations × batch))',
        live: `${parts.join(' + ') || '–'}${dev ? ` → ${formatBytes(dev.used_bytes)} of ${dev.budget_bytes ? formatBytes(dev.budget_bytes) : 'no'} budget` : ''}`,
      };
    }
    case 'qps': {
      const parts = aggs.filter((x) => x.a && x.a.requests_per_s > 0).map(({ m, a }) => {
        const lat = a!.latency_us.mean / 1e6;
        return `${m.name}: ${a!.in_flight} in flight / ${formatUs(a!.latency_us.mean)} = ${formatRate(lat > 0 ? a!.in_flight / lat : 0)}/s (measured ${formatRate(a!.requests_per_s)}/s)`;
      });
      return { title: "QPS from Little's law", formula: 'QPS = concurrency / latency', live: parts.join('; ') || S.waitingForStats };
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
        <div key={c.title} className="border border-line rounded p-2">
          <div className="text-sm font-semibold">{c.title}</div>
          <div className="formula text-sm text-accent">{c.formula}</div>
          <div className="formula text-xs mt-1">{c.live}</div>
        </div>
      ))}
    </div>
  );
}
