/**
 * OrtExecutor: the scheduler's Executor for one ONNX model version. Each instance is an InstanceWorker
 * (a worker thread owning one InferenceSession). Start-up reserves memory, creates the session (falling
 * back to CPU when a GPU provider cannot load), runs the warmup samples and then records the measured
 * memory. A worker that dies fails its batch and is started again at once; the model keeps serving.
 */
import type { Executor, InferPayload, InferResult, InstanceInfo, SchedulerRequest } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config/index.ts';
import type { MemoryLedger, MemoryReservation } from '../../memory/ledger';
import { estimateInstanceMemory } from '../../memory/estimate';
import { gpuMemoryUsedBytes } from '../../memory/gpu';
import { InstanceWorker, NotStartedError, type WorkerFeed } from './instance-worker';
import { executionProviders, lazyLoad, sessionOptions } from './session-options';
import { warmupBatches } from './warmup';
import { gatherFeeds, outputsToFetch, scatterOutputs } from './batch-io';
import { GraphBuilder } from '../../models-gen/onnx-builder';

let primer: Uint8Array | null = null;
/** A one-node model ([1] -> Identity) used to initialise ONNX Runtime in a worker before measuring. */
function primerModel(): Uint8Array {
  if (!primer) {
    const g = new GraphBuilder('primer');
    g.input('x', 'float32', [1]);
    g.node('Identity', ['x'], {}, 'y');
    g.output('y', 'float32', [1]);
    primer = g.encode('InferScope worker primer');
  }
  return primer;
}

export interface OrtModelPlan {
  model: string;
  version: string;
  modelFile: string;
  /** <repository>/<model>, where warmup/ data files live */
  modelDir: string;
  config: ModelConfig;
  gpuCount: number;
  cpuCount: number;
  weightsBytes: number;
  memory: MemoryLedger;
  log(msg: string): void;
  /** the LoadedModel's live notes list */
  notes: string[];
}

interface InstanceRuntime {
  info: InstanceInfo;
  worker: InstanceWorker | null;
  starting: Promise<InstanceWorker> | null;
  reservation: MemoryReservation | null;
  stopped: boolean;
  provider: string;
  restarts: number;
}

// Session creation is serialised across the process: resident-memory growth is process-wide, so only
// one session may be loading while we measure it. It also keeps start-up from fighting for the 2 cores.
let loadChain: Promise<unknown> = Promise.resolve();
function serialised<T>(fn: () => Promise<T>): Promise<T> {
  const run = loadChain.then(fn, fn);
  loadChain = run.catch(() => undefined);
  return run;
}

export class OrtExecutor implements Executor<InferPayload, InferResult> {
  /**
   * A worker runs its messages one at a time, in order, so the scheduler may hand an instance its next
   * batch while it computes: the worker then starts it without waiting for a round trip to the main
   * thread (about 30-60 µs each way on a busy 2-core machine, against ~100-400 µs of compute per batch).
   */
  readonly prefetch = 1;
  private readonly instances = new Map<string, InstanceRuntime>();
  /** batches posted to a worker and not answered yet, by the array the scheduler gave (see reclaim) */
  private readonly posted = new Map<readonly SchedulerRequest<InferPayload>[], { worker: InstanceWorker; id: number }>();

  constructor(private readonly plan: OrtModelPlan) {}

  async startInstance(info: InstanceInfo): Promise<void> {
    if (this.instances.has(info.name)) throw new Error(`instance ${info.name} is already started`);
    const rt: InstanceRuntime = { info, worker: null, starting: null, reservation: null, stopped: false, provider: '', restarts: 0 };
    this.instances.set(info.name, rt);
    if (lazyLoad(this.plan.config)) {
      this.plan.log(`instance ${info.name}: lazy_load is on, the session loads on the first batch`);
      return;
    }
    try {
      await this.ensureWorker(rt);
    } catch (err) {
      this.instances.delete(info.name);
      throw err;
    }
  }

