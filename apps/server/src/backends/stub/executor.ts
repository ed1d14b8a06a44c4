/**
 * StubExecutor: the scheduler's Executor for a model whose instances are stub processes (pytorch and
 * python backends). The same contract and rules as the onnxruntime workers: prefetch 1 (a stub handles
 * its frames one at a time, in order), a stub that dies fails only the batch it was running and is
 * restarted at once, batches queued behind it are sent again to the replacement (exactly once), memory is
 * reserved before start (budget refusal) and then measured (VmRSS of the stub; on a GPU the driver's
 * figure for the stub's pid, else torch's). Under a cpu budget the stub's memory is then watched while
 * it runs (memory-watch.ts): past its share the stub is stopped with that cause and restarted.
 */
import type { ComputePhases, Executor, InferPayload, InferResult, InstanceInfo, RequestFailure, SchedulerRequest } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import { modelConfigToJson } from '@inferscope/core/config';
import { fromOrtType } from '@inferscope/core/tensor';
import type { MemoryLedger, MemoryReservation } from '../../memory/ledger';
import { estimateInstanceMemory } from '../../memory/estimate';
import { warmupBatches } from '../onnxruntime/warmup';
import { WholeBatchFailure } from '../isolate-failures';
import { StubProcess, type StubRequest, type StubRunResult } from './stub-process';
import { InstanceSupervisor, noteOnce, type Supervised } from '../instance-supervisor';
import { processGpuBytes, processRssBytes } from './proc-memory';
import { watchMemory } from './memory-watch';
import { toMiB } from '../../memory/ledger';
import type { StubInit } from './protocol';
import type { ServerCalls } from './server-calls';
import { DEFAULT_FINAL_TIMEOUT_S, StubRuns } from './decoupled-runs';
import { DEFAULT_SEND_STALL_S, SEND_WINDOW_ENV } from './send-window';
import { metricOwner, serveStubCall } from './stub-calls';
import type { StubProgram } from './program';

type Batch = readonly SchedulerRequest<InferPayload>[];

/** How one backend turns a batch into stub requests and the stub's answer back into per-request results. */
export interface StubBatchCodec {
  encode(batch: Batch): { requests: StubRequest[]; rows: number[] };
  /** one result per request; a RequestFailure in place of one fails that request alone */
  decode(batch: Batch, rows: number[], result: StubRunResult): (InferResult | RequestFailure)[];
  /**
   * Whether a failed batch may be run again in parts to find the request that failed it (isolate-failures):
   * true for a pure function of the batch (a TorchScript forward()), false for a python model's execute(),
   * whose failures then reach every request of the batch as one WholeBatchFailure (why: isolate-failures.ts).
   */
  rerunSafe: boolean;
}

export interface StubModelPlan {
  backend: StubInit['backend'];
  model: string;
  version: string;
  modelFile: string;
  /** <repository>/<model> */
  modelDir: string;
  config: ModelConfig;
  /** what each instance's stub process runs (the Python interpreter on stub_main.py, or the native torch stub) */
  program: StubProgram;
  /** backend settings sent to the stub in its init message */
  settings: Record<string, unknown>;
  /** environment of the stub process (e.g. BLAS thread counts, read when the library loads) */
  env?: Record<string, string>;
  codec: StubBatchCodec;
  gpuCount: number;
  weightsBytes: number;
  memory: MemoryLedger;
  loadTimeoutMs: number;
  /** the model's execute timeout (parameter execute_timeout_ms; 0 = none) */
  executeTimeoutMs?: number;
  log(msg: string): void;
  notes: string[];
  /** the server, for BLS calls and custom metrics (absent: the model's calls are answered with an error) */
  calls?: ServerCalls;
  /** the largest frame a stub may send (StubSpawn.maxFrameBytes); unset = none */
  maxFrameBytes?: number;
  /** model_transaction_policy { decoupled: true }: responses come on their own (decoupled-runs.ts) */
  decoupled?: boolean;
  /** how long a decoupled request may wait for its final response */
  finalTimeoutMs?: number;
  /** how long a decoupled request's send window may stay full before it is cancelled (send-window.ts) */
  sendStallMs?: number;
  /** called after `notes` changed once the model serves, so its state reason shows them */
  notesChanged?(): void;
}

/** What a stub instance holds beside its process (the handle). */
interface StubInstance {
  host: MemoryReservation | null;
  gpu: MemoryReservation | null;
  device: string;
}
type InstanceRuntime = Supervised<StubProcess> & StubInstance;

