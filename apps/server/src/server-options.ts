/**
 * Options of the server (`inferscope serve` flags and buildApp's input), parsed and validated in one
 * place. Every refusal is an OptionsError whose message names the flag and what was wrong with it.
 */
import { parseArgs } from './args/args';
import { DEFAULT_TIMEOUT_SECS } from './net/connection-timeouts';
import { parseBytes, parseMemoryBudget } from './memory/ledger';
import { defaultInflightLimit } from './infer/inflight-bytes';
import { resolveControlToken } from './control/security';
import { parseTraceConfig } from './trace/trace-settings';
import { DEFAULT_LOAD_LIMITS, type LoadLimits } from '@inferscope/core/load';
import { readNumberText } from '@inferscope/core/config';
import { TORCH_STUB_CHOICES, type TorchStubChoice } from './backends/pytorch/native-stub';
import { resolveCacheFlags, type CacheSettings } from '@inferscope/core/response-cache';
import { mergeExplicitResources, parseRateLimitMode, parseRateLimitResource, type ExplicitResource, type RateLimitMode } from '@inferscope/core/rate-limiter';

export type ModelControlMode = 'none' | 'poll' | 'explicit';

export interface ServerOptions {
  modelRepositories: string[];
  modelControlMode: ModelControlMode;
  /** explicit mode: models loaded at start ('*' = all) */
  loadModels: string[];
  /** poll mode: seconds between repository polls (Triton's default 15) */
  repositoryPollSecs: number;
  host: string;
  httpPort: number;
  /** Prometheus port; null = no metrics server */
  metricsPort: number | null;
  /**
   * gRPC port (Triton's --grpc-port); 0 = any free port; null = no gRPC endpoint. The CLI defaults to
   * 8001; buildApp without it serves no gRPC, so tests and embedders never collide on a fixed port.
   */
  grpcPort: number | null;
  /** device -> bytes; {} = no budget */
  memoryBudget: Record<string, number>;
  controlToken?: string;
  allowOpenControl: boolean;
  /** GPUs on the host; undefined = detect */
  gpuCount?: number;
  /** largest JSON body of the non-inference routes */
  bodyLimit: number;
  /** largest inference request body (Triton's --http-max-input-size) */
  inferBodyLimit: number;
  /** bytes of inference requests in flight at once, bodies and decoded tensors (infer/inflight-bytes.ts) */
  maxInflightBytes: number;
  /** built dashboard folder (default apps/web/dist) */
  webDist?: string;
  /** folder for load recordings and replayed traces */
  recordingsDir: string;
  /** fastify request logging */
  logRequests: boolean;
  /**
   * Triton's --strict-readiness (default true): ready only while every model the server was asked to
   * serve is READY; false = ready whenever the server accepts requests, whatever its models' states.
   */
  strictReadiness: boolean;
  /** Triton's --trace-config values (e.g. 'level=TIMESTAMPS', 'triton,file=/tmp/trace.json') */
  traceConfig: string[];
  /** write the server log to this file instead of the console (Triton's --log-file) */
  logFile?: string;
  /** Triton's --log-format: default or ISO8601 */
  logFormat: 'default' | 'ISO8601';
  /** Python interpreter of the stub backends (pytorch, python); undefined = INFERSCOPE_PYTHON, else /usr/bin/python3 */
  python?: string;
  /** which stub runs pytorch models: auto (native where built, else Python), native, python */
  torchStub: TorchStubChoice;
  /** what one load run may ask for (packages/core/src/load/limits.ts says why the defaults) */
  loadLimits: LoadLimits;
  /**
   * Triton's --exit-timeout-secs (default 30): how long shutdown waits for in-flight requests before it
   * stops the model instances that still hold them (their requests then get an error).
   */
  exitTimeoutSecs: number;
  /**
   * Seconds a new connection has to send its first request head (HTTP, metrics, Socket.IO) or finish its
   * HTTP/2 handshake (gRPC) before it is closed (net/connection-timeouts.ts)
   */
  handshakeTimeoutSecs: number;
  /**
   * seconds an HTTP connection may sit between requests, an HTTP/2 (gRPC) connection without a call, or a
   * gRPC request message go without a byte before it is given up (grpc/message-stall.ts)
   */
  idleTimeoutSecs: number;
  /** Triton's --cache-config local,size=N (or the deprecated --response-cache-byte-size N); null = no response cache */
  responseCache: CacheSettings | null;
  /** Triton's --rate-limit (default off: instance_group rate_limiter settings are not read) */
  rateLimit: RateLimitMode;
  /** Triton's --rate-limit-resource name:count[:device], merged (the smaller count of a repeat) */
  rateLimitResources: ExplicitResource[];
  /** what the server logs as it starts (the deprecated flag's notice) */
  startupWarnings: string[];
}

