/**
 * Triton's request traces (TIMESTAMPS level), produced from the scheduler's own event stream: every
 * `trace_rate`-th request of a model with tracing on is followed from `request.queued` to its answer, and
 * written in Triton's trace-file format (a JSON array: one entry with the model and request, one with the
 * timestamps, both under the trace's id), so Triton's trace tooling (trace_summary.py and the like) reads
 * it. Timestamps are nanoseconds on the scheduler's monotonic clock.
 *
 * Mapping: REQUEST_START = QUEUE_START = request.queued; COMPUTE_START = batch.started of its batch;
 * COMPUTE_INPUT_END = COMPUTE_START + the batch's input time; COMPUTE_OUTPUT_START = COMPUTE_END - its
 * output time; COMPUTE_END = batch.completed; REQUEST_END = request.completed (or request.rejected,
 * which has no compute timestamps). Not traced here: HTTP_RECV/SEND (the front end is not on the bus).
 * A traced ensemble request brings its step requests into the trace (announced by ensemble.step), each
 * with `parent_id` = the ensemble's trace id, as Triton writes them.
 * A request that answers many times (a decoupled model) gets one INFER_RESPONSE timestamp per response
 * (request.response; a custom activity name, as Triton's trace API allows: its own per-response points
 * are the front ends' GRPC_SEND / HTTP_SEND, which are not on the bus), and its trace is written when
 * its final response left, which may be after REQUEST_END (execute() returned).
 */
import { writeFile } from 'node:fs/promises';
import type { EventBus, SchedulerEvent } from '@inferscope/core';
import type { TraceSettings } from './trace-settings';

interface Open {
  id: number;
  /** a step request of a traced ensemble request: that trace's id (Triton's parent_id) */
  parentId?: number;
  model: string;
  version: string;
  requestId: string;
  queuedT: number;
  /** INFER_RESPONSE timestamps so far, and whether the final one came */
  responses?: Array<[string, number]>;
  finalSeen?: boolean;
  /** the timestamps up to REQUEST_END of a decoupled request still sending responses */
  parked?: Array<[string, number]>;
}

interface BatchTimes {
  started?: number;
  completed?: number;
  inputUs: number;
  outputUs: number;
  /** traced requests of this batch not yet answered */
  pending: number;
}

export type TraceEntry =
  | { id: number; model_name: string; model_version: number; request_id: string; parent_id?: number }
  | { id: number; timestamps: Array<{ name: string; ns: number }> };

/** Most finished traces held in memory before they are written even with log_frequency 0. */
const MAX_BUFFERED = 50_000;

/**
 * What one server writes in trace files at most, whatever the settings (any token holder may set
 * trace_rate 1 and log_frequency 1: one file per request). Past either bound the tracer writes no more
 * and says so once in the log; the traces are dropped (counted in `dropped`).
 */
export const TRACE_LIMITS = { files: 1000, bytes: 1024 * 1024 * 1024 };

export class Tracer {
  private nextId = 1;
  private readonly seen = new Map<string, number>();
  private readonly open = new Map<string, Open>();
  private readonly batches = new Map<string, BatchTimes>();
  /** step requests announced by a traced ensemble request (ensemble.step), until their request.queued */
  private readonly children = new Map<string, number>();
  private buffer: TraceEntry[] = [];
  private fileIndex = 0;
  private writing: Promise<void> = Promise.resolve();
  private readonly off: () => void;
  /** traces collected since start, for the stats and tests */
  collected = 0;
  /** traces not kept: no trace file to write them to, or past TRACE_LIMITS */
  dropped = 0;
  private filesWritten = 0;
  private bytesWritten = 0;
  private warned = false;
  private readonly limits: { files: number; bytes: number };

  constructor(
    bus: EventBus,
    private readonly settings: TraceSettings,
    private readonly log: (msg: string) => void = () => {},
    limits: { files: number; bytes: number } = TRACE_LIMITS,
    /** whether a model version answers many times (decoupled): its traces wait for the final response */
    private readonly answersMany: (model: string, version: string) => boolean = () => false,
  ) {
    this.limits = { ...limits }; // read once, when the server is built
    this.off = bus.on((e) => this.onEvent(e));
  }

  /** finished traces held in memory, not yet written */
  get buffered(): number {
    return this.buffer.length / 2;
  }

  private key(model: string, version: string, id: string): string {
    return `${model}\u0000${version}\u0000${id}`;
  }