/**
 * Resident memory of a freshly loaded stub, by program and backend, as last measured: the interpreter
 * and framework dominate (measured here: python + numpy ~32 MiB, + torch ~240 MiB; the native torch stub
 * ~170 MiB), so later instances reserve what the earlier ones turned out to need rather than the weights alone.
 */
const measuredStubRss = new Map<string, number>();
const FIRST_GUESS: Record<StubInit['backend'], number> = { python: 32 * 1024 * 1024, pytorch: 230 * 1024 * 1024 };
/**
 * GPU memory of a loaded torch stub, as last measured per interpreter: the CUDA context alone is a few
 * hundred MiB, so a weights-only estimate would let several instances past a budget they cannot share.
 */
const measuredStubGpu = new Map<string, number>();
const FIRST_GPU_GUESS = 300 * 1024 * 1024;
/** A running stub's reservation follows its measured memory in steps of this much (fewer ledger events). */
const RESERVATION_STEP = 16 * 1024 * 1024;

export class StubExecutor implements Executor<InferPayload, InferResult> {
  /** a batch behind the running one is written to the stub at once; claim words let `reclaim` take it back until it begins */
  readonly prefetch = 1;
  private readonly supervisor: InstanceSupervisor<StubProcess, StubInstance>;
  /** per live stub: the batches it was sent that responses and BLS calls may still name */
  private readonly runs = new Map<StubProcess, StubRuns>();
  /** batches handed to a stub and not answered yet, by the array the scheduler gave (see reclaim) */
  private readonly posted = new Map<Batch, { stub: StubProcess; id: number }>();

  constructor(private readonly plan: StubModelPlan) {
    this.supervisor = new InstanceSupervisor<StubProcess, StubInstance>({
      model: plan.model,
      log: (msg) => plan.log(msg),
      bringUp: (rt) => this.bringUp(rt),
      release: (rt) => this.release(rt),
    });
  }

  startInstance(info: InstanceInfo): Promise<void> {
    return this.supervisor.start(info, { host: null, gpu: null, device: 'cpu' });
  }

  stopInstance(info: InstanceInfo): Promise<void> {
    return this.supervisor.stop(info);
  }

  async stopAll(): Promise<void> {
    await this.supervisor.stopAll();
    this.plan.calls?.metrics.release(metricOwner(this.plan.model, this.plan.version));
  }

  execute(info: InstanceInfo, batch: Batch): Promise<InferResult[]> {
    return new Promise((resolve, reject) => this.executeWithCallback(info, batch, (err, r) => (err ? reject(err) : resolve(r!))));
  }

  /** Sends the batch synchronously when the stub is up (see OrtExecutor.executeWithCallback for why). */
  executeWithCallback(info: InstanceInfo, batch: Batch, answer: (error: unknown, results?: InferResult[], phases?: ComputePhases) => void): void {
    const done = this.plan.codec.rerunSafe ? answer : (err: unknown, results?: InferResult[], phases?: ComputePhases) => answer(err ? asWholeBatchFailure(err) : null, results, phases);
    this.supervisor.dispatch(info, done, () => {
      const encoded = this.plan.codec.encode(batch);
      // the scheduler's contract takes a RequestFailure in place of a result (core scheduler/types.ts)
      return (stub, _again, finish) => this.post(stub, batch, encoded.requests, (err, result) => finish(err, () => this.plan.codec.decode(batch, encoded.rows, result!) as InferResult[], result?.phases));
    });
  }

  /**
   * The scheduler takes back a batch held behind a running one, for an instance that is free: it succeeds
   * while the stub has not begun it (StubProcess.withdraw), and then it is never run here.
   */
  reclaim(_info: InstanceInfo, batch: Batch): boolean {
    const p = this.posted.get(batch);
    if (!p || !p.stub.withdraw(p.id)) return false;
    this.posted.delete(batch);
    this.runs.get(p.stub)?.withdrawn(p.id);
    return true;
  }