export class OptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OptionsError';
  }
}

export const DEFAULTS = {
  modelControlMode: 'none' as ModelControlMode,
  repositoryPollSecs: 15,
  host: '127.0.0.1',
  httpPort: 8000,
  metricsPort: 8002,
  grpcPort: 8001,
  bodyLimit: 1024 * 1024,
  inferBodyLimit: 64 * 1024 * 1024,
  recordingsDir: 'recordings',
  exitTimeoutSecs: 30,
  handshakeTimeoutSecs: DEFAULT_TIMEOUT_SECS.handshake,
  idleTimeoutSecs: DEFAULT_TIMEOUT_SECS.idle,
};

function traceConfig(values: string[]): string[] {
  try {
    parseTraceConfig(values);
  } catch (err) {
    throw new OptionsError((err as Error).message);
  }
  return values;
}

function logFormat(v: string): 'default' | 'ISO8601' {
  if (v !== 'default' && v !== 'ISO8601') throw new OptionsError(`--log-format must be default or ISO8601, got '${v}'`);
  return v;
}

function torchStub(v: string): TorchStubChoice {
  const choice = TORCH_STUB_CHOICES.find((c) => c === v);
  if (!choice) throw new OptionsError(`--torch-stub must be one of ${TORCH_STUB_CHOICES.join(', ')}, got '${v}'`);
  return choice;
}

function port(flag: string, v: number): number {
  if (!Number.isInteger(v) || v < 0 || v > 65535) throw new OptionsError(`${flag} must be a port number 0..65535, got ${v}`);
  return v;
}

/** Fills defaults and checks a (possibly partial) options object; buildApp calls this too. */
export function validateServerOptions(o: Partial<Omit<ServerOptions, 'loadLimits'>> & { modelRepositories: string[]; loadLimits?: Partial<LoadLimits> }): ServerOptions {
  const repos = o.modelRepositories.map((r) => r.trim()).filter(Boolean);
  if (repos.length === 0) throw new OptionsError('--model-repository is required (one or more paths, comma separated)');
  const mode = o.modelControlMode ?? DEFAULTS.modelControlMode;
  if (!['none', 'poll', 'explicit'].includes(mode)) {
    throw new OptionsError(`--model-control-mode must be none, poll or explicit, got '${mode}'`);
  }
  const loadModels = o.loadModels ?? [];
  if (loadModels.length > 0 && mode !== 'explicit') {
    throw new OptionsError('--load-model can only be used with --model-control-mode explicit (in other modes every model is loaded)');
  }
  if (loadModels.includes('*') && loadModels.length > 1) {
    throw new OptionsError("--load-model '*' loads every model and must be the only --load-model");
  }
  const pollSecs = o.repositoryPollSecs ?? DEFAULTS.repositoryPollSecs;
  if (!Number.isFinite(pollSecs) || pollSecs < 0) throw new OptionsError(`--repository-poll-secs must be a number >= 0, got ${pollSecs}`);
  const exitTimeoutSecs = o.exitTimeoutSecs ?? DEFAULTS.exitTimeoutSecs;
  if (!Number.isFinite(exitTimeoutSecs) || exitTimeoutSecs < 0) throw new OptionsError(`--exit-timeout-secs must be a number >= 0, got ${exitTimeoutSecs}`);
  const seconds = (flag: string, v: number) => {
    if (!Number.isFinite(v) || v <= 0) throw new OptionsError(`${flag} must be a number of seconds > 0, got ${v}`);
    return v;
  };
  const limit = (flag: string, v: number) => {
    if (!Number.isInteger(v) || v < 1024) throw new OptionsError(`${flag} must be an integer number of bytes >= 1024, got ${v}`);
    return v;
  };
  return {
    modelRepositories: repos,
    modelControlMode: mode,
    loadModels,
    repositoryPollSecs: pollSecs,
    host: o.host ?? DEFAULTS.host,
    httpPort: port('--http-port', o.httpPort ?? DEFAULTS.httpPort),
    metricsPort: o.metricsPort === null ? null : port('--metrics-port', o.metricsPort ?? DEFAULTS.metricsPort),
    grpcPort: o.grpcPort === null || o.grpcPort === undefined ? null : port('--grpc-port', o.grpcPort),
    memoryBudget: o.memoryBudget ?? {},
    controlToken: o.controlToken,
    allowOpenControl: o.allowOpenControl ?? false,
    gpuCount: o.gpuCount,
    bodyLimit: limit('body limit', o.bodyLimit ?? DEFAULTS.bodyLimit),
    inferBodyLimit: limit('--http-max-input-size', o.inferBodyLimit ?? DEFAULTS.inferBodyLimit),
    maxInflightBytes: limit('--max-inflight-bytes', o.maxInflightBytes ?? defaultInflightLimit()),
    webDist: o.webDist,
    recordingsDir: o.recordingsDir ?? DEFAULTS.recordingsDir,
    logRequests: o.logRequests ?? false,
    strictReadiness: o.strictReadiness ?? true,
    traceConfig: traceConfig(o.traceConfig ?? []),
    logFile: o.logFile,
    logFormat: logFormat(o.logFormat ?? 'default'),
    python: o.python,
    torchStub: torchStub(o.torchStub ?? 'auto'),
    loadLimits: loadLimits(o.loadLimits),
    exitTimeoutSecs,
    handshakeTimeoutSecs: seconds('--handshake-timeout-secs', o.handshakeTimeoutSecs ?? DEFAULTS.handshakeTimeoutSecs),
    idleTimeoutSecs: seconds('--idle-timeout-secs', o.idleTimeoutSecs ?? DEFAULTS.idleTimeoutSecs),
    responseCache: cacheSize(o.responseCache ?? null),
    rateLimit: o.rateLimit ?? 'off',
    rateLimitResources: o.rateLimitResources ?? [],
    startupWarnings: o.startupWarnings ?? [],
  };
}

