/**
 * Triton's trace settings (the trace extension): a global setting and per-model overrides, read and
 * updated the way Triton's `/v2[/models/M]/trace/setting` does it. Values travel as strings (`"1000"`)
 * and `trace_level` as an array; `null` in an update clears a model's override (it follows the global
 * value again) or, globally, resets to the default. `trace_file` is chosen by the operator at start
 * (`--trace-config triton,file=...`) and, as in current Triton, cannot be changed over the network.
 */
import { InferError } from '@inferscope/core';
export type TraceLevel = 'OFF' | 'TIMESTAMPS' | 'TENSORS';

export interface TraceSetting {
  trace_level: TraceLevel[];
  /** trace every N-th request */
  trace_rate: number;
  /** traces still to collect; -1 = no limit */
  trace_count: number;
  /** write the collected traces every N traces (0 = when tracing stops / at shutdown) */
  log_frequency: number;
  trace_file: string;
  trace_mode: 'triton' | 'opentelemetry';
}

export const DEFAULT_TRACE: TraceSetting = {
  trace_level: ['OFF'], trace_rate: 1000, trace_count: -1, log_frequency: 0, trace_file: '', trace_mode: 'triton',
};

/** What the HTTP API answers: Triton's string form. */
export function toWire(s: TraceSetting): Record<string, string | string[]> {
  return {
    trace_level: [...s.trace_level], trace_rate: String(s.trace_rate), trace_count: String(s.trace_count),
    log_frequency: String(s.log_frequency), trace_file: s.trace_file, trace_mode: s.trace_mode,
  };
}

export class TraceSettingError extends InferError {
  /** INVALID_ARG for a bad value; UNSUPPORTED for what Triton refuses as unsupported (trace_file) */
  constructor(message: string, code: 'INVALID_ARG' | 'UNSUPPORTED' = 'INVALID_ARG') {
    super(code, message);
  }
}

type Update = Partial<{ [K in keyof TraceSetting]: TraceSetting[K] | null }>;

const intSetting = (name: string, v: unknown, min: number): number => {
  // Triton takes the numbers as strings; a JSON number is accepted too (tritonclient sends strings).
  const text = typeof v === 'number' ? String(v) : v;
  if (typeof text !== 'string' || !/^-?\d{1,15}$/.test(text.trim()) || Number(text) < min) {
    throw new TraceSettingError(`Unable to parse '${name}', expecting an integer >= ${min} as a string, got: ${JSON.stringify(v)?.slice(0, 60)}`);
  }
  return Number(text);
};

/** A POST body -> a typed update; every refusal names the setting. */
export function parseTraceUpdate(body: unknown): Update {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new TraceSettingError('trace setting request must be a JSON object');
  const out: Update = {};
  for (const [key, v] of Object.entries(body as Record<string, unknown>)) {
    switch (key) {
      case 'trace_file':
        throw new TraceSettingError('trace file location can not be updated through network protocol', 'UNSUPPORTED');
      case 'trace_level': {
        if (v === null) { out.trace_level = null; break; }
        if (!Array.isArray(v) || v.length === 0 || v.length > 3) throw new TraceSettingError("expected 'trace_level' to be an array of strings");
        const levels = v.map((x) => {
          if (x !== 'OFF' && x !== 'TIMESTAMPS' && x !== 'TENSORS') throw new TraceSettingError(`unsupported trace level '${String(x).slice(0, 40)}'`);
          return x as TraceLevel;
        });
        // OFF with anything else is OFF; duplicates collapse.
        out.trace_level = levels.includes('OFF') ? ['OFF'] : [...new Set(levels)];
        break;
      }
      case 'trace_rate': out.trace_rate = v === null ? null : intSetting(key, v, 1); break;
      case 'trace_count': {
        out.trace_count = v === null ? null : intSetting(key, v, -1);
        break;
      }
      case 'log_frequency': out.log_frequency = v === null ? null : intSetting(key, v, 0); break;
      case 'trace_mode':
        if (v !== null) throw new TraceSettingError('trace mode can not be updated through network protocol', 'UNSUPPORTED');
        break;
      default:
        throw new TraceSettingError(`unknown trace setting '${key.slice(0, 60)}'`);
    }
  }
  return out;
}