  /** runs `requests` on `stub`, remembering the batch until it is answered (for reclaim) */
  private post(stub: StubProcess, batch: Batch, requests: StubRequest[], done: (err: Error | null, result?: StubRunResult) => void): void {
    let answered = false;
    let id = -1;
    const runs = this.runs.get(stub);
    id = stub.run(requests, (err, result) => {
      answered = true;
      if (this.posted.get(batch)?.stub === stub) this.posted.delete(batch);
      runs?.answered(id, err);
      done(err, result);
    });
    if (answered || id < 0) return;
    this.posted.set(batch, { stub, id });
    // decoupled responses and BLS calls name the batch by its wire id; a batch whose every request was
    // cancelled while it waited behind the running one is taken back and answered CANCELLED, never run:
    // as a failure of the whole batch, so it counts as no execution and each request as CANCELED
    runs?.sent(id, batch, () => {
      if (answered || !stub.withdraw(id)) return;
      answered = true;
      this.posted.delete(batch);
      runs.withdrawn(id);
      done(new WholeBatchFailure('the request was cancelled before its instance began it', 'CANCELLED'));
    });
  }

  /** Test and diagnostics hook: the live stub of an instance. */
  stubOf(instance: string): StubProcess | null {
    return this.supervisor.get(instance)?.handle ?? null;
  }

  describe(): { instance: string; device: string; restarts: number; pid?: number }[] {
    return this.supervisor.list().map((rt) => ({ instance: rt.info.name, device: rt.device, restarts: rt.restarts, pid: rt.handle?.pid }));
  }

  private addNote(note: string): void {
    noteOnce(this.plan.notes, (m) => this.plan.log(m), note);
  }

  /**
   * Holds the stub to its share of the cpu budget (its reservation plus what no one else reserved) while
   * it lives; its reservation follows what it uses. Nothing to watch without a cpu budget.
   */
  private watchStubMemory(rt: InstanceRuntime, stub: StubProcess, label: string): void {
    const { memory } = this.plan;
    if (memory.budget('cpu') <= 0 || stub.pid === undefined) return;
    const unwatch = watchMemory({
      pid: stub.pid,
      limit: () => (rt.host ? memory.budget('cpu') - memory.used('cpu') + rt.host.bytes : Infinity),
      sample: (bytes) => {
        if (rt.host && Math.abs(bytes - rt.host.bytes) >= RESERVATION_STEP) rt.host.update(bytes, 'measured');
      },
      exceeded: (bytes, limit) => {
        const cause = `instance ${label} was stopped: its processes held ${toMiB(bytes)} MiB, more than its share of the cpu memory budget (${toMiB(limit)} MiB of ${toMiB(memory.budget('cpu'))} MiB, --memory-budget)`;
        this.setInstanceNote(rt.info.name, `${cause} at ${new Date().toISOString()} and restarted`);
        stub.stopFor(cause);
      },
    });
    void stub.exited.then(unwatch);
  }

  /** The latest thing the user should know about one instance (replaces its one before), in the model's state reason. */
  private setInstanceNote(instance: string, note: string): void {
    const at = this.plan.notes.findIndex((n) => n.startsWith(`instance ${instance} `));
    if (at >= 0) this.plan.notes.splice(at, 1);
    this.plan.notes.push(note);
    this.plan.notesChanged?.();
  }

  private release(rt: InstanceRuntime): void {
    rt.host?.release();
    rt.gpu?.release();
    rt.host = rt.gpu = null;
  }

