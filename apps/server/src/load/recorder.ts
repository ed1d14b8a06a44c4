/**
 * Records the arrivals of live traffic, whatever sends it (the load generator, curl, a real client),
 * by listening for `request.queued` on the event bus, into a trace file under the recordings folder.
 *
 * Writes are buffered and flushed on a timer: bus listeners run on the scheduler's hot path.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { EventBus, SchedulerEvent } from '@inferscope/core';
import { arrivalLine } from '@inferscope/core/load/index.ts';
import { traceHeaderLine } from './trace-file';
import type { LoadArrival } from './runner';

export interface RecordingInfo {
  name: string;
  path: string;
  arrivals: number;
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
  private off: () => void;
  private timer: NodeJS.Timeout;
  readonly path: string;
  private finished: Promise<RecordingInfo> | undefined;
  /** the step request an ensemble just announced (its request.queued is next) */
  private stepRequest: string | undefined;

  /** `models`: record only these (all when absent). */
  constructor(
    bus: EventBus,
    readonly dir: string,
    readonly name: string = timestampName(),
    private readonly models?: ReadonlySet<string>,
    meta: Record<string, unknown> = {},
  ) {
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, name);
    this.out = createWriteStream(this.path, { flags: 'wx' });
    this.out.on('error', () => {}); // surfaced by stop()
    this.buffer.push(traceHeaderLine({ source: 'recorder', ...meta }));
    this.off = bus.on((e) => this.onEvent(e));
    this.timer = setInterval(() => this.flush(), 200);
    this.timer.unref?.();
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
    if (this.buffer.length === 0) return;
    this.out.write(this.buffer.join('\n') + '\n');
    this.buffer = [];
  }

  get arrivals(): number {
    return this.count;
  }

  stop(): Promise<RecordingInfo> {
    if (!this.finished) {
      this.off();
      clearInterval(this.timer);
      this.flush();
      this.finished = new Promise((resolve, reject) => {
        this.out.once('error', reject);
        this.out.end(() => resolve({ name: this.name, path: this.path, arrivals: this.count }));
      });
    }
    return this.finished;
  }
}
