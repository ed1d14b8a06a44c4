/**
 * Trace files on disk, in core's trace format (packages/core/src/load/trace.ts): reading with the file name
 * in every error, and the header line a recorder starts with.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parseTrace, TraceError, TraceReader, type Arrival, type Trace, type TraceHeader, type TraceSummary } from '@inferscope/core/load';
import { checkRegular, READ_LIMITS, readRegularText, UnsafeFileError } from '../repository/safe-read';

export function traceHeaderLine(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ format: 'inferscope-trace', version: 1, created: new Date().toISOString(), ...extra });
}

/** Whole-file read for the CLI: a regular file within the trace cap (a FIFO or /dev/zero is refused). */
export async function readTraceFile(path: string): Promise<Trace> {
  let text: string;
  try {
    text = await readRegularText(path, READ_LIMITS.trace);
  } catch (err) {
    const why = err instanceof UnsafeFileError ? err.message : (err as NodeJS.ErrnoException).code ?? String(err);
    throw new Error(`cannot read trace ${path}: ${why}`);
  }
  try {
    return parseTrace(text);
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
}

/** A trace's arrivals read line by line (a replay never holds the file), each error naming file and line. */
/** `read`: called once the whole file was read, with its header and (a recording's) summary line. */
export async function* streamTraceFile(path: string, opts: { model?: string; read?: (header: TraceHeader, summary: TraceSummary | undefined) => void } = {}): AsyncGenerator<Arrival> {
  let handle: FileHandle;
  try {
    // not through a symlink: a replay reads recordings, not whatever a link planted in the folder points at;
    // O_NONBLOCK and the regular-file check: a FIFO there must not park a thread-pool thread (safe-read.ts).
    // Streamed, so no size cap here: the run limit counts arrivals.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`cannot read trace ${path}: ${code === 'ELOOP' ? 'it is a symbolic link, only regular files are read here' : code ?? String(err)}`);
  }
  try {
    checkRegular(path, await handle.stat(), Number.MAX_SAFE_INTEGER);
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw new Error(`cannot read trace ${path}: ${(err as Error).message}`);
  }
  const lines = createInterface({ input: handle.createReadStream({ encoding: 'utf8' }), crlfDelay: Infinity });
  const reader = new TraceReader();
  let n = 0;
  try {
    for await (const line of lines) {
      let a: Arrival | undefined;
      try {
        a = reader.line(line, ++n);
      } catch (err) {
        throw new Error(`${path}: ${(err as Error).message}`);
      }
      // Replaying onto another model: same arrival pattern, the target model's inputs.
      if (a) yield opts.model ? { ...a, model: opts.model, version: undefined } : a;
    }
    opts.read?.(reader.end(), reader.summary);
  } catch (err) {
    throw err instanceof TraceError ? new Error(`${path}: ${err.message}`) : err;
  } finally {
    lines.close();
    await handle.close().catch(() => undefined);
  }
}

export interface TraceFacts {
  arrivals: number;
  /** distinct models, '' for arrivals that name none */
  models: string[];
  last_t_us: number;
  /** the trace's header (a recording's: model, version, config, scenario) and its summary line, if any */
  header: TraceHeader;
  summary?: TraceSummary;
}

/** One streaming pass over a trace: how many arrivals, to which models, how long (before replaying it). */
export async function scanTraceFile(path: string, opts: { model?: string; maxModels?: number } = {}): Promise<TraceFacts> {
  const models = new Set<string>();
  let arrivals = 0;
  let last = 0;
  let meta: { header: TraceHeader; summary?: TraceSummary } | undefined;
  const read = (header: TraceHeader, summary: TraceSummary | undefined) => { meta = summary ? { header, summary } : { header }; };
  for await (const a of streamTraceFile(path, { ...opts, read })) {
    arrivals++;
    last = a.t_us;
    models.add(a.model);
    if (models.size > (opts.maxModels ?? 64)) throw new Error(`${path}: arrivals for more than ${opts.maxModels ?? 64} models`);
  }
  return { arrivals, models: [...models], last_t_us: last, ...meta! };
}