  async stopInstance(info: InstanceInfo): Promise<void> {
    const rt = this.instances.get(info.name);
    if (!rt) return;
    rt.stopped = true;
    await rt.starting?.catch(() => undefined);
    await rt.worker?.close();
    rt.worker = null;
    rt.reservation?.release();
    rt.reservation = null;
    this.instances.delete(info.name);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.instances.values()].map((rt) => this.stopInstance(rt.info)));
  }

  execute(info: InstanceInfo, batch: readonly SchedulerRequest<InferPayload>[]): Promise<InferResult[]> {
    return new Promise((resolve, reject) => this.executeWithCallback(info, batch, (err, r) => (err ? reject(err) : resolve(r!))));
  }

  /**
   * The scheduler's preferred form. When the instance's worker is up (the steady state) the batch is
   * gathered and posted synchronously, inside the scheduler's dispatch: an `await` here would let every
   * answer of the previous batch (and the callers' follow-up work) run before the worker gets its next
   * batch, leaving onnxruntime idle meanwhile.
   */
  executeWithCallback(info: InstanceInfo, batch: readonly SchedulerRequest<InferPayload>[], done: (error: unknown, results?: InferResult[]) => void): void {
    const rt = this.instances.get(info.name);
    if (!rt) {
      done(new Error(`instance ${info.name} of model '${this.plan.model}' is not started`));
      return;
    }
    const config = this.plan.config;
    let feeds: WorkerFeed[], rows: number[], fetches: string[];
    try {
      // Build the feeds before waiting for the worker: bad input fails fast, without touching the instance.
      ({ feeds, rows } = gatherFeeds(config, batch));
      fetches = outputsToFetch(config, batch);
    } catch (err) {
      done(err);
      return;
    }
    let resent = false;
    const send = (worker: InstanceWorker): void => {
      let answered = false;
      const id = worker.runWithCallback(feeds, fetches, (err, result) => {
        answered = true;
        this.posted.delete(batch);
        if (err instanceof NotStartedError && !resent && !rt.stopped) {
          // A prefetched batch queued behind one that crashed its worker: it never ran, so it goes to the
          // replacement (its feeds were transferred to the dead thread: gather them again).
          resent = true;
          const resend = (w: InstanceWorker): void => {
            try {
              feeds = gatherFeeds(config, batch).feeds;
              send(w);
            } catch (e) {
              done(e); // never leave the batch unanswered
            }
          };
          this.ensureWorker(rt).then(resend, (e: unknown) => done(e));
          return;
        }
        if (err) {
          done(err);
          return;
        }
        let results: InferResult[];
        try {
          results = scatterOutputs(config, batch, rows, result!.outputs);
        } catch (e) {
          done(e);
          return;
        }
        done(null, results);
      });
      if (!answered && id > 0) this.posted.set(batch, { worker, id });
    };
    if (rt.worker && !rt.stopped) send(rt.worker);
    else this.ensureWorker(rt).then(send, (err: unknown) => done(err));
  }

  /**
   * The scheduler takes back a batch held behind a running one, to give it to an instance that is free:
   * it succeeds only if the worker has not begun it (a compare-and-swap on a word both threads share), and
   * then the batch is never run here and never answered from here.
   */
  reclaim(_info: InstanceInfo, batch: readonly SchedulerRequest<InferPayload>[]): boolean {
    const p = this.posted.get(batch);
    if (!p || !p.worker.withdraw(p.id)) return false;
    this.posted.delete(batch);
    return true;
  }

  /** Test and diagnostics hook: the live worker of an instance, if it has one. */
  workerOf(instance: string): InstanceWorker | null {
    return this.instances.get(instance)?.worker ?? null;
  }

  /** Which provider each instance's session runs on ('cpu', 'cuda', ...), and how often it was restarted. */
  describe(): { instance: string; provider: string; restarts: number; loaded: boolean }[] {
    return [...this.instances.values()].map((rt) => ({
      instance: rt.info.name,
      provider: rt.provider,
      restarts: rt.restarts,
      loaded: rt.worker !== null,
    }));
  }

  private ensureWorker(rt: InstanceRuntime): Promise<InstanceWorker> {
    if (rt.stopped) return Promise.reject(new Error(`instance ${rt.info.name} of model '${this.plan.model}' is stopping`));
    if (rt.worker) return Promise.resolve(rt.worker);
    if (!rt.starting) {
      rt.starting = this.bringUp(rt).finally(() => {
        rt.starting = null;
      });
    }
    return rt.starting;
  }

  private addNote(note: string): void {
    if (!this.plan.notes.includes(note)) {
      this.plan.notes.push(note);
      this.plan.log(note);
    }
  }

  private async bringUp(rt: InstanceRuntime): Promise<InstanceWorker> {
    const { plan } = this;
    const { info } = rt;
    const gpuIndex = info.device.startsWith('gpu') ? Number(info.device.slice(3)) : 0;
    let providers = executionProviders(plan.config, info.kind, gpuIndex);
    let device = info.kind === 'KIND_GPU' ? `gpu${gpuIndex}` : 'cpu';
    if (device !== 'cpu' && plan.gpuCount === 0) {
      this.addNote(`CUDA execution provider unavailable: this host has no GPU; running on CPU`);
      providers = ['cpu'];
      device = 'cpu';
    }
    const owner = { device, model: plan.model, version: plan.version, instance: info.name };
    if (!rt.reservation) rt.reservation = plan.memory.reserve(owner, estimateInstanceMemory(plan.config, plan.weightsBytes).total);

    return serialised(async () => {
      if (rt.stopped) throw new Error(`instance ${info.name} was stopped while starting`);
      const gpuBefore = device === 'cpu' ? undefined : gpuMemoryUsedBytes(gpuIndex);
      // Process-wide RSS before the thread exists: the worker's own figure starts after its isolate and
      // onnxruntime's per-thread set-up (~15 MiB here), which an instance costs all the same.
      const rssBefore = process.memoryUsage.rss();
      let worker: InstanceWorker | null = null;
      try {
        const w = new InstanceWorker(`${info.name} of model '${plan.model}'`, (error) => this.onWorkerDeath(rt, w, error));
        worker = w;
        const ready = await w.init({
          modelFile: plan.modelFile,
          options: sessionOptions(plan.config, plan.cpuCount),
          executionProviders: providers,
          primer: primerModel(),
        });
        if (ready.note) this.addNote(ready.note);
        rt.provider = ready.provider;
        if (ready.provider === 'cpu' && device !== 'cpu') {
          // The session fell back to CPU: the memory it holds is host memory, so charge it there.
          rt.reservation?.release();
          device = 'cpu';
          rt.reservation = plan.memory.reserve({ ...owner, device }, rt.reservation?.bytes ?? 0);
        }
        const fetchAll = (plan.config.output ?? []).map((o) => o.name ?? '');
        for (const sample of warmupBatches(plan.config, plan.modelDir)) {
          for (let i = 0; i < sample.count; i++) await w.run(sample.feeds(), fetchAll);
        }
        const gpuAfter = device === 'cpu' ? undefined : gpuMemoryUsedBytes(gpuIndex);
        if (gpuBefore !== undefined && gpuAfter !== undefined) rt.reservation?.update(gpuAfter - gpuBefore, 'measured');
        else if (device === 'cpu') {
          // Session plus warmup: the warmup runs allocate the activation arena a real batch will use.
          const grown = Math.max(await w.measure(), process.memoryUsage.rss() - rssBefore);
          if (grown > 0) rt.reservation?.update(grown, 'measured');
        }
      } catch (err) {
        // close(), not terminate(): a terminate inside onnxruntime native code aborts the process.
        await worker?.close().catch(() => undefined);
        if (!rt.worker) {
          rt.reservation?.release();
          rt.reservation = null;
        }
        throw new Error(`instance ${info.name} of model '${plan.model}' failed to start: ${(err as Error).message}`);
      }
      if (rt.stopped) {
        await worker.close();
        throw new Error(`instance ${info.name} was stopped while starting`);
      }
      rt.worker = worker;
      return worker;
    });
  }

  private onWorkerDeath(rt: InstanceRuntime, worker: InstanceWorker, error: Error): void {
    if (rt.worker !== worker) return; // died during start-up: bringUp reports that itself
    rt.worker = null;
    if (rt.stopped) return;
    rt.restarts++;
    this.plan.log(`${error.message}; restarting instance ${rt.info.name} (restart ${rt.restarts})`);
    // Start the replacement now so the next batch does not pay for it. A failed restart is retried by
    // the next execute(), which then reports the error to that batch.
    this.ensureWorker(rt).catch((err: Error) => this.plan.log(err.message));
  }
}
