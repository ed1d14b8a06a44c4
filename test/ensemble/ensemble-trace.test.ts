// Triton's trace files for ensembles: a traced ensemble request brings its composing requests into the
// trace, each with parent_id = the ensemble's trace id (Triton's JSON trace output); the composing
// models' own tracing stays off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../support/server.ts';
import { ensembleRepository } from './fixtures.ts';

test('a traced ensemble request: its step requests are traced as its children (parent_id)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'is-trace-ens-'));
  const file = join(dir, 'trace.json');
  const fx = await ensembleRepository(['scale', 'project', 'negate', 'pipe']);
  const server = await startTestServer({ modelRepositories: [fx.dir], live: false, traceConfig: [`triton,file=${file}`] });
  try {
    const set = await server.built.app.inject({ method: 'POST', url: '/v2/models/pipe/trace/setting', payload: { trace_level: ['TIMESTAMPS'], trace_rate: '1' } });
    assert.equal(set.statusCode, 200, set.body);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${server.url}/v2/models/pipe/infer`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: [{ name: 'IN', datatype: 'FP32', shape: [2, 4], data: [1, 2, 3, 4, 5, 6, 7, 8] }] }),
      });
      assert.equal(res.status, 200);
    }
    // a request straight to a composing model is not traced: its own tracing is off
    const direct = await fetch(`${server.url}/v2/models/scale/infer`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 4], data: [1, 2, 3, 4, 5, 6, 7, 8] }] }),
    });
    assert.equal(direct.status, 200);
  } finally {
    await server.close();
    await fx.remove();
  }
  try {
    const entries = JSON.parse(readFileSync(file, 'utf8')) as Array<{ id: number; model_name?: string; parent_id?: number; timestamps?: Array<{ name: string }> }>;
    const heads = entries.filter((e) => e.model_name !== undefined);
    const ensembles = heads.filter((e) => e.model_name === 'pipe');
    assert.equal(ensembles.length, 2);
    for (const ens of ensembles) {
      assert.equal(ens.parent_id, undefined);
      const children = heads.filter((e) => e.parent_id === ens.id).map((e) => e.model_name).sort();
      assert.deepEqual(children, ['negate', 'project', 'scale']);
    }
    assert.equal(heads.length, 8, 'two ensemble traces and their six steps; the direct scale request untraced');
    const child = heads.find((e) => e.model_name === 'project')!;
    const names = entries.filter((e) => e.id === child.id && e.timestamps).flatMap((e) => e.timestamps!.map((t) => t.name));
    assert.ok(names.includes('COMPUTE_START') && names.includes('REQUEST_END'), names.join(','));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
