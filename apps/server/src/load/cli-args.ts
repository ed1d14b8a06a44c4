/**
 * A small argument reader for the load commands: `--name value`, `--name=value`, short aliases and
 * boolean flags; unknown options are errors (a typo must not silently fall back to a default).
 */
export interface ArgSpec {
  /** option names including dashes, e.g. ['-m', '--model'] */
  names: string[];
  key: string;
  flag?: boolean;
}

export interface ParsedArgs {
  values: Record<string, string>;
  flags: Set<string>;
  positional: string[];
}

export function parseArgs(argv: string[], specs: ArgSpec[]): ParsedArgs {
  const values: Record<string, string> = {};
  const flags = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-') || a === '-') {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : a;
    const spec = specs.find((s) => s.names.includes(name));
    if (!spec) throw new Error(`unknown option ${name}`);
    if (spec.flag) {
      if (eq > 0) throw new Error(`${name} takes no value`);
      flags.add(spec.key);
      continue;
    }
    const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
    if (v === undefined) throw new Error(`${name} needs a value`);
    values[spec.key] = v;
  }
  return { values, flags, positional };
}

export function numberArg(v: string | undefined, name: string, fallback: number, opts: { integer?: boolean; min?: number; max?: number } = {}): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || (opts.integer && !Number.isInteger(n))) throw new Error(`${name} must be ${opts.integer ? 'an integer' : 'a number'}, got '${v}'`);
  if (opts.min !== undefined && n < opts.min) throw new Error(`${name} must be >= ${opts.min}, got ${n}`);
  if (opts.max !== undefined && n > opts.max) throw new Error(`${name} must be <= ${opts.max}, got ${n}`);
  return n;
}

/** 'localhost:8000' (perf_analyzer's -u form) or a full URL -> URL string */
export function normaliseUrl(u: string | undefined): string {
  const raw = u ?? 'http://127.0.0.1:8000';
  const withScheme = /^[a-z]+:\/\//i.test(raw) ? raw : `http://${raw}`;
  const url = new URL(withScheme);
  if (url.protocol !== 'http:') throw new Error(`only http:// URLs are supported, got ${raw}`);
  return url.origin;
}
