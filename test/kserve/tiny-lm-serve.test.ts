// tiny_lm served as it is today: a stateless step model whose client carries the KV cache. Over HTTP
// on the real server (port 0), a greedy loop (prompt with an empty past, then one token a step with the
// presents sent back as pasts) gives the tokens of the same loop on onnxruntime directly, also while
// other loops share its batches.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { TINY_LM } from '../../apps/server/src/model-generator/tiny-lm';
import { startTestServer, tempRepository, type TestServer } from '../support/server';

const { heads: H, headDim: HD, layers, vocab } = TINY_LM;
let repo: Awaited<ReturnType<typeof tempRepository>>;
let server: TestServer;
let direct: ort.InferenceSession;

before(async () => {
  repo = await tempRepository(['tiny_lm']);
  server = await startTestServer({ modelRepositories: [repo.dir] });
  direct = await ort.InferenceSession.create(join(repo.dir, 'tiny_lm/1/model.onnx'), { intraOpNumThreads: 1 });
});
after(async () => {
  await server?.close();
  await direct?.release();
  await repo?.remove();
});

interface T {
  name: string;
  datatype: 'INT64' | 'FP32';
  shape: number[];
  data: number[];
}
type Step = (inputs: T[]) => Promise<Record<string, number[]>>;

const overHttp: Step = async (inputs) => {
  const res = await fetch(`${server.url}/v2/models/tiny_lm/infer`, { method: 'POST', body: JSON.stringify({ inputs }) });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return Object.fromEntries((body.outputs as { name: string; data: number[] }[]).map((o) => [o.name, o.data]));
};

const onOrt: Step = async (inputs) => {
  const feeds: Record<string, ort.Tensor> = {};
  for (const t of inputs) {
    feeds[t.name] = t.datatype === 'INT64' ? new ort.Tensor('int64', BigInt64Array.from(t.data.map(BigInt)), t.shape) : new ort.Tensor('float32', Float32Array.from(t.data), t.shape);
  }
  const out = await direct.run(feeds);
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Array.from(v.data as Float32Array)]));
};

/** The client's loop: a batch of one sequence, its cache carried from each answer into the next request. */
async function generate(prompt: string, steps: number, run: Step): Promise<{ tokens: number[]; logits: number[][] }> {
  const tokens = [...new TextEncoder().encode(prompt)];
  const logits: number[][] = [];
  let past: Record<string, number[]> = {};
  let pastLen = 0;
  let fresh = tokens.slice();
  for (let s = 0; s < steps; s++) {
    const n = fresh.length;
    const inputs: T[] = [
      { name: 'input_ids', datatype: 'INT64', shape: [1, n], data: fresh },
      { name: 'position_ids', datatype: 'INT64', shape: [1, n], data: fresh.map((_, j) => pastLen + j) },
      { name: 'attention_mask', datatype: 'INT64', shape: [1, pastLen + n], data: new Array<number>(pastLen + n).fill(1) },
    ];
    for (let l = 0; l < layers; l++) {
      for (const kind of ['key', 'value']) {
        inputs.push({ name: `past_${kind}_${l}`, datatype: 'FP32', shape: [1, H, pastLen, HD], data: past[`present_${kind}_${l}`] ?? [] });
      }
    }
    const out = await run(inputs);
    assert.equal(out.logits.length, vocab);
    logits.push(out.logits);
    const next = out.logits.indexOf(Math.max(...out.logits));
    tokens.push(next);
    past = out;
    pastLen += n;
    assert.equal(out.present_key_0.length, H * pastLen * HD);
    fresh = [next];
  }
  return { tokens, logits };
}

test('tiny_lm over HTTP: a greedy loop from an empty past gives the tokens of onnxruntime, alone and while other loops share its batches', async () => {
  const want = await generate('Hello, world', 8, onOrt);
  const other = await generate('a longer prompt than that', 8, onOrt);
  const alone = await generate('Hello, world', 8, overHttp);
  assert.deepEqual(alone.tokens, want.tokens);
  // Three loops at once: two of the same prompt (same shapes every step: they may share batches) and
  // one of another length (never batched with them: its shapes differ).
  const [x, y, z] = await Promise.all([generate('Hello, world', 8, overHttp), generate('Hello, world', 8, overHttp), generate('a longer prompt than that', 8, overHttp)]);
  for (const got of [alone, x, y]) {
    assert.deepEqual(got.tokens, want.tokens);
    got.logits.forEach((row, s) => row.forEach((v, k) => assert.ok(Math.abs(v - want.logits[s][k]) < 1e-4, `step ${s} logit ${k}`)));
  }
  assert.deepEqual(z.tokens, other.tokens);
  const formed = server.events.filter((e) => e.type === 'batch.formed' && e.model === 'tiny_lm');
  console.log('tiny_lm batch sizes over HTTP:', formed.map((e) => (e.type === 'batch.formed' ? e.size : 0)).join(' '));
  assert.ok(formed.length > 0 && formed.every((e) => e.type === 'batch.formed' && e.size >= 1 && e.size <= 8));
});