  private async bringUp(rt: InstanceRuntime): Promise<StubProcess> {
    const { plan } = this;
    const { info } = rt;
    let device = info.device.startsWith('gpu') && info.kind === 'KIND_GPU' ? info.device : 'cpu';
    if (device !== 'cpu' && plan.gpuCount === 0) {
      this.addNote(`CUDA unavailable: this host has no GPU; running on CPU`);
      device = 'cpu';
    }
    const owner = { model: plan.model, version: plan.version, instance: info.name };
    const estimate = estimateInstanceMemory(plan.config, plan.weightsBytes).total;
    const typical = measuredStubRss.get(`${plan.program.file}\0${plan.backend}`) ?? FIRST_GUESS[plan.backend] + estimate;
    // Host memory: the whole stub process. GPU memory (when the model runs there): weights + activations.
    if (!rt.host) rt.host = plan.memory.reserve({ ...owner, device: 'cpu' }, device === 'cpu' ? Math.max(typical, estimate) : typical);
    const gpuKey = `${plan.program.file}\0${plan.backend}\0gpu`;
    if (device !== 'cpu' && !rt.gpu) rt.gpu = plan.memory.reserve({ ...owner, device }, measuredStubGpu.get(gpuKey) ?? FIRST_GPU_GUESS + estimate);
    const label = `${info.name} of model '${plan.model}'`;
    const stub = new StubProcess(label, (error) => {
      runs.failAll(error);
      this.supervisor.died(rt, stub, error);
    });
    const runs = new StubRuns({
      model: plan.model,
      version: plan.version,
      instance: info.name,
      config: plan.config,
      decoupled: plan.decoupled === true,
      finalTimeoutMs: plan.finalTimeoutMs ?? DEFAULT_FINAL_TIMEOUT_S * 1000,
      sendStallMs: plan.sendStallMs ?? DEFAULT_SEND_STALL_S * 1000,
      log: plan.log,
      tell: (m) => stub.reply(m),
      events: plan.calls && { emit: (e) => plan.calls!.bus.emit(e), now: () => plan.calls!.now() },
    });
    this.runs.set(stub, runs);
    const calls = { model: plan.model, version: plan.version, stub, runs, calls: plan.calls, blsCalls: new Map<number, () => void>() };
    void stub.exited.then(() => {
      this.runs.delete(stub);
      runs.failAll(new Error(`instance ${label} stopped before the request had its final response`));
      for (const cancel of [...calls.blsCalls.values()]) cancel(); // no one is left to read their answers
    });
    try {
      const starting = stub.start({
        onCall: (m, body) => serveStubCall(calls, m, body),
        program: plan.program,
        env: { ...plan.env, ...SEND_WINDOW_ENV },
        loadTimeoutMs: plan.loadTimeoutMs,
        executeTimeoutMs: plan.executeTimeoutMs,
        maxFrameBytes: plan.maxFrameBytes,
        log: (line) => plan.log(`[${plan.model}/${plan.version}/${info.name}] ${line}`),
        init: {
          type: 'init',
          backend: plan.backend,
          modelFile: plan.modelFile,
          model: plan.model,
          version: plan.version,
          modelDir: plan.modelDir,
          instance: info.name,
          device,
          kind: info.kind,
          config: modelConfigToJson(plan.config) as Record<string, unknown>,
          settings: plan.settings,
        },
      });
      this.watchStubMemory(rt, stub, label); // from spawn: initialize() and warmup can allocate too
      const ready = await starting;
      if (rt.restarts === 0) plan.log(`instance ${info.name}: stub pid ${stub.pid} ready on ${ready.device} (${ready.runtime})`);
      if (ready.note) this.addNote(ready.note);
      if (ready.device === 'cpu' && device !== 'cpu') {
        rt.gpu?.release(); // torch had no CUDA: the model's memory is host memory
        rt.gpu = null;
      }
      rt.device = ready.device;
      // a decoupled model answers warmup through its senders: nothing to wait for here
      for (const sample of plan.decoupled ? [] : warmupBatches(plan.config, plan.modelDir)) {
        for (let i = 0; i < sample.count; i++) await runOnce(stub, sample.feeds().map((f) => ({ name: f.name, datatype: fromOrtType(f.type), shape: f.dims, data: f.data as Float32Array })));
      }
      const rss = processRssBytes(stub.pid);
      if (rss !== undefined) {
        rt.host?.update(rss, 'measured');
        measuredStubRss.set(`${plan.program.file}\0${plan.backend}`, rss);
      }
      if (rt.gpu) {
        // The driver's figure for this pid (CUDA context included), else what torch's allocator holds.
        const measured = processGpuBytes(stub.pid) ?? ready.torchGpuBytes;
        if (measured !== undefined) {
          rt.gpu.update(measured, 'measured');
          measuredStubGpu.set(gpuKey, measured);
        }
      }
    } catch (err) {
      await stub.close(1000).catch(() => undefined);
      if (!rt.handle) this.release(rt);
      throw new Error(`instance ${label} failed to start: ${(err as Error).message}`);
    }
    return this.supervisor.adopt(rt, stub);
  }

}

function runOnce(stub: StubProcess, inputs: StubRequest['inputs']): Promise<void> {
  return new Promise((resolve, reject) =>
    stub.run([{ inputs, outputs: [] }], (err, r) => {
      const failed = r?.responses.find((x) => x.error !== undefined);
      if (err || failed) reject(err ?? new Error(`warmup failed: ${failed!.error}`));
      else resolve();
    }),
  );
}

function asWholeBatchFailure(err: unknown): WholeBatchFailure {
  return err instanceof WholeBatchFailure ? err : new WholeBatchFailure(err instanceof Error ? err.message : String(err));
}
