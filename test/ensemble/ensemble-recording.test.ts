// Recording live traffic through an ensemble keeps the client's arrivals only: the ensemble's step
// requests are made again by the ensemble when the trace is replayed, so recording them would double the
// composing models' load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Recorder } from '../../apps/server/src/loadgen/recorder';
import { startTestServer } from '../support/server.ts';
import { ensembleRepository } from './fixtures.ts';

test('a recording of ensemble traffic holds the ensemble arrivals and direct ones, not the step requests', async () => {
  const fx = await ensembleRepository(['scale', 'project', 'negate', 'pipe']);
  const server = await startTestServer({ modelRepositories: [fx.dir], live: false });
  const dir = await mkdtemp(join(tmpdir(), 'is-rec-ens-'));
  try {
    const recorder = new Recorder(server.built.bus, dir, 'ens.ndjson');
    const post = (model: string, name: string) => fetch(`${server.url}/v2/models/${model}/infer`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [{ name, datatype: 'FP32', shape: [2, 4], data: [1, 2, 3, 4, 5, 6, 7, 8] }] }),
    });
    for (let i = 0; i < 3; i++) assert.equal((await post('pipe', 'IN')).status, 200);
    assert.equal((await post('scale', 'x')).status, 200);
    const info = await recorder.stop();
    const arrivals = (await readFile(info.path, 'utf8')).trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.model !== undefined);
    assert.deepEqual(arrivals.map((a) => a.model), ['pipe', 'pipe', 'pipe', 'scale']);
    assert.equal(info.arrivals, 4);
    assert.deepEqual(arrivals[0].shape, [4], 'the ensemble arrival keeps its shape (IN is variable)');
    const steps = server.events.filter((e) => e.type === 'ensemble.step').length;
    assert.equal(steps, 9, 'the ensemble did send its steps');
  } finally {
    await server.close();
    await fx.remove();
    await rm(dir, { recursive: true, force: true });
  }
});
