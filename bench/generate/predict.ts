/**
 * The simulator's prediction of a bench run: the same requests (prompts, and the output lengths the
 * server produced, so an end token sampled early is not a difference) through core's simulateGeneration
 * with the served knobs and a fitted step cost, under the same closed loop (or the same arrival times),
 * folded into the client's records so the prediction is measured by the client's own definitions
 * (gen-figures.ts).
 */
import { simulateGeneration, type GenBatching, type GenRequest, type IterEvent, type IterativeKnobs, type StepCost } from '@inferscope/core/iterative';
import { genPerfFigures, type GenPerfFigures } from '../../apps/server/src/clients/generate/gen-figures';
import type { GenRecord } from '../../apps/server/src/clients/generate/gen-stream';
import type { GenLoadMode } from '../../apps/server/src/clients/generate/gen-load';

/** A request as the server ran it: its prompt bytes, its output length, when the client sent it (ms from the run's start). */
export interface ServedRequest {
  prompt: number[];
  outputTokens: number;
  sentMs: number;
}

/** One record per sequence, times in ms, from the loop's events. */
export function recordsOfEvents(events: readonly IterEvent[]): GenRecord[] {
  const byId = new Map<string, GenRecord>();
  for (const e of events) {
    if (e.type === 'seq_queued') byId.set(e.id, { sentMs: e.t / 1000, tokenMs: [], endMs: e.t / 1000, inputTokens: e.promptTokens });
    else if (e.type === 'token') byId.get(e.id)?.tokenMs.push(e.t / 1000);
    else if (e.type === 'seq_finished') {
      const r = byId.get(e.id);
      if (r) r.endMs = e.t / 1000;
    }
  }
  return [...byId.values()];
}

export function predict(served: readonly ServedRequest[], o: { knobs: IterativeKnobs; cost: StepCost; batching: GenBatching; mode: GenLoadMode; gapUs: number }): GenPerfFigures {
  const requests: GenRequest[] = served.map((s, i) => ({ id: `p${i}`, prompt: s.prompt, maxTokens: Math.max(1, s.outputTokens) }));
  const run = simulateGeneration({
    knobs: o.knobs,
    cost: o.cost,
    batching: o.batching,
    ...(o.mode.kind === 'concurrency'
      ? { arrivals: [], closedLoop: { concurrency: o.mode.concurrency, requests, gapUs: o.gapUs } }
      : { arrivals: requests.map((request, i) => ({ atUs: Math.round(served[i]!.sentMs * 1000), request })) }),
  });
  return genPerfFigures(recordsOfEvents(run.events));
}
