/**
 * Recorded arrivals as NDJSON: a header line {format:'inferscope-trace', version:1, ...} then one arrival
 * per line {t_us, model, version?, priority?, batch_size?, shape?, timeout_us?, id?} (TraceLineSchema, the
 * replayed arrival's fields), t_us relative to the recording start.
 * Line-oriented so a recorder can append while traffic flows and a reader can report exact line numbers.
 */
import type { Static } from '@sinclair/typebox';
import type { Arrival } from './arrivals';
import type { Scenario } from './scenario';
import { TraceLineSchema } from './scenario-schema';
import { schemaProblems } from '../util/schema-problems';

export interface TraceHeader {
  format: 'inferscope-trace';
  version: 1;
  created?: string;
  source?: string;
  scenario?: string;
  seed?: number;
  [extra: string]: unknown;
}

export interface Trace {
  header: TraceHeader;
  arrivals: Arrival[];
  /** what the recorded run measured, when the recorder knew it (its last line) */
  summary?: TraceSummary;
}

/**
 * A recording's last line, `{"summary": {...}}`: what the recorded run measured (the server's figures
 * over its window, the client's), known only when it ends, so it cannot sit in the header. Readers that
 * replay arrivals skip it.
 */
export type TraceSummary = Record<string, unknown>;

/** the summary line a recorder ends with (no newline) */
export const summaryLine = (summary: TraceSummary): string => JSON.stringify({ summary });

export class TraceError extends Error {
  override name = 'TraceError';
  constructor(readonly line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

export function serializeTrace(header: Omit<TraceHeader, 'format' | 'version'>, arrivals: readonly Arrival[]): string {
  const lines = [JSON.stringify({ format: 'inferscope-trace', version: 1, ...header })];
  for (const a of arrivals) lines.push(arrivalLine(a));
  return lines.join('\n') + '\n';
}

/** one arrival as its NDJSON line (no newline), fields in a fixed order so files diff cleanly */
export function arrivalLine(a: Arrival): string {
  const o: Record<string, unknown> = { t_us: a.t_us, model: a.model };
  if (a.version !== undefined) o.version = a.version;
  if (a.priority !== undefined) o.priority = a.priority;
  o.batch_size = a.batch_size;
  if (a.shape !== undefined) o.shape = a.shape;
  if (a.timeout_us !== undefined) o.timeout_us = a.timeout_us;
  if (a.id !== undefined) o.id = a.id;
  return JSON.stringify(o);
}

export function parseTrace(text: string): Trace {
  const reader = new TraceReader();
  const arrivals: Arrival[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const a = reader.line(lines[i], i + 1);
    if (a) arrivals.push(a);
  }
  const header = reader.end();
  return reader.summary ? { header, arrivals, summary: reader.summary } : { header, arrivals };
}

/**
 * A trace read line by line, for files too big to hold (a replay streams its file): the first non-empty
 * line must be the header, each later one an arrival no earlier than the one before.
 */
export class TraceReader {
  header: TraceHeader | undefined;
  /** the recorder's summary line, once read (it must be the last line) */
  summary: TraceSummary | undefined;
  private last = 0;

  /** the arrival on this line (1-based `n` for errors), or undefined for the header and blank lines */
  line(text: string, n: number): Arrival | undefined {
    const raw = text.trim();
    if (raw === '') return undefined;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch (err) {
      throw new TraceError(n, `not valid JSON (${(err as Error).message})`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new TraceError(n, 'each line must be a JSON object');
    const o = v as Record<string, unknown>;
    if (!this.header) {
      if (o.format !== 'inferscope-trace') throw new TraceError(n, 'the first line must be the header {"format":"inferscope-trace","version":1}');
      if (o.version !== 1) throw new TraceError(n, `unsupported trace version ${JSON.stringify(o.version)} (this reader knows version 1)`);
      this.header = o as TraceHeader;
      return undefined;
    }
    if (this.summary) throw new TraceError(n, 'a line after the summary line: the summary must be the last line');
    if ('summary' in o && !('t_us' in o)) {
      if (typeof o.summary !== 'object' || o.summary === null || Array.isArray(o.summary)) throw new TraceError(n, '"summary" must be a JSON object');
      this.summary = o.summary as TraceSummary;
      return undefined;
    }
    const a = parseArrival(o, n, this.last);
    this.last = a.t_us;
    return a;
  }

  /** the header, once every line has been read; a trace without one is an error */
  end(): TraceHeader {
    if (!this.header) throw new TraceError(1, 'empty trace: expected a header line');
    return this.header;
  }
}

/** a line's problems said at most (a hostile line may hold thousands of unknown fields) */
const MAX_LINE_PROBLEMS = 10;

function parseArrival(o: Record<string, unknown>, n: number, last: number): Arrival {
  const problems = schemaProblems(TraceLineSchema, o, '');
  if (problems.length) throw new TraceError(n, [...problems.slice(0, MAX_LINE_PROBLEMS), ...(problems.length > MAX_LINE_PROBLEMS ? [`... and ${problems.length - MAX_LINE_PROBLEMS} more`] : [])].join('; '));
  const { batch_size = 1, ...line } = o as Static<typeof TraceLineSchema>;
  if (line.t_us < last) throw new TraceError(n, `t_us ${line.t_us} goes back in time (previous line ${last}); arrivals must be sorted`);
  return { ...line, batch_size };
}

/** a trace as a scenario with one replay phase, so recorded traffic runs through the same machinery */
export function traceToScenario(trace: Trace, speed = 1): Scenario {
  const last = trace.arrivals.length > 0 ? trace.arrivals[trace.arrivals.length - 1].t_us : 0;
  return {
    name: `replay:${trace.header.scenario ?? trace.header.source ?? 'trace'}`,
    seed: trace.header.seed,
    phases: [{ type: 'replay', duration_s: (last + 1) / 1e6 / speed, speed, arrivals: trace.arrivals }],
  };
}