test('tiny_lm over HTTP: rows of one request never mix (each row\'s logits are its own prompt\'s alone)', async () => {
  const prompts = ['Hello, world', 'Goodbye, all'].map((p) => [...new TextEncoder().encode(p)]);
  const n = prompts[0].length;
  assert.equal(prompts[1].length, n);
  const emptyPast = (): T[] =>
    Array.from({ length: layers }, (_, l) => ['key', 'value'].map((kind): T => ({ name: `past_${kind}_${l}`, datatype: 'FP32', shape: [2, H, 0, HD], data: [] }))).flat();
  const out = await overHttp([
    { name: 'input_ids', datatype: 'INT64', shape: [2, n], data: prompts.flat() },
    { name: 'position_ids', datatype: 'INT64', shape: [2, n], data: [...prompts[0].keys(), ...prompts[1].keys()] },
    { name: 'attention_mask', datatype: 'INT64', shape: [2, n], data: new Array<number>(2 * n).fill(1) },
    ...emptyPast(),
  ]);
  const alone = await Promise.all(['Hello, world', 'Goodbye, all'].map((p) => generate(p, 1, onOrt)));
  assert.notDeepEqual(alone[0].logits[0], alone[1].logits[0]);
  alone.forEach((a, b) => a.logits[0].forEach((v, k) => assert.ok(Math.abs(v - out.logits[b * vocab + k]) < 1e-4, `row ${b} logit ${k}`)));
});

test('tiny_lm over HTTP: a malformed step is refused naming the rule it broke, and a good step beside it is served', async () => {
  const step = (o: { ids?: number[]; pos?: number[]; mask?: number; past?: number; pastValue0?: number; batchPast?: number }): T[] => {
    const ids = o.ids ?? [3];
    const pastLen = o.past ?? 0;
    const past = (len: number, batch = 1): number[] => new Array<number>(batch * H * len * HD).fill(0.1);
    return [
      { name: 'input_ids', datatype: 'INT64', shape: [1, ids.length], data: ids },
      { name: 'position_ids', datatype: 'INT64', shape: [1, (o.pos ?? ids.map((_, j) => pastLen + j)).length], data: o.pos ?? ids.map((_, j) => pastLen + j) },
      { name: 'attention_mask', datatype: 'INT64', shape: [1, o.mask ?? pastLen + ids.length], data: new Array<number>(o.mask ?? pastLen + ids.length).fill(1) },
      ...Array.from({ length: layers }, (_, l) =>
        ['key', 'value'].map((kind): T => {
          const len = l === 0 && kind === 'value' ? (o.pastValue0 ?? pastLen) : pastLen;
          const batch = l === 1 ? (o.batchPast ?? 1) : 1;
          return { name: `past_${kind}_${l}`, datatype: 'FP32', shape: [batch, H, len, HD], data: past(len, batch) };
        }),
      ).flat(),
    ];
  };
  const refused = async (inputs: T[], rule: RegExp) => {
    const res = await fetch(`${server.url}/v2/models/tiny_lm/infer`, { method: 'POST', body: JSON.stringify({ inputs }) });
    const body = (await res.json()) as { error?: string };
    assert.notEqual(res.status, 200, JSON.stringify(body).slice(0, 200));
    assert.match(body.error ?? '', rule);
  };
  await refused(step({ ids: [300] }), /check: input_ids are 0\.\.256/);
  await refused(step({ ids: [-1] }), /check: input_ids are 0\.\.256/); // would wrap to END without the check
  await refused(step({ pos: [256] }), /check: position_ids are 0\.\.255/);
  await refused(step({ pos: [0, 1] }), /check: position_ids is shaped as input_ids/);
  await refused(step({ past: 2, mask: 1 }), /check: attention_mask is \[batch, past \+ new\]/); // would attend to every key without the check
  await refused(step({ mask: 2 }), /check: attention_mask is \[batch, past \+ new\]/);
  await refused(step({ past: 2, pastValue0: 3, mask: 3 }), /check: past_value_0 is \[batch, 4, past, 16\]/);
  await refused(step({ past: 1, batchPast: 2, mask: 2 }), /past_key_1/); // the server's own check: batch size does not match
  // A bad step and a good one at once (they may share a batch: the server then runs them apart).
  const good = step({ ids: [72, 105] });
  const [bad, ok, want] = await Promise.all([
    fetch(`${server.url}/v2/models/tiny_lm/infer`, { method: 'POST', body: JSON.stringify({ inputs: step({ ids: [72, 300] }) }) }),
    overHttp(good),
    onOrt(good),
  ]);
  assert.notEqual(bad.status, 200);
  ok.logits.forEach((v, k) => assert.ok(Math.abs(v - want.logits[k]) < 1e-4));
});
