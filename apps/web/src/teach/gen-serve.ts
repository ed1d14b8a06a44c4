/**
 * tiny_lm_generate in teaching mode's simulated server: core's StepLoop with the simulator's step executor
 * (SimStepExecutor, the lessons' calibrated step cost) on the simulation's clock, so the playback
 * (play / pause / step / seek) drives it as it drives the request-level models. Its traffic is the
 * generative lesson's own seeded workload (rebuild-run / kv-limit-run / chunk-run), one round after
 * another: round k is the lesson's arrivals drawn with seed + k, started when the round before would have
 * ended under the shipped knobs (the lesson's run alone), so changing a knob shows a queue grow or drain.
 *
 * A live change (setIterativeKnobs) is the server's: the load's rules read the new parameters
 * (gen-model.ts genSetupFor), core's replanAtBoundary applies them at the next step boundary (in place, or
 * a new planner over a new KV cache recomputing the running sequences), refused in the same words. The
 * ack comes at that boundary, as on the server: the clock is run up to the end of the step in flight.
 *
 * Every event is kept (the playback replays them into core's GenerationFeed, as the gateway folds the
 * server's), and the block map is kept every SNAPSHOT_US of simulated time (a server's feed reads the
 * planner's map at its own pace; a playback that seeks back needs the map as it was).
 */
import { errors, type EventBus } from '@inferscope/core';
import type { VirtualClock } from '@inferscope/core/clock';
import { ITERATIVE_REFUSALS, newPlanner, replanAtBoundary, simulateGeneration, SimStepExecutor, StepLoop, type GenArrival, type GenBatching, type IterativeChange, type IterativeKnobs, type IterEvent, type StepCost } from '@inferscope/core/iterative';
import { decodeBlockMap, encodeBlockMap, type WireBlockMap } from '@inferscope/core/live';
import type { KvBlockMap } from '@inferscope/core/kv-cache';
import type { ModelConfig } from '@inferscope/core/config';
import { GEN_MODEL, genSetupFor, loadedGenConfig } from './gen-model';
import { GEN_COST } from './gen-run';
import { SIM_VERSION, type GenTraffic } from './sim-types';


/** simulated µs between kept block maps (a tick of the feed reads the last one at or before its time) */
const SNAPSHOT_US = 2000;

export class TeachingGenerator {
  readonly model = GEN_MODEL;
  readonly events: IterEvent[] = [];
  /** the live config: the loaded one with the live changes applied */
  config: ModelConfig = loadedGenConfig();
  private readonly batching: GenBatching;
  private readonly loop: StepLoop;
  private readonly snapshots: { t: number; map: WireBlockMap }[] = [];
  /** the step in flight (0: none), and the last step that ended */
  private stepInFlight = 0;
  private lastFinished = 0;
  /** requests sent, and how many answers each got (every one must get exactly one) */
  readonly answers = new Map<string, number>();
  private sent = 0;
  readonly periodUs: number;

  constructor(private readonly clock: VirtualClock, private readonly bus: EventBus, traffic: GenTraffic, seed: number, private readonly cost: StepCost = GEN_COST) {
    const setup = genSetupFor(this.config);
    this.batching = setup.batching;
    this.loop = new StepLoop({ clock, planner: newPlanner(setup.batching, setup.knobs), executor: this.executorFor(setup.knobs), listener: (e) => this.on(e) });
    // a round every time the lesson's workload would have ended alone under the shipped knobs
    this.periodUs = Math.max(1, simulateGeneration({ knobs: setup.knobs, cost, arrivals: traffic.round(seed), batching: setup.batching }).summary.spanUs);
    const start = (k: number) => {
      for (const a of traffic.round(seed + k)) {
        const request = { ...a.request, id: `${k + 1}.${a.request.id}` };
        clock.setTimer(k * this.periodUs + a.atUs, () => this.submit(request));
      }
      const next = (k + 1) * this.periodUs;
      if (next < traffic.durationUs) clock.setTimer(next, () => start(k + 1));
    };
    clock.setTimer(0, () => start(0));
  }

  private executorFor(knobs: IterativeKnobs): SimStepExecutor {
    return new SimStepExecutor(this.clock, this.cost, knobs);
  }

  private submit(request: GenArrival['request']): void {
    this.sent++;
    this.answers.set(request.id, 0);
    this.loop.submit(request, { onEnd: () => this.answers.set(request.id, (this.answers.get(request.id) ?? 0) + 1) });
  }

  private on(e: IterEvent): void {
    this.events.push(e);
    if (e.type === 'step_started') this.stepInFlight = e.step;
    if (e.type !== 'step_finished' && e.type !== 'idle') return;
    if (e.type === 'step_finished') {
      this.stepInFlight = 0;
      this.lastFinished = e.step;
    }
    const last = this.snapshots.at(-1);
    if (!last || e.type === 'idle' || e.t - last.t >= SNAPSHOT_US) this.snapshots.push({ t: e.t, map: encodeBlockMap(this.loop.current.blockMap()) });
  }

  /** The block map as it was at `t` (the last kept at or before it). */
  blocksAt(t: number): KvBlockMap | undefined {
    let lo = 0;
    let hi = this.snapshots.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.snapshots[mid]!.t <= t) lo = mid + 1;
      else hi = mid;
    }
    const s = this.snapshots[lo - 1];
    return s && decodeBlockMap(s.map);
  }

  /** Requests sent so far, and those answered (each must be answered once, never twice). */
  get counts(): { sent: number; answered: number; twice: number } {
    let answered = 0;
    let twice = 0;
    for (const n of this.answers.values()) {
      if (n > 0) answered++;
      if (n > 1) twice++;
    }
    return { sent: this.sent, answered, twice };
  }

  get idle(): boolean {
    return this.loop.idle;
  }

  /** The iterative scheduler's refusal of an instance count (the server's words). */
  setInstanceCount(): never {
    throw new Error(ITERATIVE_REFUSALS.instanceCount(this.model));
  }

  /**
   * A live change planned by core's planIterativeChange (`next`), applied as the server's iterative
   * scheduler applies it: read by the load's rules, then at the next step boundary by replanAtBoundary;
   * refused (INVALID_ARG, nothing changed) in their words. Emits config.changed (the charts' markers).
   */
  async apply(next: IterativeChange, by: string): Promise<void> {
    if (next.changes.length === 0) return;
    let knobs: IterativeKnobs;
    try {
      knobs = genSetupFor(next.config).knobs;
    } catch (e) {
      throw errors.INVALID((e as Error).message);
    }
    const inFlight = this.stepInFlight;
    const applied = replanAtBoundary(this.loop, this.batching, knobs, (k) => this.executorFor(k));
    // the boundary: the end of the step in flight, on the simulation's clock (other timers before it fire
    // too); the change runs there, before the next step is formed
    while (inFlight > 0 && this.lastFinished < inFlight && this.clock.step()) {
      /* run to the boundary */
    }
    try {
      await applied;
    } catch (e) {
      throw errors.INVALID((e as Error).message);
    }
    this.config = next.config;
    this.bus.emit({ type: 'config.changed', t: this.clock.now(), model: GEN_MODEL, version: SIM_VERSION, changes: next.changes, by });
  }
}
