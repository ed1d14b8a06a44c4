import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../load/rng';
import { KvBlockAllocator, type KvAdmissionPolicy, type KvBlockMap } from './block-allocator';

/** Every invariant of the block map, checked from the outside (the snapshot) after every operation. */
function checkInvariants(a: KvBlockAllocator, expectedTokens: Map<string, number>): KvBlockMap {
  const map = a.snapshot();
  const { usage } = map;
  assert.equal(usage.freeBlocks + usage.usedBlocks, a.totalBlocks, 'free + used == budget');
  const owner = new Map<number, string>();
  let held = 0;
  for (const s of map.sequences) {
    for (const b of s.blocks) {
      assert.ok(Number.isInteger(b) && b >= 0 && b < a.totalBlocks, `block ${b} is in the budget`);
      assert.ok(!owner.has(b), `block ${b} owned by ${owner.get(b)} and ${s.id}`);
      owner.set(b, s.id);
    }
    held += s.blocks.length;
    assert.equal(s.blocks.length, Math.ceil(s.tokens / a.blockTokens), `${s.id} holds exactly the blocks its tokens need`);
    assert.equal(s.tokens, expectedTokens.get(s.id), `${s.id} holds the tokens it was given`);
  }
  assert.equal(held, usage.usedBlocks, 'used blocks are exactly the blocks in block tables');
  assert.deepEqual(new Set(map.sequences.map((s) => s.id)), new Set(expectedTokens.keys()), 'the admitted sequences');
  map.blocks.forEach((blk, b) => {
    assert.equal(blk.owner, owner.get(b) ?? null, `block ${b}'s owner in the map`);
    if (blk.owner === null) assert.equal(blk.tokens, 0);
    else assert.ok(blk.tokens >= 1 && blk.tokens <= a.blockTokens, `block ${b} holds 1..${a.blockTokens} tokens`);
  });
  assert.equal(map.blocks.reduce((n, b) => n + b.tokens, 0), usage.usedTokens);
  const reserved = map.sequences.reduce((n, s) => n + s.reservedBlocks, 0);
  assert.equal(usage.reservedBlocks, reserved);
  assert.ok(usage.reservedBlocks <= usage.freeBlocks, 'a reservation is always backed by free blocks');
  if (a.policy === 'max_utilization') assert.equal(usage.reservedBlocks, 0);
  return map;
}

