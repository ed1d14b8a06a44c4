/**
 * An ensemble's pipeline as the dashboard draws it, from its config alone: each step with the column it
 * sits in (0 = reads only ensemble inputs, else one right of the latest step it reads from) and the steps
 * it reads from (the arrows); and the live facts both views show about it. Shared by the Architecture and
 * Data views.
 */
import type { LiveModel } from './live-model';
import type { ModelLive } from './live-types';
export interface PipelineStep {
  index: number;
  model: string;
  column: number;
  /** steps whose outputs this step reads */
  from: number[];
  /** writes an ensemble output */
  output: boolean;
}

export interface Pipeline {
  steps: PipelineStep[];
  columns: number;
}

interface StepConfig {
  model_name?: string;
  input_map?: Record<string, string>;
  output_map?: Record<string, string>;
}

const cache = new WeakMap<object, Pipeline | null>();

/** The pipeline of an ensemble config; undefined for any other model. Cached per config object. */
export function pipelineOf(config: Record<string, unknown>): Pipeline | undefined {
  const hit = cache.get(config);
  if (hit !== undefined) return hit ?? undefined;
  const built = config.platform === 'ensemble' ? build(config) : undefined;
  cache.set(config, built ?? null);
  return built;
}

function build(config: Record<string, unknown>): Pipeline {
  const steps = ((config.ensemble_scheduling as { step?: StepConfig[] } | undefined)?.step ?? []);
  const outputs = new Set(((config.output as Array<{ name?: string }> | undefined) ?? []).map((o) => o.name));
  const producer = new Map<string, number>();
  steps.forEach((s, i) => { for (const t of Object.values(s.output_map ?? {})) producer.set(t, i); });
  const from = steps.map((s) => [...new Set(Object.values(s.input_map ?? {}).map((t) => producer.get(t)).filter((p): p is number => p !== undefined))]);
  const column: number[] = steps.map(() => -1);
  // Validation guarantees an acyclic graph; the guard keeps a bad config from looping here.
  const col = (i: number, depth = 0): number => {
    if (column[i]! >= 0 || depth > steps.length) return Math.max(0, column[i]!);
    column[i] = from[i]!.length === 0 ? 0 : 1 + Math.max(...from[i]!.map((p) => col(p, depth + 1)));
    return column[i]!;
  };
  const result = steps.map((s, i) => ({
    index: i,
    model: s.model_name ?? '',
    column: col(i),
    from: from[i]!,
    output: Object.values(s.output_map ?? {}).some((t) => outputs.has(t)),
  }));
  return { steps: result, columns: Math.max(0, ...result.map((s) => s.column)) + 1 };
}

/** The version of a composing model a step runs: the highest READY one, else the newest known. */
export function composingModel(live: LiveModel, name: string): ModelLive | undefined {
  const rank = (m: ModelLive) => (m.state === 'READY' ? 1e9 : 0) + (Number(m.version) || 0);
  let best: ModelLive | undefined;
  for (const m of live.models.values()) if (m.name === name && (!best || rank(m) > rank(best))) best = m;
  return best;
}

/** Step requests of ensemble `key` (`name:version`) in flight now, per step. */
export function stepsInFlight(live: LiveModel, key: string, steps: number): number[] {
  const counts = new Array<number>(steps).fill(0);
  const prefix = `${key}/`;
  for (const r of live.requests.values()) if (r.step !== undefined && r.parent?.startsWith(prefix)) counts[r.step] = (counts[r.step] ?? 0) + 1;
  return counts;
}