  private onEvent(e: SchedulerEvent): void {
    // Tracing off and nothing in flight: the hot path pays one check per event.
    if (!this.settings.anyOn && this.open.size === 0) return;
    switch (e.type) {
      case 'ensemble.step': {
        // As Triton: the composing requests of a traced ensemble request are traced too, as its children.
        const parent = this.open.get(this.key(e.parent.model, e.parent.version, e.parent.request_id));
        if (!parent) return;
        // bounded: a step whose model vanished before queueing it leaves its entry behind
        if (this.children.size >= MAX_BUFFERED) this.children.delete(this.children.keys().next().value!);
        this.children.set(this.key(e.model, e.version, e.request_id), parent.id);
        return;
      }
      case 'request.queued': {
        if (this.children.size > 0) {
          const k = this.key(e.model, e.version, e.request_id);
          const parentId = this.children.get(k);
          if (parentId !== undefined) {
            this.children.delete(k);
            this.open.set(k, { id: this.nextId++, parentId, model: e.model, version: e.version, requestId: e.request_id, queuedT: e.t });
            return;
          }
        }
        const s = this.settings.get(e.model);
        if (s.trace_level[0] === 'OFF' || s.trace_count === 0) return;
        const n = (this.seen.get(e.model) ?? 0) + 1;
        this.seen.set(e.model, n);
        if (n % s.trace_rate !== 0) return;
        this.settings.consumeCount(e.model);
        this.open.set(this.key(e.model, e.version, e.request_id), { id: this.nextId++, model: e.model, version: e.version, requestId: e.request_id, queuedT: e.t });
        return;
      }
      case 'batch.formed': {
        let traced = 0;
        for (const r of e.request_ids) if (this.open.has(this.key(e.model, e.version, r))) traced++;
        if (traced) this.batches.set(e.batch_id, { inputUs: 0, outputUs: 0, pending: traced });
        return;
      }
      case 'batch.started': {
        const b = this.batches.get(e.batch_id);
        if (b) b.started = e.t;
        return;
      }
      case 'batch.completed': {
        const b = this.batches.get(e.batch_id);
        if (!b) return;
        b.completed = e.t;
        const times = e as { compute_input_us?: number; compute_output_us?: number };
        b.inputUs = times.compute_input_us ?? 0;
        b.outputUs = times.compute_output_us ?? 0;
        return;
      }
      case 'request.completed':
      case 'request.rejected': {
        const k = this.key(e.model, e.version, e.request_id);
        if (this.children.size > 0) this.children.delete(k); // a step refused before it was queued
        const o = this.open.get(k);
        if (!o) return;
        this.open.delete(k);
        const ts: Array<[string, number]> = [['REQUEST_START', o.queuedT], ['QUEUE_START', o.queuedT]];
        if (e.type === 'request.completed') {
          const b = this.batches.get(e.batch_id);
          if (b?.started !== undefined && b.completed !== undefined) {
            ts.push(['COMPUTE_START', b.started], ['COMPUTE_INPUT_END', b.started + b.inputUs],
              ['COMPUTE_OUTPUT_START', b.completed - b.outputUs], ['COMPUTE_END', b.completed]);
          }
          if (b && --b.pending <= 0) this.batches.delete(e.batch_id);
        }
        ts.push(['REQUEST_END', e.t]);
        if (e.type === 'request.completed' && e.ok && !o.finalSeen && this.answersMany(e.model, e.version)) {
          o.parked = ts; // its responses are still coming: the final one writes the trace
          this.open.set(k, o);
          return;
        }
        this.finish(o, o.responses ? [...ts, ...o.responses].sort((a, b) => a[1] - b[1]) : ts);
        return;
      }
      case 'request.response': {
        const k = this.key(e.model, e.version, e.request_id);
        const o = this.open.get(k);
        if (!o) return;
        (o.responses ??= []).push(['INFER_RESPONSE', e.t]);
        if (!e.final) return;
        o.finalSeen = true;
        if (!o.parked) return;
        this.open.delete(k);
        this.finish(o, [...o.parked, ...o.responses].sort((a, b) => a[1] - b[1]));
        return;
      }
      default:
    }
  }

  private finish(o: Open, ts: Array<[string, number]>): void {
    this.collected++;
    // No file (tracing switched on over the network, where trace_file cannot be set), or the bounds were
    // reached: nothing would ever write the trace, so it is not kept.
    if (!this.settings.get().trace_file || this.full()) {
      this.dropped++;
      return;
    }
    const version = Number(o.version);
    this.buffer.push(
      { id: o.id, model_name: o.model, model_version: Number.isFinite(version) ? version : 0, request_id: o.requestId, ...(o.parentId !== undefined ? { parent_id: o.parentId } : {}) },
      { id: o.id, timestamps: ts.map(([name, us]) => ({ name, ns: Math.round(us * 1000) })) },
    );
    const s = this.settings.get(o.model);
    const traces = this.buffer.length / 2;
    if ((s.log_frequency > 0 && traces >= s.log_frequency) || traces >= MAX_BUFFERED) void this.flush(s.log_frequency > 0 || traces >= MAX_BUFFERED);
  }

  /**
   * Writes what was collected. With a log frequency each batch of traces goes to `<file>.<n>` (Triton's
   * naming); otherwise everything goes to `<file>` at the end.
   */
  flush(numbered = this.settings.get().log_frequency > 0): Promise<void> {
    const file = this.settings.get().trace_file;
    if (!file || this.buffer.length === 0) return this.writing;
    const entries = this.buffer;
    this.buffer = [];
    const text = JSON.stringify(entries);
    const bytes = Buffer.byteLength(text);
    if (this.full(bytes)) {
      this.dropped += entries.length / 2;
      return this.writing;
    }
    this.filesWritten++;
    this.bytesWritten += bytes;
    const path = numbered ? `${file}.${this.fileIndex++}` : file;
    this.writing = this.writing.then(() =>
      writeFile(path, text).catch((err: Error) => this.log(`trace: cannot write ${path}: ${err.message}`)),
    );
    return this.writing;
  }

  /** Whether writing `bytes` more would pass TRACE_LIMITS; warns once when it first does. */
  private full(bytes = 0): boolean {
    const over = this.filesWritten >= this.limits.files || this.bytesWritten + bytes > this.limits.bytes;
    if (over && !this.warned) {
      this.warned = true;
      this.log(`trace: stopped writing trace files: ${this.filesWritten} files, ${this.bytesWritten} bytes written, the bound is ${this.limits.files} files or ${this.limits.bytes} bytes per server run; further traces are dropped`);
    }
    return over;
  }

  /** Stops listening and writes the remaining traces. */
  async close(): Promise<void> {
    this.off();
    await this.flush();
  }
}
