/**
 * Server-side figures for a perf window from the statistics API (GET /v2/models/{m}/stats, Triton's
 * format): the difference between two reads gives the window's requests, queue and compute times.
 */
export interface DurationStat {
  count: number;
  ns: number;
}

export interface ServerModelStats {
  inference_count: number;
  execution_count: number;
  success: DurationStat;
  queue: DurationStat;
  compute_input: DurationStat;
  compute_infer: DurationStat;
  compute_output: DurationStat;
  /** an ensemble: the same figures for each composing model (`name:version`), as perf_analyzer shows them */
  composing?: Record<string, ServerModelStats>;
}

export interface ServerWindow {
  /** successful requests in the window */
  requests: number;
  inferences: number;
  executions: number;
  /** averages per request, µs */
  request_us: number;
  queue_us: number;
  compute_input_us: number;
  compute_infer_us: number;
  compute_output_us: number;
  /** an ensemble: each composing model's window, step order */
  composing?: Array<{ model: string; window: ServerWindow }>;
}

const d = (v: unknown): DurationStat => {
  const o = (v ?? {}) as { count?: unknown; ns?: unknown };
  return { count: Number(o.count ?? 0), ns: Number(o.ns ?? 0) };
};

/** Sums every version of the model in a `{model_stats:[...]}` document (perf without -x measures them all). */
export function readModelStats(doc: unknown, model: string, version?: string): ServerModelStats {
  const rows = ((doc as { model_stats?: unknown[] })?.model_stats ?? []) as Record<string, unknown>[];
  const acc: ServerModelStats = {
    inference_count: 0,
    execution_count: 0,
    success: { count: 0, ns: 0 },
    queue: { count: 0, ns: 0 },
    compute_input: { count: 0, ns: 0 },
    compute_infer: { count: 0, ns: 0 },
    compute_output: { count: 0, ns: 0 },
  };
  for (const r of rows) {
    if (r.name !== model || (version !== undefined && String(r.version) !== version)) continue;
    const s = (r.inference_stats ?? {}) as Record<string, unknown>;
    acc.inference_count += Number(r.inference_count ?? 0);
    acc.execution_count += Number(r.execution_count ?? 0);
    for (const k of ['success', 'queue', 'compute_input', 'compute_infer', 'compute_output'] as const) {
      const v = d(s[k]);
      acc[k].count += v.count;
      acc[k].ns += v.ns;
    }
  }
  return acc;
}

export function diffServerStats(before: ServerModelStats, after: ServerModelStats): ServerWindow {
  const n = after.success.count - before.success.count;
  const avg = (k: 'success' | 'queue' | 'compute_input' | 'compute_infer' | 'compute_output') =>
    n > 0 ? (after[k].ns - before[k].ns) / n / 1000 : 0;
  const composing = after.composing && before.composing
    ? Object.keys(after.composing).filter((m) => before.composing![m]).map((m) => ({ model: m, window: diffServerStats(before.composing![m]!, after.composing![m]!) }))
    : undefined;
  return {
    ...(composing ? { composing } : {}),
    requests: n,
    inferences: after.inference_count - before.inference_count,
    executions: after.execution_count - before.execution_count,
    request_us: avg('success'),
    queue_us: avg('queue'),
    compute_input_us: avg('compute_input'),
    compute_infer_us: avg('compute_infer'),
    compute_output_us: avg('compute_output'),
  };
}

/** Batch sizes executed so far, from `batch_stats` (compute_infer.count = batches of that size). */
export function readBatchHistogram(doc: unknown, model: string, version?: string): Record<string, number> {
  const rows = ((doc as { model_stats?: unknown[] })?.model_stats ?? []) as Record<string, unknown>[];
  const hist: Record<string, number> = {};
  for (const r of rows) {
    if (r.name !== model || (version !== undefined && String(r.version) !== version)) continue;
    for (const b of (r.batch_stats ?? []) as Record<string, unknown>[]) {
      const n = d(b.compute_infer).count;
      hist[String(b.batch_size)] = (hist[String(b.batch_size)] ?? 0) + n;
    }
  }
  return hist;
}

/** Failed requests so far (inference_stats.fail). */
export function readFailCount(doc: unknown, model: string, version?: string): number {
  const rows = ((doc as { model_stats?: unknown[] })?.model_stats ?? []) as Record<string, unknown>[];
  let n = 0;
  for (const r of rows) {
    if (r.name !== model || (version !== undefined && String(r.version) !== version)) continue;
    n += d(((r.inference_stats ?? {}) as Record<string, unknown>).fail).count;
  }
  return n;
}

/**
 * The composing models of an ensemble from its config JSON (GET /v2/models/{m}/config): `name`, or
 * `name:version` for a step pinned to a version; [] for any other model.
 */
export function composingModelsOf(config: unknown): Array<{ name: string; version?: string }> {
  const c = config as { platform?: string; ensemble_scheduling?: { step?: Array<{ model_name?: string; model_version?: string | number }> } };
  if (c?.platform !== 'ensemble') return [];
  const seen = new Set<string>();
  const out: Array<{ name: string; version?: string }> = [];
  for (const s of c.ensemble_scheduling?.step ?? []) {
    const v = Number(s.model_version ?? -1);
    const m = { name: String(s.model_name ?? ''), ...(v > 0 ? { version: String(v) } : {}) };
    const key = m.version ? `${m.name}:${m.version}` : m.name;
    if (m.name && !seen.has(key)) seen.add(key) && out.push(m);
  }
  return out;
}
