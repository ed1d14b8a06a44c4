/**
 * A generative workload on the virtual clock, through the continuous planner or the request-level
 * baseline, with the same step executor and cost: the simulator's and the lessons' way to compare the
 * two on identical arrivals. Deterministic; never sleeps.
 */
import { VirtualClock } from '../clock/virtual-clock';
import { ContinuousPlanner } from './continuous';
import { GenFigures, type GenSummary } from './figures';
import type { PlannerBase } from './planner';
import { SimStepExecutor, type StepCost } from './sim-step';
import { StepLoop } from './step-loop';
import type { GenBatching, GenOutcome, GenRequest, IterEvent, IterativeKnobs } from './types';
import { StaticBatchPlanner } from './static-batch';

export type { GenBatching };


export interface GenArrival {
  atUs: number;
  request: GenRequest;
  /** cancel it (the client goes away) at this time, if it is still being generated */
  cancelAtUs?: number;
}

/**
 * A closed loop (genai-perf's --concurrency): `concurrency` clients, each submitting the next of
 * `requests` `gapUs` after its previous one ended (the client's turnaround), until none is left.
 */
export interface GenClosedLoop {
  concurrency: number;
  requests: readonly GenRequest[];
  gapUs?: number;
}

export interface GenSimulation {
  knobs: IterativeKnobs;
  cost: StepCost;
  arrivals: readonly GenArrival[];
  closedLoop?: GenClosedLoop;
  batching: GenBatching;
  vocab?: number;
  /** the step_finished and idle events carry the block map (StepLoopOptions.blockMaps): the lessons draw it per step */
  blockMaps?: boolean;
}

export interface GenSimResult {
  summary: GenSummary;
  outcomes: Map<string, GenOutcome & { endedAt: number }>;
  events: IterEvent[];
}

export function newPlanner(batching: GenBatching, knobs: IterativeKnobs): PlannerBase {
  return batching === 'continuous' ? new ContinuousPlanner(knobs) : new StaticBatchPlanner(knobs);
}

export function simulateGeneration(sim: GenSimulation): GenSimResult {
  const clock = new VirtualClock(0);
  const figures = new GenFigures();
  const events: IterEvent[] = [];
  const executor = new SimStepExecutor(clock, sim.cost, sim.knobs, sim.vocab);
  const loop = new StepLoop({
    clock,
    executor,
    planner: newPlanner(sim.batching, sim.knobs),
    blockMaps: sim.blockMaps,
    listener: (e) => {
      events.push(e);
      figures.on(e);
    },
  });
  const outcomes: GenSimResult['outcomes'] = new Map();
  for (const a of sim.arrivals) {
    clock.setTimer(a.atUs, () => loop.submit(a.request, { onEnd: (o) => outcomes.set(a.request.id, { ...o, endedAt: clock.now() }) }));
    if (a.cancelAtUs !== undefined) clock.setTimer(a.cancelAtUs, () => loop.cancel(a.request.id));
  }
  const closed = sim.closedLoop;
  if (closed) {
    let next = 0;
    const client = () => {
      const request = closed.requests[next++];
      if (!request) return;
      loop.submit(request, {
        onEnd: (o) => {
          outcomes.set(request.id, { ...o, endedAt: clock.now() });
          clock.setTimer(clock.now() + (closed.gapUs ?? 0), client);
        },
      });
    };
    for (let c = 0; c < Math.min(closed.concurrency, closed.requests.length); c++) clock.setTimer(0, client);
  }
  clock.runUntilIdle();
  if (!loop.idle) throw new Error('generation simulation stopped with work left');
  return { summary: figures.summary(), outcomes, events };
}
