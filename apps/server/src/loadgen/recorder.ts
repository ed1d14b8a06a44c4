/**
 * Records the arrivals of live traffic, whatever sends it (the load generator, curl, a real client),
 * by listening for `request.queued` on the event bus, into a trace file under the recordings folder.
 *
 * Writes are buffered and flushed on a timer: bus listeners run on the scheduler's hot path.
 *
 * Two things a recording must never do silently: lose arrivals and share a file. A write that fails (the
 * disk is full) is kept as `error`, shown in the load progress and the stop acknowledgement next to how
 * many arrivals reached the file (`written`). Names are taken exclusively (O_EXCL): two recordings
 * started in the same millisecond get `name.ndjson` and `name-2.ndjson`, never one file between them.
 */
import { closeSync, constants, createWriteStream, mkdirSync, openSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { EventBus, SchedulerEvent } from '@inferscope/core';
import { arrivalLine, summaryLine, type TraceSummary } from '@inferscope/core/load';
import { traceHeaderLine } from './trace-file';
import type { LoadArrival } from './runner';

export interface RecordingInfo {
  name: string;
  path: string;
  /** arrivals captured */
  arrivals: number;
  /** arrivals confirmed on disk (a lower bound: a write that failed part-way may have left some lines) */
  written: number;
  /** the first write failure, e.g. "ENOSPC: no space left on device, write" */
  error?: string;
}

const EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Opens `dir/name` exclusively, or `name-2`, `name-3`, ... when taken. Returns the name and the fd. */
function openUnique(dir: string, name: string): { name: string; fd: number } {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${stem}-${n}${ext}`;
    try {
      return { name: candidate, fd: openSync(join(dir, candidate), EXCLUSIVE, 0o644) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 1000) throw err;
    }
  }
}

/** The KServe front end's shape key is 'x'-joined dims per variable input; the first one is the arrival's shape. */
export function shapeFromKey(key: string | undefined): number[] | undefined {
  if (!key) return undefined;
  const dims = key.split(';')[0].split('x').map(Number);
  return dims.every((d) => Number.isInteger(d) && d >= 0) ? dims : undefined;
}

export function timestampName(prefix = 'rec'): string {
  return `${prefix}-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`;
}

export class Recorder {
  private out: WriteStream;
  private buffer: string[] = [];
  private first: number | undefined;
  private count = 0;
  private writtenCount = 0;
  private failure: string | undefined;
  private off: () => void;
  private timer: NodeJS.Timeout;
  readonly path: string;
  /** the file name actually taken (the requested one, or with a -N suffix) */
  readonly name: string;
  private finished: Promise<RecordingInfo> | undefined;
  /** the step request an ensemble just announced (its request.queued is next) */
  private stepRequest: string | undefined;

  /** `models`: record only these (all when absent). */
  constructor(
    bus: EventBus,
    readonly dir: string,
    requestedName: string = timestampName(),
    private readonly models?: ReadonlySet<string>,
    meta: Record<string, unknown> = {},
  ) {
    mkdirSync(dir, { recursive: true });
    const { name, fd } = openUnique(dir, requestedName);
    this.name = name;
    this.path = join(dir, name);
    try {
      this.out = createWriteStream(this.path, { fd });
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    this.out.on('error', (err) => {
      this.failure ??= err.message;
    });
    this.out.write(traceHeaderLine({ source: 'recorder', ...meta }) + '\n');
    this.off = bus.on((e) => this.onEvent(e));
    this.timer = setInterval(() => this.flush(), 200);
    this.timer.unref?.();
  }

  /** the first write failure, if any */
  get error(): string | undefined {
    return this.failure;
  }

  /** arrivals whose lines have reached the file */
  get written(): number {
    return this.writtenCount;
  }

  private onEvent(e: SchedulerEvent): void {
    // An ensemble's step requests are not arrivals: replaying the ensemble's arrivals makes them again.
    // Each one's request.queued follows its ensemble.step at once (same call), so one slot is enough.
    if (e.type === 'ensemble.step') {
      this.stepRequest = `${e.model}\0${e.version}\0${e.request_id}`;
      return;
    }
    if (e.type !== 'request.queued') return;
    if (this.stepRequest !== undefined) {
      const isStep = this.stepRequest === `${e.model}\0${e.version}\0${e.request_id}`;
      this.stepRequest = undefined;
      if (isStep) return;
    }
    if (this.models && !this.models.has(e.model)) return;
    if (this.first === undefined) this.first = e.t;
    const a: LoadArrival = { t_us: Math.round(e.t - this.first), model: e.model, version: e.version, batch_size: e.batch_size };
    if (e.priority) a.priority = e.priority;
    const shape = shapeFromKey(e.shape_key);
    if (shape) a.shape = shape;
    this.buffer.push(arrivalLine(a));
    this.count++;
  }

  private flush(): void {
    if (this.buffer.length === 0 || this.failure !== undefined) {
      this.buffer = [];
      return;
    }
    const lines = this.buffer;
    this.buffer = [];
    this.out.write(lines.join('\n') + '\n', (err) => {
      if (err) this.failure ??= err.message;
      else if (this.failure === undefined) this.writtenCount += lines.length;
    });
  }

  get arrivals(): number {
    return this.count;
  }

  info(): RecordingInfo {
    return { name: this.name, path: this.path, arrivals: this.count, written: this.writtenCount, ...(this.failure ? { error: this.failure } : {}) };
  }

  /**
   * Stops recording; resolves once the file is closed, with the write failure (if any) in `error`.
   * `summary`: what the recorded run measured, written as the file's last line (core's summaryLine).
   */
  stop(summary?: TraceSummary): Promise<RecordingInfo> {
    if (!this.finished) {
      this.off();
      clearInterval(this.timer);
      this.flush();
      if (summary && !this.out.destroyed) this.out.write(summaryLine(summary) + '\n');
      this.finished = new Promise((resolve) => {
        const done = () => resolve(this.info());
        if (this.out.destroyed) return done();
        this.out.once('error', (err) => {
          this.failure ??= err.message;
          done();
        });
        this.out.end(done);
      });
    }
    return this.finished;
  }
}
