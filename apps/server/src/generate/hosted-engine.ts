/**
 * The main thread's side of a step loop that runs in the instance's worker thread (step-host.ts): the
 * iterative scheduler submits, cancels and replans through it as through a loop of its own, and it
 * replays what the loop told (events, tokens, ends) to the scheduler's listener and sinks in the order
 * the loop told them.
 *
 * What the scheduler reads at once is kept here from what the loop sends: KV use (every step's events
 * carry it), the block tables (sent after every step; the block map is derived from them when read),
 * whether it is idle.
 * A cancel is answered here at once, as a loop in this thread answers it: the loop hears of it by message,
 * and whatever it still tells of that sequence (a token of the step in flight, its end) is dropped.
 *
 * If the worker thread dies, every open sequence fails (its step cannot finish) and a new loop is hosted
 * on the instance's replacement with the current knobs; requests that come meanwhile wait for it, and
 * fail with the reason if it cannot start.
 */
import type { Clock, HostedProgram, InstanceInfo, ProgramLink } from '@inferscope/core/scheduler';
import { CANCELLED_BY_CLIENT, newPlanner, type GenOutcome, type GenRequest, type GenSink, type IterEvent, type IterativeKnobs } from '@inferscope/core/iterative';
import { blockMapOf, type KvBlockMap, type KvBlockTables, type KvUsage } from '@inferscope/core/kv-cache';
import type { EngineSetup, GenerationEngine } from './step-engine';
import { sharedNowUs, type FromLoop, type HostInit, type ToLoop } from './engine-wire';

/** hosts a program on an instance's thread (the backend executor's hostProgram) */
export type HostProgram = (instance: InstanceInfo, program: HostedProgram) => Promise<ProgramLink>;

const STEP_HOST = new URL('./step-host.ts', import.meta.url).href;

export class HostedEngine implements GenerationEngine {
  private readonly sinks = new Map<string, GenSink>();
  /** cancelled here; what the loop still tells of them is dropped until it tells their end */
  private readonly cancelled = new Set<string>();
  private readonly replans = new Map<number, { resolve(): void; reject(e: Error): void }>();
  private nextRef = 1;
  private link: ProgramLink | null = null;
  /** while a replacement loop starts: what to send it once it runs */
  private waiting: ToLoop[] | null = null;
  private usage: KvUsage;
  private tables: KvBlockTables;
  /** the block map of `tables`, derived when first read */
  private map: KvBlockMap | null = null;
  /** the loop's last word: it went idle (true) or started a step */
  private loopIdle = true;
  private closed = false;

  private constructor(
    private readonly host: HostProgram,
    private readonly instance: InstanceInfo,
    private setup: EngineSetup,
    private readonly clock: Clock,
    private readonly listener: (e: IterEvent) => void,
  ) {
    this.tables = newPlanner(setup.batching, setup.knobs).blockTables();
    this.usage = this.tables.usage;
  }

  /** A loop on `instance`'s thread, or the reason it cannot run there (the caller runs it here instead). */
  static async start(host: HostProgram, instance: InstanceInfo, setup: EngineSetup, clock: Clock, listener: (e: IterEvent) => void): Promise<HostedEngine> {
    const engine = new HostedEngine(host, instance, setup, clock, listener);
    engine.link = await engine.connect();
    return engine;
  }

  private connect(): Promise<ProgramLink> {
    const init: HostInit = { setup: this.setup, clockOffsetUs: this.clock.now() - sharedNowUs() };
    return this.host(this.instance, { module: STEP_HOST, init, message: (body) => this.told(body as FromLoop[]), ended: (error) => this.died(error) });
  }

  submit(request: GenRequest, sink: GenSink): void {
    this.sinks.set(request.id, sink);
    this.send({ op: 'submit', request });
  }

  cancel(id: string): boolean {
    const sink = this.sinks.get(id);
    if (!sink) return false;
    this.sinks.delete(id);
    this.cancelled.add(id);
    this.send({ op: 'cancel', id });
    this.listener({ type: 'seq_finished', t: this.clock.now(), id, outcome: 'cancelled', tokens: 0 });
    sink.onEnd({ ok: false, reason: 'cancelled', message: CANCELLED_BY_CLIENT, tokens: [] });
    return true;
  }

