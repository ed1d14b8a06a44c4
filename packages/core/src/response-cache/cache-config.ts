/**
 * `serve --cache-config <cache>,<setting>=<value>` (repeatable) and its deprecated predecessor
 * `--response-cache-byte-size N`, read into the one cache the server builds. Pure: the server's option
 * parser calls it with the flags' texts and reports what it throws as a bad flag.
 *
 * Order and words follow Triton (server's command_line_parser.cc, core's server.cc and the local cache's
 * Create): each value's format first, then the two flags together, then more than one cache named, then
 * the cache's own settings. Where Triton would silently accept (a setting the local cache never reads,
 * trailing junk after a number), InferScope refuses: a flag that is parsed must be honoured.
 */
import { InferError } from '../errors';

export interface CacheSettings {
  /** the local cache's buffer, bytes */
  size: number;
}

export interface CacheFlags {
  /** every --cache-config value, in order */
  cacheConfig: readonly string[];
  /** --response-cache-byte-size, when given */
  responseCacheByteSize?: string;
}

export interface CacheChoice {
  /** null = the server has no response cache */
  cache: CacheSettings | null;
  /** what the server logs at start (the deprecated flag's notice) */
  warnings: string[];
}

const invalid = (message: string) => new InferError('INVALID_ARG', message);

/** One --cache-config value: `<cache name>,<setting>=<value>`, with Triton's messages. */
export function parseCacheConfigArg(arg: string): { cache: string; setting: string; value: string } {
  const comma = arg.indexOf(',');
  // Triton has no cache-agnostic settings, so a value without a cache name (or starting with ',') is refused
  if (comma <= 0) throw invalid(`No cache specified. --cache-config option format is <cache name>,<setting>=<value>. Got ${arg}`);
  const equals = arg.indexOf('=', comma + 1);
  const format = `--cache-config option format is '<cache name>,<setting>=<value>'. Got ${arg}`;
  if (equals < 0) throw invalid(format);
  const setting = arg.slice(comma + 1, equals);
  const value = arg.slice(equals + 1);
  if (setting === '' || value === '') throw invalid(format);
  return { cache: arg.slice(0, comma), setting, value };
}

/** Triton's integer options: "Invalid option value" for text that is no number, "out of bound" past the range. */
export function parseByteCountOption(arg: string): number {
  if (!/^\d+$/.test(arg)) throw invalid(`Invalid option value. Got ${arg}`);
  const n = Number(arg);
  if (!Number.isSafeInteger(n)) throw invalid(`Provided option value is out of bound. Got ${arg}`);
  return n;
}

export function resolveCacheFlags(flags: CacheFlags): CacheChoice {
  const warnings: string[] = [];
  const settings = new Map<string, Map<string, string>>();
  for (const arg of flags.cacheConfig) {
    const { cache, setting, value } = parseCacheConfigArg(arg);
    const named = settings.get(cache) ?? new Map<string, string>();
    if (named.has(setting)) throw invalid(`--cache-config sets '${setting}' of the '${cache}' cache twice (${cache},${setting}=${named.get(setting)} and ${arg})`);
    named.set(setting, value);
    settings.set(cache, named);
  }
  if (flags.responseCacheByteSize !== undefined) {
    const size = String(parseByteCountOption(flags.responseCacheByteSize));
    warnings.push(
      "Warning: '--response-cache-byte-size' has been deprecated! This will default to the 'local' cache implementation with " +
        `the provided byte size for its config. Please use '--cache-config' instead. The equivalent --cache-config CLI args would be: '--cache-config=local,size=${size}'`,
    );
    if (flags.cacheConfig.length > 0) {
      throw invalid('Error: Incompatible flags --response-cache-byte-size and --cache-config both provided. Please provide one or the other.');
    }
    settings.set('local', new Map([['size', size]]));
  }
  if (settings.size === 0) return { cache: null, warnings };
  if (settings.size > 1) throw invalid('found multiple cache configurations, but only a single cache is currently supported');
  const [name, local] = [...settings][0];
  if (name !== 'local') throw invalid(`unable to find '${name}' cache: InferScope has only the 'local' cache (--cache-config local,size=<bytes>)`);
  return { cache: localCacheSettings(local), warnings };
}

function localCacheSettings(settings: Map<string, string>): CacheSettings {
  const size = settings.get('size');
  if (size === undefined) throw invalid("Failed to initialize LocalCache: config didn't contain a valid 'size' field.");
  const unread = [...settings.keys()].filter((k) => k !== 'size');
  if (unread.length > 0) throw invalid(`Failed to initialize LocalCache: unknown setting${unread.length > 1 ? 's' : ''} ${unread.map((k) => `'${k}'`).join(', ')} (the local cache has only 'size')`);
  if (!/^\d+$/.test(size) || !Number.isSafeInteger(Number(size))) {
    throw invalid(`Failed to initialize LocalCache: 'size' must be a whole number of bytes, got ${size}`);
  }
  return { size: Number(size) };
}
