/**
 * Every command's options, read by node's own `util.parseArgs` (strict: an unknown option is an error,
 * a typo must not silently fall back to a default): `--name value`, `--name=value`, `-x value`, flags,
 * options that may repeat. Commands describe their options as ArgSpecs; this maps them onto parseArgs
 * and words its errors, so every command reads and refuses its arguments the same way.
 */
import { parseArgs as parseNodeArgs } from 'node:util';
import { parseNumberText } from '@inferscope/core/config';

export interface ArgSpec {
  /** option names including dashes, e.g. ['-m', '--model']: one long name, at most one short */
  names: string[];
  key: string;
  flag?: boolean;
  /** may be given more than once: every value lands in `lists[key]`, in order */
  repeat?: boolean;
}

export interface ParsedArgs {
  values: Record<string, string>;
  flags: Set<string>;
  /** the values of repeatable options ([] when not given) */
  lists: Record<string, string[]>;
  positional: string[];
}

type NodeOptions = NonNullable<Parameters<typeof parseNodeArgs>[0]>['options'];

export function parseArgs(argv: string[], specs: ArgSpec[]): ParsedArgs {
  const options: NonNullable<NodeOptions> = {};
  const keyOf = new Map<string, ArgSpec>();
  for (const spec of specs) {
    const long = spec.names.find((n) => n.startsWith('--'))!.slice(2);
    const short = spec.names.find((n) => /^-[^-]$/.test(n))?.slice(1);
    options[long] = { type: spec.flag ? 'boolean' : 'string', ...(short ? { short } : {}), ...(spec.flag ? {} : { multiple: true }) };
    keyOf.set(long, spec);
  }
  let parsed;
  try {
    parsed = parseNodeArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (err) {
    throw new Error(describeParseError(err as Error & { code?: string }));
  }
  const values: Record<string, string> = {};
  const flags = new Set<string>();
  const lists: Record<string, string[]> = Object.fromEntries(specs.filter((s) => s.repeat).map((s) => [s.key, []]));
  for (const [long, v] of Object.entries(parsed.values)) {
    const spec = keyOf.get(long)!;
    if (spec.flag) flags.add(spec.key);
    else if (spec.repeat) lists[spec.key] = v as string[];
    else {
      // a value option given twice is a typo or a script's mistake: refused, not silently the last one
      const given = v as string[];
      if (given.length > 1) throw new Error(`--${long} was given ${given.length} times (once only)`);
      values[spec.key] = given[0];
    }
  }
  return { values, flags, lists, positional: parsed.positionals };
}

/** parseArgs's errors in the words the commands have always used (`unknown option --x`, `--x needs a value`). */
function describeParseError(err: Error & { code?: string }): string {
  // node names an option as '-m, --model <value>' or '--bogus': name the long form when there is one
  const quoted = /'([^']+)'/.exec(err.message)?.[1] ?? '';
  const option = /--[^ ,=<]+/.exec(quoted)?.[0] ?? /-[^ ,=<]+/.exec(quoted)?.[0] ?? quoted;
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': return `unknown option ${option}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(err.message)) return `${option} takes no value`;
      if (/ambiguous/.test(err.message)) return `${option} needs a value (write ${option}=VALUE for one that starts with '-')`;
      return `${option} needs a value`;
    default: return err.message;
  }
}

/** One numeric option, in the words of every numeric parameter: `--rate must be a number >= 0 (plain digits and a decimal point), got 'x'`. */
export function numberArg(v: string | undefined, name: string, fallback: number, opts: { integer?: boolean; min?: number; max?: number } = {}): number {
  if (v === undefined) return fallback;
  // core's one strict reading of a number written as text (plain digits; see config/number-text.ts)
  return parseNumberText(v, name, { min: opts.min ?? 0, max: opts.max, decimals: opts.integer ? 0 : Infinity });
}

/** 'localhost:8000' (perf_analyzer's -u form) or a full URL -> URL string */
export function normaliseUrl(u: string | undefined): string {
  const raw = u ?? 'http://127.0.0.1:8000';
  const withScheme = /^[a-z]+:\/\//i.test(raw) ? raw : `http://${raw}`;
  const url = new URL(withScheme);
  if (url.protocol !== 'http:') throw new Error(`only http:// URLs are supported, got ${raw}`);
  return url.origin;
}
