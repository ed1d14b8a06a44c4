/**
 * The server's side of one stub process (one model instance): spawns the Python interpreter on
 * apps/server/python/stub_main.py, loads the model through the ready handshake (with a load timeout),
 * sends batches as binary frames on fd 3 and matches the answers, forwards the stub's stdout/stderr lines
 * to the server log, and notices when the process dies.
 *
 * The stub takes its messages one at a time, in order, so when it dies only the oldest batch it owed can
 * have begun: that one fails with the cause; the ones queued behind it fail with NotStartedError and may be
 * sent again to the replacement (the same rule as the onnxruntime worker threads).
 *
 * A batch handed over while the stub runs one (the scheduler's prefetch) is encoded at once but written
 * only when the stub answers the batch before: the stub's answer is its request for the next. Until then
 * the scheduler can take it back (`withdraw`), synchronously, which a frame already in the socket would
 * not allow; it is written before that answer reaches the scheduler, so the stub is not kept waiting for
 * the answer's processing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ComputePhases, Tensor } from '@inferscope/core';
import { NotStartedError, failOwed } from '../owed-batches';
import { encodeHeader, FrameReader, layoutTensors, type Frame, type FromStub, type StubInit, type ToStub, type WireRequest, type WireResponse } from './protocol';
import { tensorBytes } from './tensors';

export { NotStartedError };

export const STUB_MAIN = fileURLToPath(new URL('../../../python/stub_main.py', import.meta.url));

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

/** A run frame encoded but not written yet: it waits for the stub to answer the batch before it. */
interface HeldFrame {
  id: number;
  message: Extract<ToStub, { type: 'run' }>;
  chunks: Uint8Array[];
  bodyBytes: number;
}

export interface StubSpawn {
  python: string;
  init: StubInit;
  loadTimeoutMs: number;
  /** environment additions for the interpreter (thread counts that must be set before imports) */
  env?: Record<string, string>;
  /** one line of the stub's stdout/stderr, already prefixed */
  log(line: string): void;
}

export class StubProcess {
  private child: ChildProcess | null = null;
  private channel: Socket | null = null;
  private readonly pending = new Map<number, Pending>();
  /** run frames behind the one the stub is running, oldest first (see the file comment) */
  private held: HeldFrame[] = [];
  private nextId = 1;
  private closing = false;
  private deathError: Error | null = null;
  private onReady: { resolve(r: StubReady): void; reject(e: Error): void } | null = null;
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

  /** Spawns the stub and loads the model; resolves on its ready message. */
  start(s: StubSpawn): Promise<StubReady> {
    return new Promise<StubReady>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.failStart(new Error(`instance ${this.label}: the stub did not become ready within ${s.loadTimeoutMs / 1000} s`));
        this.child?.kill('SIGKILL');
      }, s.loadTimeoutMs);
      timer.unref();
      const settleTimer = (): void => clearTimeout(timer);
      this.onReady = {
        resolve: (r) => (settleTimer(), resolve(r)),
        reject: (e) => (settleTimer(), reject(e)),
      };
      let child: ChildProcess;
      try {
        // -u: unbuffered stdout/stderr, so the model's prints reach the log line by line as they happen.
        child = spawn(s.python, ['-u', STUB_MAIN], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...s.env } });
      } catch (err) {
        this.failStart(new Error(`cannot start the Python interpreter '${s.python}': ${(err as Error).message}`));
        return;
      }
      this.child = child;
      child.on('error', (err: NodeJS.ErrnoException) => {
        const hint = err.code === 'ENOENT' ? ' (no such interpreter: set --python or INFERSCOPE_PYTHON)' : '';
        this.deathError = new Error(`cannot start the Python interpreter '${s.python}' for instance ${this.label}: ${err.message}${hint}`);
        this.failStart(this.deathError);
      });
      for (const stream of [child.stdout, child.stderr]) {
        if (stream) createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => s.log(line));
      }
      const channel = child.stdio[3] as Socket;
      this.channel = channel;
      const reader = new FrameReader<FromStub>((f) => this.onFrame(f));
      channel.on('data', (chunk: Buffer) => {
        try {
          reader.push(chunk);
        } catch (err) {
          this.deathError = new Error(`instance ${this.label} sent a malformed frame: ${(err as Error).message}`);
          child.kill('SIGKILL');
        }
      });
      channel.on('error', () => undefined); // EPIPE after a crash: the 'close' of the process reports it
      // 'close', not 'exit': every frame the stub wrote before dying has been read by then.
      child.on('close', (code, signal) => {
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        const error = this.deathError ?? new Error(`stub process of instance ${this.label} ${how}`);
        this.deathError = error;
        this.failStart(error);
        if (!this.closing) this.onDeath(error);
        this.failAll(error, true);
        this.exitedResolve();
      });
      this.send(s.init, []);
    });
  }

  /**
   * Sends one batch; `done` is called exactly once (synchronously when the stub is already dead or stopping).
   * The tensors' data is written straight from the caller's arrays (no copy). Returns the batch's id (for
   * `withdraw`), 0 when it was refused at once.
   */
  run(requests: readonly StubRequest[], done: Pending): number {
    if (this.deathError || this.closing || !this.channel) {
      done(this.deathError ?? new Error(`instance ${this.label} is stopping`));
      return 0;
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
      return 0;
    }
    const busy = this.pending.size > 0;
    this.pending.set(id, done);
    const frame: HeldFrame = { id, message: { type: 'run', id, requests: wire }, chunks, bodyBytes: end };
    if (busy) this.held.push(frame);
    else this.send(frame.message, frame.chunks, frame.bodyBytes);
    return id;
  }

  /**
   * Takes back batch `id` if it is still held here, not written to the stub: true, and its `done` is never
   * called; false when the stub has it (it runs, or will next).
   */
  withdraw(id: number): boolean {
    const i = this.held.findIndex((f) => f.id === id);
    if (i < 0) return false;
    this.held.splice(i, 1);
    this.pending.delete(id);
    return true;
  }

  /** The stub answered a batch: write the next held one now, before the answer is processed here. */
  private sendNextHeld(): void {
    const next = this.held.shift();
    if (next) this.send(next.message, next.chunks, next.bodyBytes);
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
      // held batches were promised to this stub: it runs them before it finalizes
      for (const f of this.held.splice(0)) this.send(f.message, f.chunks, f.bodyBytes);
      if (this.child.exitCode === null && this.child.signalCode === null) this.send({ type: 'close' }, []);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
    const outcome = await Promise.race([this.exited.then(() => 'gone' as const), late]);
    clearTimeout(timer);
    if (outcome === 'late') {
      this.child.kill('SIGKILL');
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

  private onFrame({ message: m, body }: Frame<FromStub>): void {
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
      case 'result':
      case 'runError': {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        this.sendNextHeld();
        if (m.type === 'result') p(null, { responses: m.responses, body, computeUs: m.computeUs, phases: { inputUs: m.inputUs ?? 0, outputUs: m.outputUs ?? 0 } });
        else p(new Error(m.message));
        return;
      }
    }
  }

  private failStart(error: Error): void {
    const r = this.onReady;
    this.onReady = null;
    r?.reject(error);
  }

  /** See the file comment: the oldest owed batch gets the cause, the rest NotStartedError. */
  private failAll(error: Error, died = false): void {
    const owed = [...this.pending.values()];
    this.pending.clear();
    this.held = []; // owed too (never written): NotStartedError, sent again to the replacement
    failOwed(owed, error, died, this.label);
  }
}
