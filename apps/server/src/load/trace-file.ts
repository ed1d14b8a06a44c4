/**
 * Trace files on disk, in core's trace format (packages/core/src/load/trace.ts): reading with the file name
 * in every error, and the header line a recorder starts with.
 */
import { readFile } from 'node:fs/promises';
import { parseTrace, type Trace } from '@inferscope/core/load/index.ts';

export function traceHeaderLine(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ format: 'inferscope-trace', version: 1, created: new Date().toISOString(), ...extra });
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