  replan(knobs: IterativeKnobs): Promise<void> {
    const ref = this.nextRef++;
    return new Promise<void>((resolve, reject) => {
      this.replans.set(ref, {
        resolve: () => {
          this.setup = { ...this.setup, knobs };
          resolve();
        },
        reject,
      });
      this.send({ op: 'replan', ref, knobs });
    });
  }

  kvUsage(): KvUsage {
    return this.usage;
  }

  blockMap(): KvBlockMap {
    return (this.map ??= blockMapOf(this.tables));
  }

  /** idle by the loop's word, and no request owed an answer (the last one's end follows the loop's idle) */
  get idle(): boolean {
    return this.loopIdle && this.sinks.size === 0;
  }

  close(): void {
    this.closed = true;
  }

  private send(body: ToLoop): void {
    if (this.waiting) this.waiting.push(body);
    else this.link?.post(body);
  }

  /** What the loop told, in its order. */
  private told(body: FromLoop[]): void {
    for (const m of body) {
      switch (m.k) {
        case 'event': {
          const e = m.e;
          if ('id' in e && this.cancelled.has(e.id)) {
            if (e.type === 'seq_finished') this.cancelled.delete(e.id);
            break;
          }
          if ('kv' in e) this.usage = e.kv;
          if (e.type === 'step_started') this.loopIdle = false;
          else if (e.type === 'idle') this.loopIdle = true;
          this.listener(e);
          break;
        }
        case 'token':
          this.sinks.get(m.id)?.onToken?.(m.token, m.index);
          break;
        case 'end': {
          const sink = this.sinks.get(m.id);
          this.sinks.delete(m.id);
          sink?.onEnd(m.outcome);
          break;
        }
        case 'map':
          this.tables = m.tables;
          this.map = null;
          break;
        case 'replanned': {
          const r = this.replans.get(m.ref);
          this.replans.delete(m.ref);
          if (m.error === null) r?.resolve();
          else r?.reject(new RangeError(m.error));
        }
      }
    }
  }

  /** The instance's thread died with the loop: its sequences fail, and a new loop starts on the replacement. */
  private died(error: Error): void {
    this.link = null;
    const message = `the generation loop stopped: ${error.message}`;
    const t = this.clock.now();
    for (const [id, sink] of [...this.sinks]) {
      this.sinks.delete(id);
      this.listener({ type: 'seq_finished', t, id, outcome: 'failed', tokens: 0 });
      sink.onEnd({ ok: false, reason: 'failed', message, tokens: [] } satisfies GenOutcome);
    }
    this.cancelled.clear();
    for (const r of this.replans.values()) r.reject(new Error(message));
    this.replans.clear();
    this.tables = newPlanner(this.setup.batching, this.setup.knobs).blockTables();
    this.map = null;
    this.usage = this.tables.usage;
    this.loopIdle = true;
    if (this.closed) return;
    this.waiting = [];
    this.connect().then(
      (link) => {
        this.link = link;
        const waiting = this.waiting ?? [];
        this.waiting = null;
        for (const body of waiting) link.post(body);
      },
      (e: unknown) => {
        // no loop to run them: what waited fails, and so does whatever comes later
        const reason = `${message}; it could not be started again: ${e instanceof Error ? e.message : String(e)}`;
        const waiting = this.waiting ?? [];
        this.waiting = null;
        this.link = { post: (body) => this.refuse(body as ToLoop, reason) };
        for (const body of waiting) this.refuse(body, reason);
      },
    );
  }

  private refuse(body: ToLoop, reason: string): void {
    if (body.op === 'replan') return void this.told([{ k: 'replanned', ref: body.ref, error: reason }]);
    if (body.op !== 'submit') return;
    const { id } = body.request;
    this.listener({ type: 'seq_rejected', t: this.clock.now(), id, message: reason });
    const sink = this.sinks.get(id);
    this.sinks.delete(id);
    sink?.onEnd({ ok: false, reason: 'failed', message: reason, tokens: [] });
  }
}
