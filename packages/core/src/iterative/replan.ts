/**
 * New knobs for a generation loop that is serving, applied at its next step boundary without losing a
 * sequence: the server's live change and a simulation's both call it.
 *
 * - max_num_sequences, max_num_tokens and enable_chunked_context, on a continuous planner whose KV cache
 *   stays as it is: ContinuousPlanner.setKnobs (nothing is preempted);
 * - the policy or the KV budget (they size the block allocator), or any change of a request-level
 *   planner: a new planner takes over every sequence (PlannerBase.takeOver): the running ones are
 *   recomputed from their known text, as a preemption is, the waiting ones keep their order.
 *
 * Either is refused, changing nothing, when a sequence already accepted could never be served under the
 * new knobs. `executorFor` is called only once the change is accepted: it builds the executor over a KV
 * store of the new size (the server resizes its memory ledger entry there).
 */
import { ContinuousPlanner, type LiveKnobs } from './continuous';
import { newPlanner } from './simulate';
import type { StepLoop } from './step-loop';
import type { GenBatching, IterativeKnobs, StepExecutor } from './types';

export type Replan = 'live' | 'replanned';

/** Whether `next` can apply to `planner` in place (its block allocator unchanged). */
function appliesInPlace(planner: unknown, batching: GenBatching, next: IterativeKnobs): planner is ContinuousPlanner {
  if (batching !== 'continuous' || !(planner instanceof ContinuousPlanner)) return false;
  const k = planner.currentKnobs;
  return k.policy === next.policy && k.totalBlocks === next.totalBlocks && k.blockTokens === next.blockTokens;
}

export function replanAtBoundary(loop: StepLoop, batching: GenBatching, next: IterativeKnobs, executorFor: (knobs: IterativeKnobs) => StepExecutor): Promise<Replan> {
  return loop.atBoundary(() => {
    const current = loop.current;
    if (appliesInPlace(current, batching, next)) {
      const live: LiveKnobs = { maxNumSequences: next.maxNumSequences, maxNumTokens: next.maxNumTokens, enableChunkedContext: next.enableChunkedContext };
      current.setKnobs(live);
      return 'live';
    }
    const planner = newPlanner(batching, next);
    const problem = planner.takeOverProblem(current);
    if (problem) throw new RangeError(problem);
    loop.replacePlanner(planner, executorFor(next));
    return 'replanned';
  });
}