/** A seeded random trace of admissions, decode steps and completions, with the invariants after each. */
function runTrace(policy: KvAdmissionPolicy, seed: number): { preemptions: number; admitted: number; waits: number } {
  const rng = new Rng(seed);
  const blockTokens = rng.int(1, 8);
  const a = new KvBlockAllocator({ totalBlocks: rng.int(4, 40), blockTokens, policy });
  const tokens = new Map<string, number>();
  const order = new Map<string, number>();
  let next = 0;
  let preemptions = 0;
  let waits = 0;
  for (let step = 0; step < 400; step++) {
    const op = rng.next();
    const ids = [...tokens.keys()];
    if (op < 0.3 || ids.length === 0) {
      const prompt = rng.int(1, 3 * blockTokens);
      const max = prompt + rng.int(0, 4 * blockTokens);
      const d = a.canAdmit(prompt, max);
      if (d.kind === 'admit') {
        const id = `s${next++}`;
        const table = a.admit(id, prompt, max);
        assert.equal(table.length, Math.ceil(prompt / blockTokens));
        tokens.set(id, prompt);
        order.set(id, next);
      } else if (d.kind === 'wait') {
        waits++;
        assert.ok(d.neededBlocks > d.availableBlocks, 'a wait means the blocks are not there');
        assert.throws(() => a.admit('refused', prompt, max), /cannot be admitted/);
      } else {
        assert.ok(Math.ceil(max / blockTokens) > a.totalBlocks, 'never only for a sequence larger than the budget');
      }
    } else if (op < 0.85) {
      const id = ids[rng.int(0, ids.length - 1)];
      const room = a.sequence(id).maxTokens - tokens.get(id)!;
      if (room === 0) continue;
      const by = rng.next() < 0.8 ? 1 : rng.int(1, room);
      const before = a.snapshot();
      const r = a.grow(id, by);
      if (policy === 'guaranteed_no_evict') {
        assert.equal(r.grown, true, 'guaranteed_no_evict never fails to grow');
        assert.deepEqual(r.preempted, [], 'guaranteed_no_evict never evicts');
      }
      // Preemption frees exactly the victims' blocks, the newest first, and touches nobody else.
      const victims = new Set(r.preempted.map((p) => p.id));
      const survivors = [...tokens.keys()].filter((s) => !victims.has(s));
      for (const v of r.preempted) {
        assert.equal(v.tokens, tokens.get(v.id), 'a victim reports the tokens to recompute');
        for (const s of survivors) assert.ok(order.get(v.id)! > order.get(s)!, `victim ${v.id} is newer than survivor ${s}`);
        tokens.delete(v.id);
        preemptions++;
      }
      const victimBlocks = before.sequences.filter((s) => victims.has(s.id)).flatMap((s) => s.blocks);
      const after = a.snapshot();
      if (r.grown) {
        tokens.set(id, tokens.get(id)! + by);
        assert.equal(after.usage.freeBlocks, before.usage.freeBlocks + victimBlocks.length - r.newBlocks.length);
        for (const b of r.newBlocks) assert.ok(before.blocks[b].owner === null || victims.has(before.blocks[b].owner!), `new block ${b} was free or a victim's`);
      } else {
        assert.ok(victims.has(id), 'a sequence that did not grow was preempted itself');
        assert.equal(after.usage.freeBlocks, before.usage.freeBlocks + victimBlocks.length);
      }
      for (const s of before.sequences) {
        if (victims.has(s.id) || s.id === id) continue;
        assert.deepEqual(after.sequences.find((x) => x.id === s.id)!.blocks, s.blocks, `${s.id} keeps its blocks`);
      }
    } else {
      const id = ids[rng.int(0, ids.length - 1)];
      const held = a.sequence(id).blocks.length;
      const free = a.usage().freeBlocks;
      assert.equal(a.release(id), held);
      assert.equal(a.usage().freeBlocks, free + held, 'release frees exactly its blocks');
      tokens.delete(id);
    }
    checkInvariants(a, tokens);
  }
  for (const id of [...tokens.keys()]) {
    a.release(id);
    tokens.delete(id);
    checkInvariants(a, tokens);
  }
  assert.deepEqual(a.usage(), {
    totalBlocks: a.totalBlocks, usedBlocks: 0, freeBlocks: a.totalBlocks, reservedBlocks: 0, sequences: 0, usedTokens: 0, heldTokenSlots: 0,
  }, 'everything is free once every sequence has ended');
  return { preemptions, admitted: next, waits };
}

for (const policy of ['guaranteed_no_evict', 'max_utilization'] as const) {
  test(`${policy}: 60 seeded random traces keep every invariant`, () => {
    let preemptions = 0;
    let admitted = 0;
    let waits = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const r = runTrace(policy, seed);
      preemptions += r.preemptions;
      admitted += r.admitted;
      waits += r.waits;
    }
    // The traces must exercise what they check: admissions, refusals and (for max_utilization) preemption.
    assert.ok(admitted > 500, `admitted ${admitted}`);
    assert.ok(waits > 50, `waits ${waits}`);
    if (policy === 'max_utilization') assert.ok(preemptions > 50, `preemptions ${preemptions}`);
  });
}

test('guaranteed_no_evict reserves a sequence\'s maximum: a later admission waits although blocks are free', () => {
  const a = new KvBlockAllocator({ totalBlocks: 6, blockTokens: 4, policy: 'guaranteed_no_evict' });
  assert.deepEqual(a.admit('a', 3, 16), [0]); // 1 block drawn, 3 more reserved
  assert.deepEqual(a.usage().reservedBlocks, 3);
  assert.deepEqual(a.canAdmit(1, 12), { kind: 'wait', neededBlocks: 3, availableBlocks: 2 });
  assert.deepEqual(a.canAdmit(1, 8), { kind: 'admit', blocks: 2 });
  const r = a.grow('a', 13); // to its maximum of 16 tokens: draws exactly its 3 reserved blocks
  assert.deepEqual(r, { grown: true, newBlocks: [1, 2, 3], preempted: [] });
  assert.equal(a.usage().reservedBlocks, 0);
  assert.throws(() => a.grow('a'), /over its maximum of 16/);
});

