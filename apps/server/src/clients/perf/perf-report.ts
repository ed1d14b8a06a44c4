/**
 * perf_analyzer's outputs: the console summary of each step, the closing table, and the CSV with its
 * column names (times in microseconds).
 */
import type { StepResult } from './perf-step';
import type { ServerWindow } from './server-stats';

export const CSV_COLUMNS_AFTER_FIRST = [
  'Inferences/Second',
  'Client Send',
  'Network+Server Send/Recv',
  'Server Queue',
  'Server Compute Input',
  'Server Compute Infer',
  'Server Compute Output',
  'Client Recv',
  'p50 latency',
  'p90 latency',
  'p95 latency',
  'p99 latency',
  'Avg latency',
  'request/response',
  'response wait',
];

const r = (x: number) => Math.round(x);

function modeLabel(s: StepResult): string {
  return s.mode.kind === 'concurrency' ? `Request concurrency: ${s.mode.concurrency}` : `Request Rate: ${s.mode.rate} inference requests per seconds`;
}

/** what is left of the client's latency once client send/recv and server queue/compute are accounted for */
function networkAndServerOverhead(s: StepResult): number {
  const srv = s.server;
  const server = srv ? srv.queue_us + srv.compute_input_us + srv.compute_infer_us + srv.compute_output_us : 0;
  return Math.max(0, s.latency_us.avg - s.client_send_us - s.client_recv_us - server);
}

export function stepSummary(s: StepResult, percentileUsed: number | undefined): string {
  const lines = [
    modeLabel(s),
    '  Client: ',
    `    Request count: ${s.request_count}`,
    `    Throughput: ${s.throughput_per_s.toFixed(1)} infer/sec`,
  ];
  if (percentileUsed === undefined) lines.push(`    Avg latency: ${r(s.latency_us.avg)} usec (standard deviation ${r(s.latency_us.std)} usec)`);
  lines.push(
    `    p50 latency: ${r(s.latency_us.p50)} usec`,
    `    p90 latency: ${r(s.latency_us.p90)} usec`,
    `    p95 latency: ${r(s.latency_us.p95)} usec`,
    `    p99 latency: ${r(s.latency_us.p99)} usec`,
    `    Avg HTTP time: ${r(s.latency_us.avg)} usec (send/recv ${r(s.client_send_us + s.client_recv_us)} usec + response wait ${r(s.response_wait_us)} usec)`,
  );
  if (s.error_count > 0) {
    lines.push(`    Errors: ${s.error_count}`);
    for (const [msg, n] of Object.entries(s.errors).slice(0, 5)) lines.push(`      ${n} x ${msg}`);
  }
  if (s.server) {
    lines.push('  Server: ', ...serverLines(s.server, '    '));
    if (s.server.composing && s.server.composing.length > 0) {
      lines.push('  Composing models: ');
      for (const c of s.server.composing) {
        const at = c.model.lastIndexOf(':');
        lines.push(`  ${c.model.slice(0, at)}, version: ${c.model.slice(at + 1)}`, ...serverLines(c.window, '      '));
      }
    }
  } else {
    lines.push('  Server: statistics API not available');
  }
  if (!s.stable) lines.push(`  Warning: did not stabilise within ${s.windows} windows; figures are the last 3 windows`);
  return lines.join('\n');
}

export function serverLines(v: ServerWindow, indent: string): string[] {
  const overhead = Math.max(0, v.request_us - v.queue_us - v.compute_input_us - v.compute_infer_us - v.compute_output_us);
  const lines = [
    `${indent}Inference count: ${v.inferences}`,
    `${indent}Execution count: ${v.executions}`,
    `${indent}Successful request count: ${v.requests}`,
    `${indent}Avg request latency: ${r(v.request_us)} usec (overhead ${r(overhead)} usec + queue ${r(v.queue_us)} usec + compute input ${r(v.compute_input_us)} usec + compute infer ${r(v.compute_infer_us)} usec + compute output ${r(v.compute_output_us)} usec)`,
  ];
  if (v.executions > 0) lines.push(`${indent}Avg batch size: ${(v.inferences / v.executions).toFixed(2)}`);
  return lines;
}

export function closingTable(steps: StepResult[], percentileUsed: number | undefined): string {
  const which = percentileUsed === undefined ? 'Average' : `p${percentileUsed}`;
  const lines = [`Inferences/Second vs. Client ${which} Batch Latency`];
  for (const s of steps) {
    const lat = percentileUsed === undefined ? s.latency_us.avg : s.latency_us.stabilising;
    const label = s.mode.kind === 'concurrency' ? `Concurrency: ${s.mode.concurrency}` : `Request Rate: ${s.mode.rate}`;
    lines.push(`${label}, throughput: ${s.throughput_per_s.toFixed(1)} infer/sec, latency ${r(lat)} usec`);
  }
  return lines.join('\n');
}

export function toCsv(steps: StepResult[]): string {
  if (steps.length === 0) return '';
  const first = steps[0].mode.kind === 'concurrency' ? 'Concurrency' : 'Request Rate';
  const rows = steps.map((s) => {
    const v = s.server;
    return [
      s.mode.kind === 'concurrency' ? s.mode.concurrency : s.mode.rate,
      s.throughput_per_s.toFixed(2),
      r(s.client_send_us),
      r(networkAndServerOverhead(s)),
      r(v?.queue_us ?? 0),
      r(v?.compute_input_us ?? 0),
      r(v?.compute_infer_us ?? 0),
      r(v?.compute_output_us ?? 0),
      r(s.client_recv_us),
      r(s.latency_us.p50),
      r(s.latency_us.p90),
      r(s.latency_us.p95),
      r(s.latency_us.p99),
      r(s.latency_us.avg),
      r(s.client_send_us + s.client_recv_us),
      r(s.response_wait_us),
    ].join(',');
  });
  return [[first, ...CSV_COLUMNS_AFTER_FIRST].join(','), ...rows].join('\n') + '\n';
}
