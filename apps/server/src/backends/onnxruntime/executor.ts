/**
 * OrtExecutor: the scheduler's Executor for one ONNX model version. Each instance is an InstanceWorker
 * (a worker thread owning one InferenceSession). Start-up reserves memory, creates the session (falling
 * back to CPU when a GPU provider cannot load), runs the warmup samples and then records the measured
 * memory. A worker that dies fails its batch and is started again at once; the model keeps serving.
 */
import type { ComputePhases, Executor, InferPayload, InferResult, InstanceInfo, SchedulerRequest } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import type { HostedProgram, ProgramLink } from '@inferscope/core/scheduler';
import type { MemoryLedger, MemoryReservation } from '../../memory/ledger';
import { estimateInstanceMemory } from '../../memory/estimate';
import { gpuMemoryUsedBytes } from '../../memory/gpu';
import { InstanceWorker } from './instance-worker';
import { InstanceSupervisor, noteOnce, type Supervised } from '../instance-supervisor';
import { executionProviders, lazyLoad, sessionOptions } from './session-options';
import { warmupBatches } from './warmup';
import { gatherFeeds, outputsToFetch, scatterOutputs } from './batch-io';
import { GraphBuilder } from '../../model-generator/onnx-builder';

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

/** What an onnxruntime instance holds beside its worker (the handle). */
interface OrtInstance {
  reservation: MemoryReservation | null;
  provider: string;
}
type InstanceRuntime = Supervised<InstanceWorker> & OrtInstance;

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
  private readonly supervisor: InstanceSupervisor<InstanceWorker, OrtInstance>;
  /** batches posted to a worker and not answered yet, by the array the scheduler gave (see reclaim) */
  private readonly posted = new Map<readonly SchedulerRequest<InferPayload>[], { worker: InstanceWorker; id: number }>();

  constructor(private readonly plan: OrtModelPlan) {
    this.supervisor = new InstanceSupervisor<InstanceWorker, OrtInstance>({
      model: plan.model,
      log: (msg) => plan.log(msg),
      bringUp: (rt) => this.bringUp(rt),
      release: (rt) => {
        rt.reservation?.release();
        rt.reservation = null;
      },
    });
  }

  async startInstance(info: InstanceInfo): Promise<void> {
    const lazy = lazyLoad(this.plan.config);
    await this.supervisor.start(info, { reservation: null, provider: '' }, lazy);
    if (lazy) this.plan.log(`instance ${info.name}: lazy_load is on, the session loads on the first batch`);
  }

  stopInstance(info: InstanceInfo): Promise<void> {
    return this.supervisor.stop(info);
  }

  stopAll(): Promise<void> {
    return this.supervisor.stopAll();
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
  executeWithCallback(info: InstanceInfo, batch: readonly SchedulerRequest<InferPayload>[], done: (error: unknown, results?: InferResult[], phases?: ComputePhases) => void): void {
    const config = this.plan.config;
    this.supervisor.dispatch(info, done, () => {
      // Build the feeds before waiting for the worker: bad input fails fast, without touching the instance.
      const gathered = gatherFeeds(config, batch);
      const { rows } = gathered;
      let { feeds } = gathered;
      const fetches = outputsToFetch(config, batch);
      return (worker, again, finish) => {
        // Sent again to the replacement: the feeds were transferred to the dead thread, gather them again
        // (an owned payload's buffers went with them: that batch fails, its caller decides what follows).
        if (again && batch.some((r) => r.payload.owned)) {
          finish(new Error(`the inputs of this batch went to instance ${info.name}'s worker thread, which stopped; they cannot be sent again`), () => []);
          return;
        }
        if (again) feeds = gatherFeeds(config, batch).feeds;
        let answered = false;
        const id = worker.runWithCallback(feeds, fetches, (err, result) => {
          answered = true;
          this.posted.delete(batch);
          finish(err, () => scatterOutputs(config, batch, rows, result!.outputs), result?.phases);
        });
        if (!answered && id > 0) this.posted.set(batch, { worker, id });
      };
    });
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

  /**
   * Runs `program` in the instance's worker thread, beside its session (a generative model's step loop,
   * generate/step-host.ts). Needs the worker's blocking loop (the native session): rejects otherwise,
   * and the caller runs its work on the main thread.
   */
  async hostProgram(info: InstanceInfo, program: HostedProgram): Promise<ProgramLink> {
    const rt = this.supervisor.get(info.name);
    if (!rt) throw new Error(`instance ${info.name} of model '${this.plan.model}' is not started`);
    const worker = await this.supervisor.ensure(rt);
    await worker.host(program);
    return { post: (body) => worker.postProgram(body) };
  }

  /** Test and diagnostics hook: the live worker of an instance, if it has one. */
  workerOf(instance: string): InstanceWorker | null {
    return this.supervisor.get(instance)?.handle ?? null;
  }

  /** Which provider each instance's session runs on ('cpu', 'cuda', ...), and how often it was restarted. */
  describe(): { instance: string; provider: string; restarts: number; loaded: boolean }[] {
    return this.supervisor.list().map((rt) => ({
      instance: rt.info.name,
      provider: rt.provider,
      restarts: rt.restarts,
      loaded: rt.handle !== null,
    }));
  }

  private addNote(note: string): void {
    noteOnce(this.plan.notes, (m) => this.plan.log(m), note);
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
        const w = new InstanceWorker(`${info.name} of model '${plan.model}'`, (error) => this.supervisor.died(rt, w, error));
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
        if (!rt.handle) {
          rt.reservation?.release();
          rt.reservation = null;
        }
        throw new Error(`instance ${info.name} of model '${plan.model}' failed to start: ${(err as Error).message}`);
      }
      return this.supervisor.adopt(rt, worker);
    });
  }
}
