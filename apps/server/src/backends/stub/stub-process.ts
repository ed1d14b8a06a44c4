/**
 * The server's side of one stub process (one model instance): spawns its program (program.ts: the
 * Python interpreter on apps/server/python/stub_main.py, or the native pytorch stub), loads the model
 * through the ready handshake (with a load timeout), sends batches as binary frames on fd 3 and matches
 * the answers, forwards the stub's stdout/stderr lines to the server log (bounded lines:
 * child-process/bounded-lines.ts), and notices when the process dies.
 *
 * The process leads a process group of its own (child-process/process-group.ts): its death is seen on its
 * 'exit' (not on its pipes closing, which a forked grandchild holding them would delay for ever), and the
 * whole group is killed then, on close and when the server exits, so nothing the model forked outlives it.
 * A batch that runs past the model's execute timeout, or a stub whose memory passes its share
 * (memory-watch.ts), stops the stub with that cause; the supervisor restarts it.
 *
 * The stub takes its messages one at a time, in order, so when it dies only the oldest batch it owed can
 * have begun: that one fails with the cause; the ones queued behind it fail with NotStartedError and may be
 * sent again to the replacement (the same rule as the onnxruntime worker threads).
 *
 * A batch handed over while the stub runs one (the scheduler's prefetch) is written at once, so the stub
 * begins it the moment the one before ends, without a round trip through the server (which left the stub
 * asleep and its caches cold for each batch). Until the stub begins it the scheduler can still take it
 * back (`withdraw`), synchronously: the claim words the stub shares (claim-region.ts) decide which came
 * first, and a batch taken back never begins there.
 */
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { ComputePhases, Tensor } from '@inferscope/core';
import { timerDelayMs } from '@inferscope/core/clock';
import { NotStartedError, failOwed } from '../owed-batches';
import { encodeHeader, FrameReader, FrameTooLargeError, layoutTensors, type Frame, type FromStub, type StubInit, type ToStub, type WireRequest, type WireResponse } from './protocol';
import type { FromStubCall, ToStubCall } from './protocol-calls';
import { tensorBytes } from './tensors';
import { readBoundedLines } from '../../child-process/bounded-lines';
import { killGroup, spawnInGroup, SpawnRefusedError } from '../../child-process/process-group';
import { WholeBatchFailure } from '../isolate-failures';
import { ExecuteDeadline } from './execute-deadline';
import { EXECUTE_TIMEOUT_KEY } from './stub-params';
import { CLAIM_FD, CLAIM_SLOTS, ClaimRegion } from './claim-region';
import type { StubProgram } from './program';

export { NotStartedError };

/** How long the frames a dead stub wrote may take to arrive after its exit. */
const CHANNEL_DRAIN_MS = 2000;

export type StubReady = Extract<FromStub, { type: 'ready' }>;

/** One request of a batch on its way to the stub. */
export interface StubRequest {
  inputs: readonly Tensor[];
  outputs: readonly string[];
  id?: string;
}

export interface StubRunResult {
  responses: WireResponse[];
  /** the frame body the responses' tensors point into */
  body: Uint8Array;
  computeUs: number;
  /** the stub's side of compute_input / compute_output */
  phases?: ComputePhases;
}

type Pending = (error: Error | null, result?: StubRunResult) => void;

export interface StubSpawn {
  program: StubProgram;
  init: StubInit;
  loadTimeoutMs: number;
  /** the model's execute timeout in ms (0 = none) */
  executeTimeoutMs?: number;
  /** environment additions for the stub (thread counts that must be set before torch loads) */
  env?: Record<string, string>;
  /** one line of the stub's stdout/stderr, already prefixed */
  log(line: string): void;
  /**
   * the largest frame the stub may send (--max-inflight-bytes), checked from its prefix before it is read;
   * a stub sending a larger one is stopped, failing the batch it ran, and restarted as after a crash
   */
  maxFrameBytes?: number;
  /** a call into the server or a decoupled response (protocol-calls.ts); answer calls with reply() */
  onCall?(message: FromStubCall, body: Uint8Array): void;
}