/**
 * `--trace-config` values, Triton's syntax: `level=TIMESTAMPS`, `rate=100`, `count=10`,
 * `triton,file=/tmp/trace.json`, `triton,log-frequency=50`, `mode=triton`.
 */
export function parseTraceConfig(args: readonly string[]): TraceSetting {
  const s: TraceSetting = { ...DEFAULT_TRACE, trace_level: [...DEFAULT_TRACE.trace_level] };
  const levels: TraceLevel[] = [];
  for (const arg of args) {
    const [scope, rest] = arg.includes(',') ? arg.split(/,(.*)/s, 2) : ['', arg];
    if (scope && scope !== 'triton') throw new Error(`--trace-config ${arg}: only the 'triton' trace mode is supported`);
    const eq = rest.indexOf('=');
    if (eq < 1) throw new Error(`--trace-config ${arg}: expected <setting>=<value>`);
    const key = rest.slice(0, eq);
    const value = rest.slice(eq + 1);
    switch (key) {
      case 'level':
        if (value !== 'OFF' && value !== 'TIMESTAMPS' && value !== 'TENSORS') throw new Error(`--trace-config level must be OFF, TIMESTAMPS or TENSORS, got '${value}'`);
        levels.push(value);
        break;
      case 'rate': s.trace_rate = intSetting('rate', value, 1); break;
      case 'count': s.trace_count = intSetting('count', value, -1); break;
      case 'file': s.trace_file = value; break;
      case 'log-frequency': s.log_frequency = intSetting('log-frequency', value, 0); break;
      case 'mode':
        if (value !== 'triton') throw new Error(`--trace-config mode: only 'triton' is supported, got '${value}'`);
        break;
      default:
        throw new Error(`--trace-config: unknown setting '${key}'`);
    }
  }
  if (levels.length) s.trace_level = levels.includes('OFF') ? ['OFF'] : [...new Set(levels)];
  if (s.trace_level[0] !== 'OFF' && !s.trace_file) throw new Error('--trace-config level needs a trace file: --trace-config triton,file=PATH');
  return s;
}

/** The global setting and the per-model overrides; models follow the global value where they set none. */
export class TraceSettings {
  private global: TraceSetting;
  private readonly overrides = new Map<string, Partial<TraceSetting>>();
  /**
   * Whether any model may be traced at all, kept up to date by every change: the tracer looks at it for
   * every event, so with tracing off (the usual case) an event costs one boolean read, no lookup.
   */
  anyOn = false;

  constructor(initial: TraceSetting = DEFAULT_TRACE) {
    this.global = { ...initial };
    this.refresh();
  }

  private refresh(): void {
    const on = (s: Partial<TraceSetting>) => s.trace_level !== undefined && s.trace_level[0] !== 'OFF';
    this.anyOn = on(this.global) || [...this.overrides.values()].some(on);
  }

  get(model?: string): TraceSetting {
    return model ? { ...this.global, ...this.overrides.get(model) } : { ...this.global };
  }

  update(u: Update, model?: string): TraceSetting {
    if (!model) {
      const next = { ...this.global };
      for (const [k, v] of Object.entries(u) as Array<[keyof TraceSetting, unknown]>) (next as Record<string, unknown>)[k] = v === null ? DEFAULT_TRACE[k] : v;
      this.global = next;
      this.refresh();
      return this.get();
    }
    const o = { ...this.overrides.get(model) } as Record<string, unknown>;
    for (const [k, v] of Object.entries(u)) {
      if (v === null) delete o[k];
      else o[k] = v;
    }
    this.overrides.set(model, o as Partial<TraceSetting>);
    this.refresh();
    return this.get(model);
  }

  /** One trace collected for `model`: its remaining count goes down (where it is limited). */
  consumeCount(model: string): void {
    const own = this.overrides.get(model);
    if (own?.trace_count !== undefined) {
      if (own.trace_count > 0) own.trace_count--;
    } else if (this.global.trace_count > 0) this.global.trace_count--;
  }
}
