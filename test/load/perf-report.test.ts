import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRange, type StepResult } from '../../apps/server/src/clients/perf/perf-step.ts';
import { toCsv, stepSummary } from '../../apps/server/src/clients/perf/perf-report.ts';
import { diffServerStats, readModelStats } from '../../apps/server/src/clients/perf/server-stats.ts';

test('ranges follow perf_analyzer: START[:END[:STEP]]', () => {
  assert.deepEqual(parseRange('1:8:2', 'c', true), [1, 3, 5, 7]);
  assert.deepEqual(parseRange('4', 'c', true), [4]);
  assert.deepEqual(parseRange('100:300:100', 'r', false), [100, 200, 300]);
  assert.throws(() => parseRange('0:4', 'c', true), /positive/);
  assert.throws(() => parseRange('8:2', 'c', true), /below START/);
  assert.throws(() => parseRange('1.5', 'c', true), /integers/);
  // plain digits only: what Number() would read as something else is refused
  for (const text of ['1e3', '0x10', ' 7', '+5', '2:', '']) assert.throws(() => parseRange(text, 'c', true), /START\[:END\[:STEP\]\]/, text);
});

const statsDoc = (success: number, queueNs: number, inferNs: number, inf: number, exec: number) => ({
  model_stats: [
    {
      name: 'm', version: '1', inference_count: inf, execution_count: exec,
      inference_stats: { success: { count: success, ns: success * 900_000 }, queue: { count: success, ns: queueNs }, compute_input: { count: success, ns: 0 }, compute_infer: { count: success, ns: inferNs }, compute_output: { count: success, ns: 0 } },
    },
    { name: 'other', version: '1', inference_count: 999, execution_count: 999, inference_stats: {} },
  ],
});

test('server figures are the difference of two statistics reads, per request', () => {
  const a = readModelStats(statsDoc(10, 1_000_000, 2_000_000, 10, 5), 'm');
  const b = readModelStats(statsDoc(110, 51_000_000, 32_000_000, 110, 30), 'm');
  const w = diffServerStats(a, b);
  assert.equal(w.requests, 100);
  assert.equal(w.queue_us, 500);
  assert.equal(w.compute_infer_us, 300);
  assert.equal(w.executions, 25);
  assert.equal(w.inferences, 100);
});

test('CSV has perf_analyzer column names and one row per step', () => {
  const step: StepResult = {
    mode: { kind: 'concurrency', concurrency: 4 }, stable: true, windows: 3, request_count: 300, error_count: 0, errors: {},
    throughput_per_s: 1234.5, latency_us: { p50: 900, p90: 1200, p95: 1300, p99: 2000, avg: 1000, std: 250, stabilising: 1000 },
    client_send_us: 20, client_recv_us: 30, response_wait_us: 950,
    server: { requests: 300, inferences: 300, executions: 60, request_us: 800, queue_us: 400, compute_input_us: 0, compute_infer_us: 350, compute_output_us: 0 },
  };
  const csv = toCsv([step]).trim().split('\n');
  assert.equal(
    csv[0],
    'Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,Server Compute Infer,Server Compute Output,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency,Avg latency,request/response,response wait',
  );
  assert.equal(csv[1], '4,1234.50,20,200,400,0,350,0,30,900,1200,1300,2000,1000,50,950');
  const rate = toCsv([{ ...step, mode: { kind: 'rate', rate: 200, distribution: 'poisson' } }]);
  assert.ok(rate.startsWith('Request Rate,Inferences/Second'));
  const text = stepSummary(step, undefined);
  assert.match(text, /Request concurrency: 4/);
  assert.match(text, /Throughput: 1234.5 infer\/sec/);
  assert.match(text, /queue 400 usec/);
  assert.match(text, /Avg batch size: 5.00/);
  assert.match(text, /Avg latency: 1000 usec \(standard deviation 250 usec\)/);
});