export class StubProcess {
  private child: ChildProcess | null = null;
  private channel: Socket | null = null;
  private readonly pending = new Map<number, Pending>();
  /** batches taken back that the stub has not passed yet (it asks about each: `claim`), oldest first */
  private readonly withdrawn = new Set<number>();
  private claims: ClaimRegion | null = null;
  private nextId = 1;
  private closing = false;
  private deathError: Error | null = null;
  private onReady: { resolve(r: StubReady): void; reject(e: Error): void } | null = null;
  private deadline: ExecuteDeadline | null = null;
  /** stopFor() was called: the stub is being killed */
  private stopping = false;
  private exitedResolve!: () => void;
  /** resolves once the process has exited and its pipes have closed */
  readonly exited = new Promise<void>((resolve) => (this.exitedResolve = resolve));

  constructor(
    private readonly label: string,
    /** called once when the process ends without close() having been asked for */
    private readonly onDeath: (error: Error) => void,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** the wire ids of the batches owed, oldest first (diagnostics, tests) */
  owedIds(): number[] {
    return [...this.pending.keys()];
  }

  /** Spawns the stub and loads the model; resolves on its ready message. */
  start(s: StubSpawn): Promise<StubReady> {
    return new Promise<StubReady>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.failStart(new Error(`instance ${this.label}: the stub did not become ready within ${s.loadTimeoutMs / 1000} s`));
        this.killAll();
      }, timerDelayMs(s.loadTimeoutMs));
      timer.unref();
      const settleTimer = (): void => clearTimeout(timer);
      this.onReady = {
        resolve: (r) => (settleTimer(), resolve(r)),
        reject: (e) => (settleTimer(), reject(e)),
      };
      this.deadline = new ExecuteDeadline(s.executeTimeoutMs ?? 0, (id, ms) => {
        if (this.pending.has(id)) {
          this.stopFor(`execute() of instance ${this.label} did not return within ${ms} ms (parameter ${EXECUTE_TIMEOUT_KEY}); its stub was killed`);
        }
      });
      let child: ChildProcess;
      try {
        this.claims = new ClaimRegion();
        const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe', 'pipe'];
        stdio[CLAIM_FD] = this.claims.fd;
        child = spawnInGroup(
          s.program.file,
          s.program.args,
          { stdio, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...s.env } },
          {
            label: `instance ${this.label}`,
            busy: () => (this.pending.size > 0 ? `${this.pending.size} batch${this.pending.size === 1 ? '' : 'es'} owed` : ''),
            stop: (why) => this.stopFor(`instance ${this.label} was stopped: ${why}`),
          },
        );
      } catch (err) {
        this.claims?.close();
        this.failStart(err instanceof SpawnRefusedError ? err : new Error(`cannot start ${s.program.what}: ${(err as Error).message}`));
        return;
      }
      this.child = child;
      let ended = false;
      const end = (how: string): void => {
        if (ended) return;
        ended = true;
        for (const stream of child.stdio) stream?.destroy();
        this.deadline?.stop();
        this.claims?.close();
        const error = this.deathError ?? new Error(`stub process of instance ${this.label} ${how}`);
        this.deathError = error;
        this.failStart(error);
        if (!this.closing && !this.stopping) this.onDeath(error);
        this.failAll(error, true);
        this.exitedResolve();
      };
      child.on('error', (err: NodeJS.ErrnoException) => {
        if (child.pid !== undefined) return; // a failed kill of a live process: its exit still comes
        const hint = err.code === 'ENOENT' ? ` (${s.program.missingHint})` : '';
        this.deathError = new Error(`cannot start ${s.program.what} for instance ${this.label}: ${err.message}${hint}`);
        end('did not start'); // a process that never started has no 'exit'
      });
      for (const stream of [child.stdout, child.stderr]) if (stream) readBoundedLines(stream, s.log);
      const channel = child.stdio[3] as Socket;
      this.channel = channel;
      const reader = new FrameReader<FromStub>((f) => this.onFrame(f, s.onCall), s.maxFrameBytes);
      channel.on('data', (chunk: Buffer) => {
        try {
          reader.push(chunk);
        } catch (err) {
          const what = err instanceof FrameTooLargeError ? 'announced' : 'sent a malformed frame:';
          this.stopFor(`instance ${this.label} ${what} ${(err as Error).message}; its stub was stopped`);
        }
      });
      channel.on('error', () => undefined); // EPIPE after a crash: the process's 'exit' reports it
      const channelClosed = new Promise<void>((resolve) => channel.once('close', () => resolve()));
      // 'exit', not 'close': a grandchild holding the pipes would delay 'close' for ever. The group is
      // killed at exit (spawnInGroup), so the channel closes at once; the frames the stub wrote before
      // dying are read first (bounded wait, should a grandchild have escaped into another group).
      child.once('exit', (code, signal) => {
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, CHANNEL_DRAIN_MS)));
        void Promise.race([channelClosed, late]).then(() => {
          clearTimeout(timer);
          end(how);
        });
      });
      this.send(s.init, []);
    });
  }

  /**
   * Sends one batch; `done` is called exactly once (synchronously when the stub is already dead or stopping).
   * The tensors' data is written straight from the caller's arrays (no copy). Returns the batch's id on
   * the wire (for `withdraw`, and what a decoupled model's responses and a BLS call name it by), or -1
   * when it was refused at once.
   */
  run(requests: readonly StubRequest[], done: Pending): number {
    if (this.stopping) {
      done(new NotStartedError(`instance ${this.label} was being stopped before it began this batch`));
      return -1;
    }
    if (this.deathError || this.closing || !this.channel) {
      done(this.deathError ?? new Error(`instance ${this.label} is stopping`));
      return -1;
    }
    const id = this.nextId++;
    const wire: WireRequest[] = [];
    const chunks: Uint8Array[] = [];
    let end = 0;
    try {
      for (const r of requests) {
        const laid = layoutTensors(r.inputs, tensorBytes, end);
        end = laid.end;
        chunks.push(...laid.chunks);
        wire.push({ inputs: laid.wire, outputs: [...r.outputs], ...(r.id !== undefined ? { id: r.id } : {}) });
      }
    } catch (err) {
      done(err as Error);
      return -1;
    }
    this.pending.set(id, done);
    this.send({ type: 'run', id, requests: wire }, chunks, end);
    this.deadline?.running(this.oldestOwed());
    return id;
  }

  /**
   * Takes back batch `id` if the stub has not begun it: true, and it never begins there and its `done` is
   * never called; false when it has begun (or may have: it then runs, and is answered as usual).
   */
  withdraw(id: number): boolean {
    if (!this.pending.has(id) || this.deathError || this.stopping || this.closing || !this.claims) return false;
    // every batch the stub has not passed yet must be within CLAIM_SLOTS ids (claim-region.ts)
    const oldest = Math.min(this.oldestOwed() ?? id, this.withdrawn.values().next().value ?? id);
    if (id - oldest >= CLAIM_SLOTS || !this.claims.takeBack(id)) return false;
    this.pending.delete(id);
    this.withdrawn.add(id);
    return true;
  }

  /** Whether the stub has begun batch `id` (diagnostics, tests). */
  begun(id: number): boolean {
    return this.claims?.begun(id) ?? false;
  }

  /** Answers a call of the stub (or tells it of a cancellation), with tensors in the frame body. */
  reply(message: ToStubCall, tensors: readonly Tensor[] = []): void {
    if (this.deathError || !this.channel) return;
    const laid = layoutTensors(tensors, tensorBytes);
    if (message.type === 'blsResponse' && tensors.length > 0) message.outputs = laid.wire;
    this.send(message, laid.chunks, laid.end);
  }

  /**
   * Stops the stub because of `cause` (its execute timeout passed, its memory passed its share): the batch
   * it was running fails with the cause, as a whole (running it again in parts would meet the same end),
   * those queued behind it go to the replacement the supervisor starts.
   */
  stopFor(cause: string): void {
    if (!this.child) return;
    const first = !this.stopping;
    this.stopping = true;
    this.deathError ??= new WholeBatchFailure(cause);
    this.killAll();
    // Replaced now, not at its exit: no batch is handed to a stub that is being killed.
    if (first && !this.closing) this.onDeath(this.deathError);
  }

  /** SIGKILL to the stub and everything in its group (what the model forked). */
  private killAll(): void {
    if (this.child?.pid !== undefined) killGroup(this.child.pid, 'SIGKILL');
    this.child?.kill('SIGKILL');
  }

  /**
   * Asks the stub to finalize and exit after the batches already sent; after `graceMs` it is killed
   * (SIGKILL is safe for a process, unlike terminating a thread inside onnxruntime). Resolves once the
   * process is gone and reaped.
   */
  async close(graceMs = 5000): Promise<void> {
    if (!this.child) return;
    if (!this.closing) {
      this.closing = true;
      if (this.child.exitCode === null && this.child.signalCode === null) this.send({ type: 'close' }, []);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
    const outcome = await Promise.race([this.exited.then(() => 'gone' as const), late]);
    clearTimeout(timer);
    if (outcome === 'late') {
      this.killAll();
      this.failAll(new Error(`instance ${this.label} did not stop within ${graceMs} ms and was killed`));
      await this.exited;
    }
  }

  private send(message: ToStub, chunks: Uint8Array[], bodyBytes = 0): void {
    const channel = this.channel;
    if (!channel || channel.destroyed) return;
    // cork/uncork: header and tensor chunks leave in one writev, without joining them into one buffer.
    channel.cork();
    channel.write(encodeHeader(message, bodyBytes));
    for (const c of chunks) channel.write(c);
    channel.uncork();
  }

  private onFrame({ message: m, body }: Frame<FromStub>, onCall: StubSpawn['onCall']): void {
    switch (m.type) {
      case 'ready': {
        const r = this.onReady;
        this.onReady = null;
        r?.resolve(m);
        return;
      }
      case 'initError':
        this.failStart(new Error(m.message));
        return;
      case 'claim':
        // the stub saw "taken back" on batch m.id: skip it only if withdraw() said so (claim-region.ts)
        this.reply({ type: 'callReply', call: m.call, value: this.withdrawn.delete(m.id) ? 0 : 1 });
        return;
      case 'result':
      case 'runError': {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        this.deadline?.running(this.oldestOwed());
        if (m.type === 'result') p(null, { responses: m.responses, body, computeUs: m.computeUs, phases: { inputUs: m.inputUs ?? 0, outputUs: m.outputUs ?? 0 } });
        else p(new Error(m.message));
        return;
      }
      default:
        onCall?.(m, body);
    }
  }

  /** the batch the stub runs now: it takes them one at a time, in the order sent */
  private oldestOwed(): number | undefined {
    for (const id of this.pending.keys()) return id;
    return undefined;
  }

  private failStart(error: Error): void {
    const r = this.onReady;
    this.onReady = null;
    r?.reject(error);
  }

  /**
   * See the file comment: the oldest owed batch gets the cause, the rest NotStartedError. A stub still
   * before a batch taken back (waiting to hear it may skip it) began none of those owed after it.
   */
  private failAll(error: Error, died = false): void {
    const owed = [...this.pending.values()];
    const blocked = (this.withdrawn.values().next().value ?? Infinity) < (this.oldestOwed() ?? Infinity);
    this.pending.clear();
    this.withdrawn.clear();
    if (died && blocked) {
      const notStarted = new NotStartedError(`instance ${this.label} died before it began this batch`);
      for (const p of owed) p(notStarted);
      return;
    }
    failOwed(owed, error, died, this.label);
  }
}