function cacheSize(cache: CacheSettings | null): CacheSettings | null {
  if (cache && (!Number.isSafeInteger(cache.size) || cache.size < 0)) throw new OptionsError(`the response cache's size must be a whole number of bytes >= 0, got ${cache.size}`);
  return cache;
}

/** core's parsers of Triton's cache and rate-limiter flags, their refusals as bad options */
function coreFlag<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new OptionsError((err as Error).message);
  }
}

function loadLimits(o: Partial<LoadLimits> = {}): LoadLimits {
  const l = { ...DEFAULT_LOAD_LIMITS, ...o };
  const positive = (flag: string, v: number) => {
    if (!Number.isInteger(v) || v < 1) throw new OptionsError(`${flag} must be an integer >= 1, got ${v}`);
  };
  positive('--load-max-rate', l.max_rate_per_s);
  positive('--load-max-requests', l.max_requests_per_run);
  positive('--load-max-in-flight', l.max_in_flight);
  return l;
}

const VALUE_FLAGS = new Set([
  '--model-repository', '--model-control-mode', '--load-model', '--repository-poll-secs', '--http-port',
  '--metrics-port', '--grpc-port', '--host', '--memory-budget', '--control-token', '--gpus', '--http-max-input-size',
  '--max-inflight-bytes', '--web-dist', '--recordings-dir', '--trace-config', '--log-file', '--log-format', '--python',
  '--torch-stub', '--load-max-rate', '--load-max-requests', '--load-max-in-flight', '--strict-readiness',
  '--exit-timeout-secs', '--handshake-timeout-secs', '--idle-timeout-secs', '--cache-config', '--response-cache-byte-size',
  '--rate-limit', '--rate-limit-resource',
]);
const BOOL_FLAGS = new Set(['--allow-open-control', '--no-metrics', '--no-grpc', '--log-requests']);
/** value flags that add up when repeated; every other one may be given once */
const REPEATABLE_FLAGS = new Set(['--model-repository', '--load-model', '--trace-config', '--cache-config', '--rate-limit-resource']);

/** core's one strict reading of a number written as text (plain digits); ranges are checked by validateServerOptions */
function numberFlag(flag: string, text: string): number {
  const v = readNumberText(text, flag, { min: 0, decimals: Infinity });
  if (typeof v === 'object') throw new OptionsError(v.error);
  return v;
}

