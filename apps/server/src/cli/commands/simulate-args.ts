/**
 * `--set PATH=VALUE` for `inferscope simulate`: dotted paths with [i] indexes into a copy of the config,
 * values parsed as JSON when they are JSON (numbers, booleans, arrays), else kept as strings.
 * (Lives next to simulate.ts; the CLI only loads files that default-export a command.)
 */
import type { SchedulerConfigInput } from '@inferscope/core/scheduler';

export function parseSetArgs(sets: readonly string[], config: SchedulerConfigInput): SchedulerConfigInput {
  const out = structuredClone(config) as unknown as Record<string, unknown>;
  for (const s of sets) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new Error(`--set ${s}: expected PATH=VALUE, e.g. dynamic_batching.max_queue_delay_microseconds=500`);
    const path = s.slice(0, eq).split(/\.|\[(\d+)\]/).filter((p) => p !== undefined && p !== '');
    const raw = s.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      /* a plain string such as REJECT */
    }
    let node: Record<string, unknown> = out;
    for (let i = 0; i < path.length - 1; i++) {
      const k = path[i];
      if (node[k] === undefined || node[k] === null) node[k] = /^\d+$/.test(path[i + 1]) ? [] : {};
      if (typeof node[k] !== 'object') throw new Error(`--set ${s}: ${path.slice(0, i + 1).join('.')} is not an object`);
      node = node[k] as Record<string, unknown>;
    }
    node[path[path.length - 1]] = value;
  }
  return out as SchedulerConfigInput;
}
