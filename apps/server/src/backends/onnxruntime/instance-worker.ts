/**
 * The main-thread side of one instance's worker thread: starts it, creates its session, sends it batches
 * and matches the answers, and notices when it dies. A worker that crashes or exits fails the batches it
 * was running with an error; the owner (OrtExecutor) then starts a fresh one for the next batch.
 */
import { Worker } from 'node:worker_threads';
import type { ComputePhases } from '@inferscope/core';
import type { HostedProgram } from '@inferscope/core/scheduler';
import { NotStartedError, failOwed } from '../owed-batches';

/**
 * The test harness's switch (scripts/run-tests.mjs sets it for every test file; test/support/test-hooks.ts
 * for a file run on its own): only then does a worker obey the crash hook. Never set in production.
 */
export const TEST_HOOKS_ENV = 'INFERSCOPE_TEST_HOOKS';
const testHooksOn = (): boolean => process.env[TEST_HOOKS_ENV] === '1';

export interface WorkerFeed {
  name: string;
  /** onnxruntime tensor type: 'float32', 'int64', ..., 'string' */
  type: string;
  dims: number[];
  /** string tensors (TYPE_STRING / BYTES) travel as string[] (structured clone, not transferred) */
  data: ArrayBufferView | string[];
}

export interface WorkerOutput {
  name: string;
  type: string;
  dims: number[];
  data: ArrayBufferView | string[];
}

export interface WorkerRunResult {
  outputs: WorkerOutput[];
  computeUs: number;
  /** the worker's side of compute_input / compute_output: making onnxruntime tensors, copying outputs out */
  phases?: ComputePhases;
}

export interface SessionSetup {
  modelFile: string;
  options: Record<string, unknown>;
  executionProviders: (string | { name: string; deviceId?: number })[];
  /** a tiny ONNX model created (and dropped) first, so ORT's one-off runtime set-up is not measured */
  primer?: Uint8Array;
}

export interface WorkerReady {
  /** resident-memory growth of the process while the session was created */
  rssGrowth: number;
  provider: string;
  note?: string;
  inputs: string[];
  outputs: string[];
  /** how the worker takes messages: 'blocking' (Atomics.wait + native session) or 'event' (fallback) */
  loop: 'blocking' | 'event';
}

export { NotStartedError };

/** One answer owed by the worker: a plain callback, so a batch costs no promise on the hot path. */
type Pending = (error: Error | null, result?: WorkerRunResult & { rssGrowth?: number }) => void;

const WORKER_URL = new URL('./worker.mjs', import.meta.url);
/**
 * Claim words shared with the worker, one per run (slot = id % CLAIM_SLOTS): 0 open, 1 begun by the worker,
 * 2 taken back by this side. Both sides change a word only by compare-and-swap from 0, so a run is either
 * begun or withdrawn, never both. A run gets a slot only while every message still in the worker's queue
 * is within CLAIM_SLOTS ids of it (the worker takes them in order), so a slot is never shared.
 */
const CLAIM_SLOTS = 64;

