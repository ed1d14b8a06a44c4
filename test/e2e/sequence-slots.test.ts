/**
 * The dashboard draws a stateful model's seats from the live snapshot and the `sequence.slots` events:
 * the bundled accumulator (1 instance, max_batch_size 4 = four slots) gets six sequences that START and
 * stay open, so four hold a slot and two wait in the backlog; ending two of them hands their slots to the
 * backlog, and the state view shows it. Real server on port 0 (the bundled repository), headless Chromium.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumMissing, screenshot } from './browser';
import { liveSuite } from './suites';

const missing = chromiumMissing();
// the real server on port 0 with the bundled repository (it holds the accumulator)
const s = liveSuite();

const step = (id: number | string, value: number, flags: { start?: boolean; end?: boolean } = {}) =>
  fetch(`${s.url}/v2/models/accumulator/infer`, {
    method: 'POST',
    body: JSON.stringify({
      parameters: { sequence_id: id, ...(flags.start ? { sequence_start: true } : {}), ...(flags.end ? { sequence_end: true } : {}) },
      inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1], data: [value] }],
    }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as { outputs?: { data: number[] }[] } }));

/** what the page draws: holder per slot ('' = free) and the ids waiting */
const drawn = () => s.page.evaluate(() => ({
  slots: [...document.querySelectorAll('[data-testid=sequence-slot]')].map((e) => (e as HTMLElement).dataset.holder ?? ''),
  types: [...document.querySelectorAll('[data-testid=sequence-slot]')].map((e) => (e as HTMLElement).dataset.holderType ?? ''),
  backlog: [...document.querySelectorAll('[data-testid=sequence-waiting]')].map((e) => (e as HTMLElement).dataset.holder ?? ''),
  stateSequences: Number((document.querySelector('[data-testid=sequence-state-memory]') as HTMLElement | null)?.dataset.sequences ?? -1),
}));

async function until(pred: (d: Awaited<ReturnType<typeof drawn>>) => boolean, what: string) {
  const deadline = Date.now() + 15_000;
  let last = await drawn();
  while (!pred(last)) {
    if (Date.now() > deadline) assert.fail(`${what}: the page drew ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await drawn();
  }
  return last;
}

test('state view: four slots all free before any sequence', { skip: missing }, async () => {
  await s.page.goto(`${s.url}/?view=state&model=accumulator:1`);
  await s.page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });
  await s.page.waitForSelector('[data-testid=sequence-slots]', { timeout: 15_000 });
  const d = await until((x) => x.slots.length === 4, 'four slots');
  assert.deepEqual(d.slots, ['', '', '', '']);
  assert.deepEqual(d.backlog, []);
});

test('state view: the ids holding each slot, the backlog beside them, the state memory; an END hands a slot on', { skip: missing }, async () => {
  // four sequences take the four slots (one at a time, so each has its slot before the next arrives)
  for (const id of [11, 12, 13]) assert.equal((await step(id, 1, { start: true })).status, 200);
  assert.equal((await step('chat-a', 1, { start: true })).status, 200);
  // two more START while every slot is held: they wait in the backlog, their requests unanswered for now
  const waiting = [step(15, 5, { start: true }), step(16, 6, { start: true })];
  const full = await until((x) => x.backlog.length === 2, 'two sequences in the backlog');
  assert.deepEqual(full.slots, ['11', '12', '13', 'chat-a']);
  assert.deepEqual(full.types, ['UINT64', 'UINT64', 'UINT64', 'STRING']);
  assert.deepEqual(full.backlog, ['15', '16']);
  assert.equal(full.stateSequences, 4);
  await screenshot(s.page, 'sequence-slots-full');

  // 12 and chat-a end: their slots go to the backlog's oldest first (15 takes slot 1, 16 slot 3)
  assert.equal((await step(12, 2, { end: true })).status, 200);
  assert.equal((await step('chat-a', 2, { end: true })).status, 200);
  const handed = await until((x) => x.backlog.length === 0 && x.slots.join() === '11,15,13,16', 'the backlog took the freed slots');
  assert.deepEqual(handed.slots, ['11', '15', '13', '16']);
  // the backlogged requests were answered once their sequences had a slot (a fresh sum: 5 and 6)
  const answers = await Promise.all(waiting);
  assert.deepEqual(answers.map((a) => [a.status, a.body.outputs?.[0]?.data[0]]), [[200, 5], [200, 6]]);

  // every sequence ends: the slots are free and no state is held
  for (const id of [11, 13, 15, 16]) assert.equal((await step(id, 0, { end: true })).status, 200);
  const empty = await until((x) => x.slots.every((s) => s === ''), 'all slots free again');
  assert.equal(empty.stateSequences, 0);
  assert.deepEqual(s.errors, []);
});

test('architecture view: the instance card shows the same slots', { skip: missing }, async () => {
  assert.equal((await step(21, 1, { start: true })).status, 200);
  await s.page.goto(`${s.url}/?view=architecture&model=accumulator:1`);
  await s.page.waitForSelector('[data-testid=view-architecture] [data-testid=sequence-slot]', { timeout: 15_000 });
  const holders = await s.page.$$eval('[data-testid=view-architecture] [data-testid=sequence-slot]', (els) => els.map((e) => (e as HTMLElement).dataset.holder));
  assert.deepEqual(holders, ['21', '', '', '']);
  assert.equal((await step(21, 1, { end: true })).status, 200);
});
