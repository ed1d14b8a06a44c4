/**
 * `inferscope replay TRACE`: sends a recorded trace to a server over HTTP at a chosen speed, with a
 * progress line, and prints the client-side summary (throughput, latency percentiles, errors) and the
 * server's side of the same window per model (perf_analyzer's "Server:" block, from the statistics API).
 */
import { reportingErrors, type Command } from '../command';
import { parseArgs, numberArg, normaliseUrl } from '../../args/args';
import { HttpTarget } from '../../loadgen/targets';
import { RealClock } from '@inferscope/core/clock';
import { DEFAULT_LOAD_LIMITS } from '@inferscope/core/load';
import { scanTraceFile, streamTraceFile } from '../../loadgen/trace-file';
import { recordingLines } from '../../loadgen/recording-meta';
import { runLoad } from '../../loadgen/runner';
import { diffServerStats, readModelStats, type ServerModelStats, type ServerWindow } from '../../clients/perf/server-stats';
import { serverLines } from '../../clients/perf/perf-report';

const help = `Usage: inferscope replay TRACE [options]

Replays a recorded trace (NDJSON, inferscope-trace format) against a server over HTTP.

  -u, --url URL     server (default http://127.0.0.1:8000)
  --speed X         2 = twice as fast as recorded (default 1)
  -m, --model M     send every arrival to model M instead of the recorded ones
  --binary          send binary tensors (Triton's binary extension)
  --seed N          seed for input data (default 1)
  --json            print the summary as JSON
`;

const specs = [
  { names: ['-u', '--url'], key: 'url' },
  { names: ['--speed'], key: 'speed' },
  { names: ['-m', '--model'], key: 'model' },
  { names: ['--binary'], key: 'binary', flag: true },
  { names: ['--seed'], key: 'seed' },
  { names: ['--json'], key: 'json', flag: true },
];

export async function replay(argv: string[], out: (s: string) => void = console.log, progress: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  const a = parseArgs(argv, specs);
  if (a.positional.length !== 1) throw new Error('replay needs exactly one TRACE file');
  const speed = numberArg(a.values.speed, '--speed', 1, { min: 0.001, max: 1000 });
  const file = a.positional[0];
  const model = a.values.model;
  // One streaming pass for the facts, then the replay streams the file again: a trace is never held whole.
  const facts = await scanTraceFile(file, { model });
  if (facts.arrivals === 0) throw new Error(`${file} has no arrivals`);
  const limits = DEFAULT_LOAD_LIMITS;
  if (facts.arrivals > limits.max_requests_per_run) throw new Error(`${file} has ${facts.arrivals} arrivals, more than the ${limits.max_requests_per_run} one run may send`);
  const target = new HttpTarget({ url: normaliseUrl(a.values.url), binary: a.flags.has('binary'), seed: numberArg(a.values.seed, '--seed', 1, { integer: true, min: 0 }) });
  try {
    const models = facts.models;
    for (const m of models) {
      if (!m) throw new Error('the trace has arrivals without a model: give -m MODEL');
      await target.check(m);
    }
    // The server's statistics before and after: the replay's window on the server side (null: no stats API).
    const readStats = async (): Promise<Map<string, ServerModelStats> | null> => {
      try {
        const out = new Map<string, ServerModelStats>();
        for (const m of models) out.set(m, readModelStats(await target.getJson(`/v2/models/${encodeURIComponent(m)}/stats`), m));
        return out;
      } catch {
        return null;
      }
    };
    const before = await readStats();
    const duration = facts.last_t_us / 1e6 / speed;
    const tty = process.stderr.isTTY;
    const result = await runLoad(target, { open: streamTraceFile(file, { model }) }, {
      clock: new RealClock(),
      speed,
      limits,
      progressEveryMs: tty ? 200 : 1000,
      onProgress: (c) => {
        const line = `  replay ${c.elapsed_s.toFixed(1)}/${duration.toFixed(1)} s: sent ${c.sent}/${facts.arrivals}, answered ${c.answered}, errors ${c.errors}`;
        progress(tty ? `\r\x1b[K${line}` : `${line}\n`);
      },
    });
    if (tty) progress('\r\x1b[K');
    const after = before ? await readStats() : null;
    const server: Record<string, ServerWindow> | undefined = before && after ? Object.fromEntries(models.map((m) => [m, diffServerStats(before.get(m)!, after.get(m)!)])) : undefined;
    const s = result.summary;
    const report = { trace: file, recording: { header: facts.header, ...(facts.summary ? { summary: facts.summary } : {}) }, models, speed, arrivals: facts.arrivals, sent: result.sent, skipped: result.skipped, ...s, send_lag_us_p99: s.send_lag_us.p99, ...(server ? { server } : {}) };
    if (a.flags.has('json')) out(JSON.stringify(report, null, 2));
    else {
      for (const line of recordingLines(facts.header, facts.summary)) out(line);
      out(`Replayed ${result.sent} of ${facts.arrivals} arrivals of ${file} at ${speed}x onto ${models.join(', ')} in ${result.elapsed_s.toFixed(2)} s`);
      out(`  Throughput: ${s.throughput_per_s.toFixed(1)} req/sec (${s.ok} ok, ${s.errors} errors${result.skipped ? `, ${result.skipped} skipped: too many in flight` : ''})`);
      out(`  Latency: p50 ${Math.round(s.latency_us.p50)} usec, p90 ${Math.round(s.latency_us.p90)} usec, p95 ${Math.round(s.latency_us.p95)} usec, p99 ${Math.round(s.latency_us.p99)} usec, avg ${Math.round(s.latency_us.mean)} usec`);
      out(`  Send lag behind the schedule: p50 ${Math.round(s.send_lag_us.p50)} usec, p99 ${Math.round(s.send_lag_us.p99)} usec`);
      for (const [status, n] of Object.entries(s.errors_by_status)) out(`  HTTP ${status}: ${n}${s.first_error_by_status[status] ? ` (first: ${s.first_error_by_status[status]})` : ''}`);
      if (!server) out('  Server: statistics API not available');
      for (const [m, w] of Object.entries(server ?? {})) {
        out(`  Server (${m}):`);
        for (const line of serverLines(w, '    ')) out(line);
      }
    }
    return s.errors === 0 && result.skipped === 0 ? 0 : 1;
  } finally {
    target.close();
  }
}

const command: Command = {
  name: ['replay'],
  summary: 'replay a recorded trace against a server at a chosen speed',
  help,
  run: reportingErrors('replay', (argv) => replay(argv)),
};
export default command;