test('max_utilization admits on the prompt alone and preempts the most recently admitted when out of blocks', () => {
  const a = new KvBlockAllocator({ totalBlocks: 4, blockTokens: 2, policy: 'max_utilization' });
  a.admit('old', 2, 8); // block 0
  a.admit('mid', 2, 8); // block 1
  a.admit('new', 4, 8); // blocks 2, 3
  assert.deepEqual(a.canAdmit(1, 2), { kind: 'wait', neededBlocks: 1, availableBlocks: 0 });
  const r = a.grow('old');
  assert.deepEqual(r, { grown: true, newBlocks: [2], preempted: [{ id: 'new', tokens: 4 }] });
  assert.deepEqual(a.sequence('old').blocks, [0, 2]);
  assert.deepEqual(a.snapshot().blocks.map((b) => b.owner), ['old', 'mid', 'old', null]);
  assert.ok(!a.has('new'));
  // The newest left is the one growing: it gives way itself rather than evict an older sequence.
  a.grow('mid', 2); // takes block 3
  const self = a.grow('mid');
  assert.deepEqual(self, { grown: false, preempted: [{ id: 'mid', tokens: 4 }] });
  assert.deepEqual(a.sequence('old').blocks, [0, 2]);
  assert.equal(a.usage().freeBlocks, 2);
});

test('a sequence larger than the whole budget is never admitted, with the numbers in the reason', () => {
  for (const policy of ['guaranteed_no_evict', 'max_utilization'] as const) {
    const a = new KvBlockAllocator({ totalBlocks: 3, blockTokens: 16, policy });
    const d = a.canAdmit(10, 49);
    assert.equal(d.kind, 'never');
    assert.match(d.kind === 'never' ? d.reason : '', /budget of 3 blocks holds 48 tokens, less than one sequence's maximum of 49 tokens \(4 blocks of 16 tokens\)/);
    assert.equal(a.canAdmit(10, 48).kind, 'admit');
  }
});

test('the snapshot counts the tokens in each block, the partly filled last block included', () => {
  const a = new KvBlockAllocator({ totalBlocks: 4, blockTokens: 4, policy: 'max_utilization' });
  a.admit('x', 6, 10);
  const map = a.snapshot();
  assert.deepEqual(map.blocks, [{ owner: 'x', tokens: 4 }, { owner: 'x', tokens: 2 }, { owner: null, tokens: 0 }, { owner: null, tokens: 0 }]);
  assert.equal(map.usage.usedTokens, 6);
  assert.equal(map.usage.heldTokenSlots, 8);
});

test('misuse is refused with a clear error', () => {
  assert.throws(() => new KvBlockAllocator({ totalBlocks: 0, blockTokens: 4, policy: 'max_utilization' }), /totalBlocks must be a positive integer/);
  assert.throws(() => new KvBlockAllocator({ totalBlocks: 4, blockTokens: 1.5, policy: 'max_utilization' }), /blockTokens must be a positive integer/);
  assert.throws(() => new KvBlockAllocator({ totalBlocks: 4, blockTokens: 4, policy: 'lru' as KvAdmissionPolicy }), /policy must be one of/);
  const a = new KvBlockAllocator({ totalBlocks: 4, blockTokens: 4, policy: 'guaranteed_no_evict' });
  assert.throws(() => a.canAdmit(0, 4), /at least 1 token/);
  assert.throws(() => a.canAdmit(5, 4), /no smaller than the prompt/);
  a.admit('a', 1, 4);
  assert.throws(() => a.admit('a', 1, 4), /already admitted/);
  assert.throws(() => a.grow('b'), /no sequence b/);
  assert.throws(() => a.release('b'), /no sequence b/);
  assert.throws(() => a.grow('a', -1), /cannot grow by -1/);
});
