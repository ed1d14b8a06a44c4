/**
 * `serve --rate-limit off|execution_count` and `--rate-limit-resource <name>:<count>[:<device>]` (repeatable),
 * with Triton's words (server's command_line_parser.cc). Pure: the server's option parser hands the texts.
 */
import { InferError } from '../errors';

export type RateLimitMode = 'off' | 'execution_count';

/** A resource count given on the command line; `device` null = every device (Triton's device -1). */
export interface ExplicitResource {
  name: string;
  count: number;
  device: number | null;
}

const invalid = (message: string) => new InferError('INVALID_ARG', message);

/** Triton's default is off: a model's rate_limiter settings only count when the server is asked to limit. */
export function parseRateLimitMode(arg: string | undefined): RateLimitMode {
  if (arg === undefined) return 'off';
  const mode = arg.toLowerCase();
  if (mode === 'execution_count' || mode === 'off') return mode;
  throw invalid('invalid argument for --rate-limit');
}

/** Triton's integer options: plain digits (InferScope refuses the trailing junk std::stoi would drop). */
function parseIntOption(arg: string): number {
  if (!/^\d+$/.test(arg)) throw invalid(`Invalid option value. Got ${arg}`);
  const n = Number(arg);
  if (n > 0x7fffffff) throw invalid(`Provided option value is out of bound. Got ${arg}`);
  return n;
}

export function parseRateLimitResource(arg: string): ExplicitResource {
  const format = `--rate-limit-resource option format is '<resource_name>:<count>:<device>' or '<resource_name>:<count>'. Got ${arg}`;
  const parts = arg.split(':');
  if (parts.length < 2 || parts.length > 3) throw invalid(format);
  // Triton keeps the name as written (its lower-cased copy is never used): resource names are case-sensitive
  const [name, count, device] = parts;
  return { name, count: parseIntOption(count), device: device === undefined ? null : parseIntOption(device) };
}

/**
 * The command line's resources as the rate limiter reads them: one count per (name, device); a name given
 * twice for the same device keeps the smaller count, as Triton's server options do.
 */
export function mergeExplicitResources(resources: readonly ExplicitResource[]): ExplicitResource[] {
  const merged = new Map<string, ExplicitResource>();
  for (const r of resources) {
    const id = `${r.device ?? '*'}\u0000${r.name}`;
    const had = merged.get(id);
    if (!had || r.count < had.count) merged.set(id, { ...r });
  }
  return [...merged.values()];
}
