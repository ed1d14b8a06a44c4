/**
 * Prometheus series of iterative (continuous-batching) models, folded from their `iterative` events, by
 * the TensorRT-LLM Triton backend's metric names and labels where it has them:
 *   nv_trt_llm_request_metrics{request_type="active"|"waiting"}  sequences in the last step, queued or preempted
 *   nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="used"|"free"|"max"|"tokens_per"}
 * and InferScope's own where it has none:
 *   inferscope_iterative_preemptions_total, inferscope_iterative_step_tokens (new tokens in the last step),
 *   inferscope_iterative_generated_tokens_total.
 * A model's series go when it unloads.
 */
import type { EventBus } from '@inferscope/core';
import type { IterEvent } from '@inferscope/core/iterative';
import type { KvUsage } from '@inferscope/core/kv-cache';
import type { MetricFamily, Sample } from './exposition';

interface Fold {
  labels: { model: string; version: string };
  kv?: KvUsage;
  active: number;
  waiting: Set<string>;
  preemptions: number;
  stepTokens: number;
  generated: number;
}

export class IterativeMetrics {
  private readonly models = new Map<string, Fold>();
  private readonly off: () => void;

  constructor(bus: EventBus) {
    this.off = bus.on((e) => {
      if (e.type === 'iterative') this.fold(this.of(e.model, e.version), e.event as IterEvent);
      else if (e.type === 'model.state' && (e.state === 'UNAVAILABLE' || e.state === 'LOADING')) this.models.delete(`${e.model}\0${e.version}`);
    });
  }

  close(): void {
    this.off();
  }

  private of(model: string, version: string): Fold {
    const key = `${model}\0${version}`;
    let f = this.models.get(key);
    if (!f) this.models.set(key, (f = { labels: { model, version }, active: 0, waiting: new Set(), preemptions: 0, stepTokens: 0, generated: 0 }));
    return f;
  }

  private fold(f: Fold, e: IterEvent): void {
    switch (e.type) {
      case 'seq_queued':
        f.waiting.add(e.id);
        break;
      case 'step_started':
        for (const id of e.joined) f.waiting.delete(id);
        f.active = e.rows.length;
        f.stepTokens = e.tokens;
        f.kv = e.kv;
        break;
      case 'seq_preempted':
        f.preemptions++;
        f.waiting.add(e.id);
        break;
      case 'token':
        f.generated++;
        break;
      case 'seq_finished':
        f.waiting.delete(e.id);
        break;
      case 'step_finished':
        f.kv = e.kv;
        break;
      case 'idle':
        f.kv = e.kv;
        f.active = 0;
        f.stepTokens = 0;
        break;
      default:
        break;
    }
  }

  families(): MetricFamily[] {
    const folds = [...this.models.values()];
    const per = (pick: (f: Fold) => number, extra: Record<string, string> = {}): Sample[] => folds.map((f) => ({ labels: { ...f.labels, ...extra }, value: pick(f) }));
    const kv = (pick: (u: KvUsage) => number) => (f: Fold) => (f.kv ? pick(f.kv) : 0);
    return [
      {
        name: 'nv_trt_llm_request_metrics',
        help: 'Sequences of an iterative model: active (in the last step), waiting (queued or preempted)',
        type: 'gauge',
        samples: [...per((f) => f.active, { request_type: 'active' }), ...per((f) => f.waiting.size, { request_type: 'waiting' })],
      },
      {
        name: 'nv_trt_llm_kv_cache_block_metrics',
        help: "An iterative model's paged KV cache: blocks used, free and in all",
        type: 'gauge',
        samples: [
          ...per(kv((u) => u.usedBlocks), { kv_cache_block_type: 'used' }),
          ...per(kv((u) => u.freeBlocks), { kv_cache_block_type: 'free' }),
          ...per(kv((u) => u.totalBlocks), { kv_cache_block_type: 'max' }),
        ],
      },
      { name: 'inferscope_iterative_preemptions_total', help: 'Sequences preempted (KV cache dropped, recomputed later) under max_utilization', type: 'counter', samples: per((f) => f.preemptions) },
      { name: 'inferscope_iterative_step_tokens', help: 'New tokens (prefill + decode) in the last step', type: 'gauge', samples: per((f) => f.stepTokens) },
      { name: 'inferscope_iterative_generated_tokens_total', help: 'Tokens generated', type: 'counter', samples: per((f) => f.generated) },
    ];
  }
}
