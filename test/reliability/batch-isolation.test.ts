/**
 * One bad request in a batch (issue 13, item 3): an out-of-vocabulary token id batched with valid
 * text_encoder requests used to fail all of them with 500, each error quoting the bad client's token id.
 * Now the batch is split and re-run: every valid request gets its embedding, the bad one alone an error,
 * and no error or answer of one client carries another client's data.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer, tempRepository, type Running } from './harness.ts';

let repo: Awaited<ReturnType<typeof tempRepository>>;
let server: Running;
const BAD_TOKEN = 987654321; // the vocabulary has 2048 entries

before(async () => {
  repo = await tempRepository(['text_encoder']);
  const path = join(repo.dir, 'text_encoder/config.pbtxt');
  // A long queue delay so that all requests of a burst share one batch, whatever the machine's speed.
  await writeFile(path, (await readFile(path, 'utf8')).replace('max_queue_delay_microseconds: 500', 'max_queue_delay_microseconds: 300000'));
  server = await startServer({ repositories: [repo.dir] });
});

after(async () => {
  await server?.close();
  await repo?.remove();
});

const infer = (tokens: number[], id: string) =>
  server.app.inject({
    method: 'POST',
    url: '/v2/models/text_encoder/infer',
    payload: { id, inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, tokens.length], data: tokens }] },
  });

test('a bad request fails alone; the 12 it was batched with are answered; no error carries its data', { timeout: 120_000 }, async () => {
  for (const badAt of [0, 6, 12]) {
    const first = server.events.length;
    const tokens = Array.from({ length: 13 }, (_, i) => [1 + i, 2 + i, 3 + i, 4 + i]);
    tokens[badAt] = [5, BAD_TOKEN, 7, 8];
    const answers = await Promise.all(tokens.map((t, i) => infer(t, `r${i}`)));
    const batches = server.events.slice(first).filter((e) => e.type === 'batch.formed') as { size: number }[];
    assert.ok(batches.some((b) => b.size >= 2), `the burst was never batched: sizes ${batches.map((b) => b.size)}`);
    for (const [i, res] of answers.entries()) {
      if (i === badAt) {
        assert.ok(res.statusCode >= 400, `bad request answered ${res.statusCode}`);
        continue;
      }
      assert.equal(res.statusCode, 200, `valid request ${i} (bad at ${badAt}): ${res.body.slice(0, 300)}`);
      assert.equal(res.json().id, `r${i}`);
      assert.equal(res.json().outputs[0].data.length, 64);
      assert.ok(!res.body.includes(String(BAD_TOKEN)), 'a valid answer carries the bad token id');
    }
    // Each valid answer equals the one it gets when sent alone (its own output, not a neighbour's).
    const alone = await infer(tokens[(badAt + 1) % 13], 'alone');
    assert.deepEqual(alone.json().outputs, answers[(badAt + 1) % 13].json().outputs);
  }
  console.log('batch isolation: 3 bursts of 13 (one bad each): 36 valid answered, 3 refused alone');
});

test('when every request of a batch is bad, each error names its own data only', { timeout: 120_000 }, async () => {
  const bad = [111111111, 222222222, 333333333, 444444444];
  const answers = await Promise.all(bad.map((t, i) => infer([1, t], `b${i}`)));
  for (const [i, res] of answers.entries()) {
    assert.ok(res.statusCode >= 400);
    for (const [j, other] of bad.entries()) if (j !== i) assert.ok(!res.body.includes(String(other)), `answer ${i} quotes request ${j}'s token`);
  }
});
