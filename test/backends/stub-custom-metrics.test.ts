// Custom metrics through the real server: a model written after Triton's examples/custom_metrics (a
// counter family made in initialize(), one metric per label set, incremented in execute(), value() read
// back) on three instances sharing one series; a gauge and a histogram; the series on the metrics port
// in Prometheus format; a conflicting family definition raises in the model; the series are gone after
// the model unloads.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { NO_NUMPY, inferJson, tempRepo, type TempRepo } from './stub-fixtures.ts';

const METRICS_PY = `
import json
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        family = pb_utils.MetricFamily(name="requests_seen_total", description="Requests this model handled",
                                       kind=pb_utils.MetricFamily.COUNTER)
        self.counter = family.Metric(labels={"model": args["model_name"], "version": args["model_version"]})
        self.gauge = pb_utils.MetricFamily(name="last_input_sum", description="Sum of the last INPUT0",
                                           kind=pb_utils.MetricFamily.GAUGE).Metric(labels={"model": args["model_name"]})
        self.hist = pb_utils.MetricFamily(name="input_sum", description="Sums of INPUT0",
                                          kind=pb_utils.MetricFamily.HISTOGRAM).Metric(labels={}, buckets=[1.0, 10.0, 100.0])
        try:
            pb_utils.MetricFamily(name="requests_seen_total", description="other words", kind=pb_utils.MetricFamily.GAUGE)
            self.conflict = "accepted"
        except pb_utils.TritonModelException as e:
            self.conflict = e.message()
        try:
            self.counter.increment(-1)
            self.negative = "accepted"
        except pb_utils.TritonModelException as e:
            self.negative = e.message()

    def execute(self, requests):
        out = []
        for r in requests:
            x = pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy()
            self.counter.increment(1)
            self.gauge.set(float(x.sum()))
            self.hist.observe(float(x.sum()))
            info = np.array([json.dumps({"value": self.counter.value(), "conflict": self.conflict, "negative": self.negative}).encode()], dtype=np.object_)
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("INFO", info)]))
        return out
`;
const CONFIG = `name: "custom_metrics"
backend: "python"
max_batch_size: 0
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "INFO" data_type: TYPE_STRING dims: [ 1 ] } ]
instance_group [ { count: 3 kind: KIND_CPU } ]
`;

let repo: TempRepo;
let server: TestServer;

before(async () => {
  if (NO_NUMPY) return;
  repo = tempRepo('is-metrics-');
  repo.add('custom_metrics', CONFIG, { 'model.py': METRICS_PY });
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: null, modelControlMode: 'explicit', loadModels: ['custom_metrics'] });
});

after(async () => {
  await server?.close();
  repo?.remove();
});

const scrape = () => server.built.metrics.render();
const run = async (data: number[]) => {
  const r = await inferJson(server.url, 'custom_metrics', [{ name: 'INPUT0', datatype: 'FP32', shape: [4], data }]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return JSON.parse(r.body.outputs[0].data[0]) as { value: number; conflict: string; negative: string };
};

test('a counter shared by three instances: value() sees every increment; gauge and histogram on the scrape', { skip: NO_NUMPY }, async () => {
  const answers = await Promise.all([[1, 1, 1, 1], [2, 2, 2, 2], [0.1, 0.1, 0.1, 0.1], [20, 20, 20, 20]].map(run));
  // each request reads the counter after its own increment, while other instances may increment too: the
  // k-th increment's read sees at least k, the last one sees all four
  const seen = answers.map((a) => a.value).sort((a, b) => a - b);
  seen.forEach((v, k) => assert.ok(v >= k + 1 && v <= 4, `read ${v} as increment ${k + 1} of 4: ${seen}`));
  assert.equal(seen[3], 4, `${seen}`);
  assert.match(answers[0].conflict, /requests_seen_total.*already exists/);
  assert.match(answers[0].negative, /negative/);
  const text = scrape();
  assert.match(text, /# HELP requests_seen_total Requests this model handled\n# TYPE requests_seen_total counter\nrequests_seen_total\{model="custom_metrics",version="1"\} 4\n/);
  assert.match(text, /# TYPE last_input_sum gauge\nlast_input_sum\{model="custom_metrics"\} \d/);
  assert.match(text, /# TYPE input_sum histogram\n/);
  assert.match(text, /input_sum_bucket\{le="1"\} 1\n/);
  assert.match(text, /input_sum_bucket\{le="10"\} 3\n/);
  assert.match(text, /input_sum_bucket\{le="100"\} 4\n/);
  assert.match(text, /input_sum_bucket\{le="\+Inf"\} 4\n/);
  assert.match(text, /input_sum_count 4\n/);
});

test('the model\'s series are removed when it unloads', { skip: NO_NUMPY }, async () => {
  const r = await fetch(`${server.url}/v2/repository/models/custom_metrics/unload`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(r.status, 200);
  for (let i = 0; i < 100 && /requests_seen_total/.test(scrape()); i++) await new Promise((res) => setTimeout(res, 50));
  const text = scrape();
  assert.doesNotMatch(text, /requests_seen_total|last_input_sum|input_sum/);
});