export class InstanceWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private readonly wake = new Int32Array(new SharedArrayBuffer(4));
  private readonly claims = new Int32Array(new SharedArrayBuffer(4 * CLAIM_SLOTS));
  /** runs taken back whose message the worker has not skipped yet (they still hold their slot) */
  private readonly withdrawn = new Set<number>();
  private nextId = 1;
  private closing = false;
  private deathError: Error | null = null;
  private onInit: { resolve(r: WorkerReady): void; reject(e: Error): void } | null = null;
  /** the program this thread hosts (at most one), and the answer owed to its start */
  private program: HostedProgram | null = null;
  private onHost: { resolve(): void; reject(e: Error): void } | null = null;
  /** resolves when the thread has ended, for whatever reason */
  readonly exited: Promise<number>;

  constructor(
    private readonly label: string,
    /** called once if the thread ends without close() having been asked for */
    private readonly onDeath: (error: Error) => void,
  ) {
    // execArgv is inherited (e.g. `--import tsx`); the worker itself is plain JS and needs none of it.
    // The wake word lets the worker sleep in Atomics.wait between batches instead of in its event loop
    // (worker.mjs, "blocking loop"): every message posted to it is followed by a bump of this counter.
    this.worker = new Worker(WORKER_URL, { workerData: { wake: this.wake.buffer, claims: this.claims.buffer, testHooks: testHooksOn() } });
    this.worker.on('message', (m: Record<string, unknown>) => this.onMessage(m));
    this.worker.on('error', (err: Error) => {
      this.deathError = new Error(`instance ${this.label} crashed: ${err.message}`);
    });
    this.exited = new Promise((resolve) => {
      this.worker.on('exit', (code: number) => {
        const error =
          this.deathError ?? new Error(`instance ${this.label} worker exited with code ${code} while running`);
        this.deathError = error;
        // The owner hears of the death first, so a batch sent on from failAll goes to its replacement.
        if (!this.closing) this.onDeath(error);
        if (!this.closing && !this.onHost) this.program?.ended(error);
        this.program = null;
        this.failAll(error, true);
        resolve(code);
      });
    });
  }

  get inFlight(): number {
    return this.pending.size;
  }

  init(setup: SessionSetup): Promise<WorkerReady> {
    return new Promise((resolve, reject) => {
      this.onInit = { resolve, reject };
      this.post({ type: 'init', ...setup });
    });
  }

  /**
   * Starts `program` in this thread, beside the session (worker.mjs: 'host'); it runs until the thread
   * ends. Rejects when the thread cannot host it (no synchronous native session, the module failed).
   */
  host(program: HostedProgram): Promise<void> {
    if (this.deathError || this.closing) return Promise.reject(this.deathError ?? new Error(`instance ${this.label} is stopping`));
    if (this.program) return Promise.reject(new Error(`instance ${this.label} already hosts a program`));
    this.program = program;
    return new Promise((resolve, reject) => {
      this.onHost = { resolve, reject };
      this.post({ type: 'host', module: program.module, init: program.init });
    });
  }

  /** A message to the hosted program. */
  postProgram(body: unknown): void {
    if (!this.deathError && !this.closing) this.post({ type: 'guest', body });
  }

  /** Sends a batch. The feeds' buffers are transferred (detached here): pass buffers nobody else holds. */
  run(feeds: WorkerFeed[], fetches: string[]): Promise<WorkerRunResult> {
    return new Promise((resolve, reject) => this.runWithCallback(feeds, fetches, (err, r) => (err ? reject(err) : resolve(r!))));
  }

  /**
   * Callback form of `run`: the message is posted before this returns (no await in between), so the worker
   * starts on the batch while the caller's other work (answering the previous batch) still runs.
   * `done` is called exactly once, possibly synchronously when the worker is already dead or stopping,
   * unless `withdraw` takes the run back. Returns the run's id (0 when it was refused at once).
   */
  runWithCallback(feeds: WorkerFeed[], fetches: string[], done: (error: Error | null, result?: WorkerRunResult) => void): number {
    if (this.deathError || this.closing) {
      done(this.deathError ?? new Error(`instance ${this.label} is stopping`));
      return 0;
    }
    const id = this.nextId++;
    this.pending.set(id, done);
    const transfer: ArrayBuffer[] = [];
    for (const f of feeds) if (!Array.isArray(f.data)) transfer.push(f.data.buffer as ArrayBuffer);
    let claim: number | undefined;
    if (this.claimable(id)) {
      claim = id % CLAIM_SLOTS;
      Atomics.store(this.claims, claim, 0);
    }
    this.post({ type: 'run', id, feeds, fetches, claim }, transfer);
    return id;
  }

  /**
   * Takes back a run the worker has not begun: true means it never will (the worker skips it) and its
   * `done` is never called; false means it has begun, has finished, or cannot be taken back.
   */
  withdraw(id: number): boolean {
    if (!this.pending.has(id) || this.deathError || this.closing || !this.claimable(id)) return false;
    if (Atomics.compareExchange(this.claims, id % CLAIM_SLOTS, 0, 2) !== 0) return false;
    this.pending.delete(id);
    this.withdrawn.add(id);
    return true;
  }

  /** whether run `id` has (or gets) a claim slot of its own: the oldest message still queued is near enough */
  private claimable(id: number): boolean {
    const oldestOwed = this.pending.keys().next().value ?? id;
    const oldestSkipped = this.withdrawn.values().next().value ?? id;
    return id - Math.min(oldestOwed, oldestSkipped) < CLAIM_SLOTS;
  }

  /** Resident-memory growth since the session began loading (session + warmup), as the worker sees it. */
  async measure(): Promise<number> {
    if (this.deathError || this.closing) throw this.deathError ?? new Error(`instance ${this.label} is stopping`);
    const id = this.nextId++;
    const r = await new Promise<WorkerRunResult & { rssGrowth?: number }>((resolve, reject) => {
      this.pending.set(id, (err, result) => (err ? reject(err) : resolve(result!)));
      this.post({ type: 'measure', id });
    });
    return r.rssGrowth ?? 0;
  }

  /**
   * Test hook: the worker dies as a crash would (uncaught exception) or exits on its own, in the next batch
   * it takes after this message (so that batch fails and the ones queued behind it are re-sent). Only in a
   * process the test harness started with TEST_HOOKS_ENV=1 (its worker was told so); refused elsewhere.
   */
  crash(how: 'throw' | 'exit'): void {
    if (!testHooksOn()) throw new Error(`crash() is a test hook: the test harness sets ${TEST_HOOKS_ENV}=1`);
    this.post({ type: 'crash', how });
  }

  /**
   * Test hook: the worker stops before the message posted after this one until the returned function is
   * called, so a run sent behind it has certainly not begun (a test can take it back without a race with
   * the thread). Only in a process the test harness started with TEST_HOOKS_ENV=1.
   */
  hold(): () => void {
    if (!testHooksOn()) throw new Error(`hold() is a test hook: the test harness sets ${TEST_HOOKS_ENV}=1`);
    const gate = new Int32Array(new SharedArrayBuffer(4));
    this.post({ type: 'hold', gate: gate.buffer });
    return () => {
      Atomics.store(gate, 0, 1);
      Atomics.notify(gate, 0);
    };
  }

  /**
   * Test hook: kill the thread now. Only safe while no run is in flight: Worker.terminate() while
   * onnxruntime is inside session.run aborts the whole process (Napi::Error -> std::terminate; see
   * test/reliability/worker-terminate.test.ts), which is why nothing in the server calls this.
   */
  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  /**
   * Releases the session and ends the thread after the batches already sent have finished (the worker
   * handles messages in order). If it has not ended within `graceMs` (a native call that never
   * returns), the thread is left detached rather than terminated, since terminating it inside
   * onnxruntime would abort the process; what it still owed fails with an error.
   */
  async close(graceMs = 30_000): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      this.post({ type: 'close' });
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const outcome = await Promise.race([this.exited.then(() => 'exited' as const), timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      this.worker.unref();
      this.failAll(new Error(`instance ${this.label} did not stop within ${graceMs} ms; it was left to finish detached`));
    }
  }

  /** Posts to the worker and wakes it if it sleeps in its blocking loop (a no-op for the event loop). */
  private post(message: Record<string, unknown>, transfer?: ArrayBuffer[]): void {
    this.worker.postMessage(message, transfer);
    Atomics.add(this.wake, 0, 1);
    Atomics.notify(this.wake, 0);
  }

  private onMessage(m: Record<string, unknown>): void {
    switch (m.type) {
      case 'ready':
        this.onInit?.resolve(m as unknown as WorkerReady);
        this.onInit = null;
        return;
      case 'initError':
        this.onInit?.reject(new Error(String(m.message)));
        this.onInit = null;
        return;
      case 'measured': {
        const p = this.pending.get(m.id as number);
        this.pending.delete(m.id as number);
        p?.(null, { outputs: [], computeUs: 0, rssGrowth: m.rssGrowth as number });
        return;
      }
      case 'hosted':
        this.onHost?.resolve();
        this.onHost = null;
        return;
      case 'hostError':
        this.program = null;
        this.onHost?.reject(new Error(String(m.message)));
        this.onHost = null;
        return;
      case 'guest':
        this.program?.message(m.body);
        return;
      case 'skipped':
        this.withdrawn.delete(m.id as number);
        return;
      case 'result':
      case 'runError': {
        const p = this.pending.get(m.id as number);
        if (!p) return;
        this.pending.delete(m.id as number);
        if (m.type === 'result') p(null, { outputs: m.outputs as WorkerOutput[], computeUs: m.computeUs as number, phases: { inputUs: m.inputUs as number, outputUs: m.outputUs as number } });
        else p(new Error(String(m.message)));
        return;
      }
    }
  }

  /** Fails everything still owed (see owed-batches.ts for which batch gets which error). */
  private failAll(error: Error, died = false): void {
    this.onInit?.reject(error);
    this.onInit = null;
    this.onHost?.reject(error);
    this.onHost = null;
    const owed = [...this.pending.values()];
    this.pending.clear();
    this.withdrawn.clear();
    failOwed(owed, error, died, this.label);
  }
}
