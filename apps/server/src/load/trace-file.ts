/**
 * Trace files on disk: NDJSON, a header line then one arrival per line (the trace format of core's load
 * module: {format:'inferscope-trace', version:1} header; {t_us, model, version?, priority?, batch_size,
 * shape?, id?} arrivals). Parsing reports the line number of the first bad line.
 */
import { readFile } from 'node:fs/promises';
import type { LoadArrival } from './runner';

export const TRACE_FORMAT = 'inferscope-trace';
export const TRACE_VERSION = 1;

export interface TraceHeader {
  format: typeof TRACE_FORMAT;
  version: number;
  created?: string;
  source?: string;
  [k: string]: unknown;
}

export interface Trace {
  header: TraceHeader;
  arrivals: LoadArrival[];
}

export function traceHeaderLine(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ format: TRACE_FORMAT, version: TRACE_VERSION, created: new Date().toISOString(), ...extra });
}

export function arrivalLine(a: LoadArrival & { id?: string }): string {
  return JSON.stringify(a);
}

function bad(line: number, msg: string): Error {
  return new Error(`trace line ${line}: ${msg}`);
}

export function parseTrace(text: string): Trace {
  const lines = text.split('\n');
  let header: TraceHeader | undefined;
  const arrivals: LoadArrival[] = [];
  let prev = -Infinity;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      throw bad(i + 1, 'not valid JSON');
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(i + 1, 'expected a JSON object');
    const o = v as Record<string, unknown>;
    if (!header) {
      if (o.format !== TRACE_FORMAT) throw bad(i + 1, `expected the header {"format":"${TRACE_FORMAT}",...}`);
      if (o.version !== TRACE_VERSION) throw bad(i + 1, `unsupported trace version ${JSON.stringify(o.version)}`);
      header = o as TraceHeader;
      continue;
    }
    if (typeof o.t_us !== 'number' || !Number.isFinite(o.t_us) || o.t_us < 0) throw bad(i + 1, "'t_us' must be a non-negative number");
    if (o.t_us < prev) throw bad(i + 1, "'t_us' goes backwards");
    prev = o.t_us;
    if (typeof o.model !== 'string' || o.model === '') throw bad(i + 1, "'model' must be a non-empty string");
    if (typeof o.batch_size !== 'number' || !Number.isInteger(o.batch_size) || o.batch_size < 1) throw bad(i + 1, "'batch_size' must be a positive integer");
    if (o.version !== undefined && typeof o.version !== 'string') throw bad(i + 1, "'version' must be a string");
    if (o.priority !== undefined && (typeof o.priority !== 'number' || !Number.isInteger(o.priority) || o.priority < 0)) throw bad(i + 1, "'priority' must be a non-negative integer");
    if (o.shape !== undefined && (!Array.isArray(o.shape) || o.shape.some((d) => !Number.isInteger(d) || (d as number) < 0)))
      throw bad(i + 1, "'shape' must be a list of non-negative integers");
    const a: LoadArrival = { t_us: o.t_us, model: o.model, batch_size: o.batch_size };
    if (o.version !== undefined) a.version = o.version as string;
    if (o.priority !== undefined) a.priority = o.priority as number;
    if (o.shape !== undefined) a.shape = o.shape as number[];
    arrivals.push(a);
  }
  if (!header) throw new Error('trace is empty: expected a header line');
  return { header, arrivals };
}

export async function readTraceFile(path: string): Promise<Trace> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read trace ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return parseTrace(text);
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
}
