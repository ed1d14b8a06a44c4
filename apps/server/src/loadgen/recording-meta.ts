/**
 * What a recording says about itself, as `replay` prints it before its own figures: the model, version
 * and tuning fields the traffic met (the header, written at the start) and what the recorded run measured
 * (the summary line, written at its end), so a replay's figures are read against the original's.
 */
import type { LoadServerFigures } from '@inferscope/core';
import type { TraceHeader, TraceSummary } from '@inferscope/core/load';

interface RecordedConfig {
  max_batch_size?: number;
  dynamic_batching?: { max_queue_delay_microseconds?: number; preferred_batch_size?: number[] };
  instance_group?: { count?: number }[];
}

function configText(c: RecordedConfig): string {
  const parts = [`max_batch_size ${c.max_batch_size ?? 0}`];
  if (c.dynamic_batching) {
    parts.push(`max_queue_delay ${c.dynamic_batching.max_queue_delay_microseconds ?? 0} usec`);
    if (c.dynamic_batching.preferred_batch_size?.length) parts.push(`preferred [${c.dynamic_batching.preferred_batch_size.join(',')}]`);
  } else parts.push('no dynamic batching');
  if (c.instance_group) parts.push(`${c.instance_group.reduce((n, g) => n + (g.count ?? 1), 0)} instance(s)`);
  return parts.join(', ');
}

const r = (v: number) => String(Math.round(v));

export function recordingLines(header: TraceHeader, summary: TraceSummary | undefined): string[] {
  const lines: string[] = [];
  const what = [
    typeof header.model === 'string' ? `${header.model}${typeof header.model_version === 'string' ? ` version ${header.model_version}` : ''}` : `source ${header.source ?? 'unknown'}`,
    header.scenario ? `scenario ${header.scenario}${header.seed !== undefined ? ` (seed ${header.seed})` : ''}` : '',
    header.created ? `recorded ${header.created}` : '',
  ].filter(Boolean);
  lines.push(`Recording: ${what.join(', ')}`);
  if (header.config && typeof header.config === 'object') lines.push(`  Config then: ${configText(header.config as RecordedConfig)}`);
  if (summary) {
    const n = (k: string) => (typeof summary[k] === 'number' ? (summary[k] as number) : undefined);
    lines.push(`  Recorded run: ${n('answered') ?? '?'} answered of ${n('sent') ?? '?'} sent in ${(n('elapsed_s') ?? 0).toFixed(1)} s${n('errors') ? `, ${n('errors')} errors` : ''}`);
    const s = summary.server as LoadServerFigures | undefined;
    if (s) lines.push(`  Recorded server: ${s.requests} requests, p50 ${r(s.latency_us.p50)} usec, p99 ${r(s.latency_us.p99)} usec, queue ${r(s.queue_us)} usec, compute ${r(s.compute_us)} usec, avg batch ${s.avg_batch_size.toFixed(2)}`);
  }
  return lines;
}
