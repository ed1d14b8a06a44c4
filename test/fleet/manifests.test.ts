/**
 * The Kubernetes manifests and the Grafana dashboard: committed files equal what the typed sources
 * print, every object validates against Kubernetes' own schema (kubernetes-models, offline), the pieces
 * agree with each other (HPA metric = adapter rule, probes = routes the real server serves), and every
 * PromQL expression parses (Debian's promtool, when installed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { OUTPUTS } from '../../deploy/generate.ts';
import { adapterRule, autoscaler, deployment, PORTS } from '../../deploy/kubernetes/manifests.ts';
import { PANELS } from '../../deploy/grafana/dashboard.ts';
import { QUEUE_PRESSURE_METRIC } from '../../apps/server/src/fleet/queue-pressure.ts';
import { startTestServer, ROOT } from '../support/server.ts';

const KINDS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

test('committed deploy files are exactly what the typed sources generate (npm run deploy:generate)', () => {
  for (const [path, render] of OUTPUTS) {
    assert.equal(readFileSync(join(ROOT, 'deploy', path), 'utf8'), render(), `deploy/${path} is stale: run npm run deploy:generate`);
  }
});

test('every manifest in the committed YAML validates against its Kubernetes schema', () => {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'deploy/kubernetes/inferscope.yaml'), 'utf8'));
  const kinds = docs.map((d) => {
    const obj = d.toJS();
    const Model = KINDS[`${obj.apiVersion}/${obj.kind}`];
    assert.ok(Model, `no schema for ${obj.apiVersion} ${obj.kind}`);
    new Model(obj).validate();
    return obj.kind;
  });
  assert.deepEqual(kinds.sort(), ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'Service']);
});

test('the validator catches a broken manifest (the check can fail)', () => {
  const bad = deployment().toJSON() as any;
  bad.spec.template.spec.containers[0].ports[0].containerPort = 'eight thousand';
  assert.throws(() => new Deployment(bad).validate(), /containerPort/);
});

test('the HPA scales on the metric the adapter rule serves', () => {
  const hpa = autoscaler().toJSON() as any;
  assert.equal(hpa.spec.metrics[0].pods.metric.name, QUEUE_PRESSURE_METRIC);
  assert.equal(adapterRule().name.as, QUEUE_PRESSURE_METRIC);
  assert.match(adapterRule().metricsQuery, /<<\.LabelMatchers>>/);
});

test('probes, ports and args point at what the real server serves', async () => {
  const c = (deployment().toJSON() as any).spec.template.spec.containers[0];
  assert.deepEqual(c.ports.map((p: any) => p.containerPort), [PORTS.http, PORTS.grpc, PORTS.metrics]);
  const server = await startTestServer({ modelRepositories: [join(ROOT, 'model_repository')], modelControlMode: 'explicit', loadModels: [] });
  try {
    for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
      const res = await fetch(server.url + probe.httpGet.path);
      assert.equal(res.status, 200, probe.httpGet.path);
    }
  } finally {
    await server.close();
  }
});

test('every PromQL expression (dashboard panels, adapter rule) parses with promtool', (t) => {
  if (spawnSync('promtool', ['--version']).error) return t.skip('promtool not installed (Debian package prometheus)');
  const exprs = PANELS.flatMap((p) => p.exprs.map(([, e]) => e.replaceAll('$__rate_interval', '1m')));
  exprs.push(adapterRule().metricsQuery.replaceAll('<<.LabelMatchers>>', 'pod="p"').replaceAll('<<.GroupBy>>', 'pod'));
  const dir = mkdtempSync(join(tmpdir(), 'is-promql-'));
  try {
    const file = join(dir, 'rules.yml');
    writeFileSync(file, stringify({ groups: [{ name: 'check', rules: exprs.map((expr, i) => ({ record: `check:expr_${i}`, expr })) }] }));
    const r = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    // and promtool does refuse a broken one
    writeFileSync(file, stringify({ groups: [{ name: 'check', rules: [{ record: 'x:y', expr: 'sum(rate(x[1m])' }] }] }));
    assert.notEqual(spawnSync('promtool', ['check', 'rules', file]).status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