/** A boolean given as a value (Triton's --flag=<boolean>): true/false, 1/0, yes/no, on/off. */
function boolFlag(flag: string, text: string | undefined): boolean | undefined {
  if (text === undefined) return undefined;
  const t = text.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(t)) return true;
  if (['false', '0', 'no', 'off'].includes(t)) return false;
  throw new OptionsError(`${flag} expects true or false, got '${text}'`);
}

function bytesFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  try {
    return parseBytes(text);
  } catch (err) {
    throw new OptionsError(`${flag}: ${(err as Error).message}`);
  }
}

/** `serve` argv -> options. Accepts `--flag value` and `--flag=value`; repeated --model-repository/--load-model add up. */
export function parseServeArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ServerOptions {
  let parsed;
  try {
    parsed = parseArgs([...argv], [
      ...[...VALUE_FLAGS].map((flag) => ({ names: [flag], key: flag, repeat: REPEATABLE_FLAGS.has(flag) })),
      ...[...BOOL_FLAGS].map((flag) => ({ names: [flag], key: flag, flag: true })),
    ]);
  } catch (err) {
    throw new OptionsError(`${(err as Error).message} (see inferscope serve --help)`);
  }
  if (parsed.positional.length) throw new OptionsError(`unexpected argument '${parsed.positional[0]}' (see inferscope serve --help)`);
  const values = new Map<string, string[]>(Object.entries(parsed.lists));
  const bools = parsed.flags;
  const one = (flag: string): string | undefined => parsed.values[flag];
  const num = (flag: string) => (one(flag) === undefined ? undefined : numberFlag(flag, one(flag)!));
  let memoryBudget: Record<string, number> = {};
  const budget = one('--memory-budget');
  if (budget !== undefined) {
    try {
      memoryBudget = parseMemoryBudget(budget);
    } catch (err) {
      throw new OptionsError(`--memory-budget: ${(err as Error).message}`);
    }
  }
  const cache = coreFlag(() => resolveCacheFlags({ cacheConfig: values.get('--cache-config') ?? [], responseCacheByteSize: one('--response-cache-byte-size') }));
  return validateServerOptions({
    responseCache: cache.cache,
    startupWarnings: cache.warnings,
    rateLimit: coreFlag(() => parseRateLimitMode(one('--rate-limit'))),
    rateLimitResources: coreFlag(() => mergeExplicitResources((values.get('--rate-limit-resource') ?? []).map(parseRateLimitResource))),
    modelRepositories: (values.get('--model-repository') ?? []).flatMap((v) => v.split(',')),
    modelControlMode: one('--model-control-mode') as ModelControlMode | undefined,
    loadModels: (values.get('--load-model') ?? []).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean),
    repositoryPollSecs: num('--repository-poll-secs'),
    httpPort: num('--http-port'),
    metricsPort: bools.has('--no-metrics') ? null : num('--metrics-port'),
    grpcPort: bools.has('--no-grpc') ? null : (num('--grpc-port') ?? DEFAULTS.grpcPort),
    host: one('--host'),
    memoryBudget,
    controlToken: resolveControlToken(one('--control-token'), env),
    allowOpenControl: bools.has('--allow-open-control'),
    gpuCount: num('--gpus'),
    inferBodyLimit: num('--http-max-input-size'),
    maxInflightBytes: bytesFlag('--max-inflight-bytes', one('--max-inflight-bytes')),
    webDist: one('--web-dist'),
    recordingsDir: one('--recordings-dir'),
    logRequests: bools.has('--log-requests'),
    strictReadiness: boolFlag('--strict-readiness', one('--strict-readiness')),
    traceConfig: values.get('--trace-config') ?? [],
    logFile: one('--log-file'),
    logFormat: one('--log-format') as 'default' | 'ISO8601' | undefined,
    python: one('--python'),
    torchStub: one('--torch-stub') as TorchStubChoice | undefined,
    exitTimeoutSecs: num('--exit-timeout-secs'),
    handshakeTimeoutSecs: num('--handshake-timeout-secs'),
    idleTimeoutSecs: num('--idle-timeout-secs'),
    loadLimits: {
      ...(num('--load-max-rate') !== undefined ? { max_rate_per_s: num('--load-max-rate') } : {}),
      ...(num('--load-max-requests') !== undefined ? { max_requests_per_run: num('--load-max-requests') } : {}),
      ...(num('--load-max-in-flight') !== undefined ? { max_in_flight: num('--load-max-in-flight') } : {}),
    },
  });
}
