import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateControlMessage } from '@inferscope/core/live';
import { shortConfig, toRequest, DEFAULT_FORM } from '../../apps/web/src/sweep/sweep-form.ts';

test('startSweep is validated like every control message (core schema): clear errors, nothing started', () => {
  const ok = validateControlMessage({ action: 'startSweep', model: 'm', delay_us: [0, 1000], preferred: ['none', 'max', [4, 8]], latency_budget_ms: 5 });
  assert.equal(ok.ok, true);
  assert.deepEqual(ok.ok && ok.value, { action: 'startSweep', model: 'm', delay_us: [0, 1000], preferred: ['none', 'max', [4, 8]], latency_budget_ms: 5 });
  const bad: [unknown, RegExp][] = [
    [{ action: 'startSweep', model: 'm' }, /'delay_us' is required/],
    [{ action: 'startSweep', model: 'm', delay_us: [-1] }, /'delay_us\[0\]' must be between 0/],
    [{ action: 'startSweep', model: 'm', delay_us: [0], search: 'random' }, /grid or prune/],
    [{ action: 'startSweep', model: 'm', delay_us: [0], preferred: ['all'] }, /'preferred\[0\]' must be 'none', 'max' or a list of sizes/],
    [{ action: 'startSweep', model: 'm', delay_us: [0], colour: 'red' }, /unknown field 'colour'/],
    [{ action: 'stopSweep', id: 'x' }, /unknown field 'id'/],
  ];
  for (const [msg, re] of bad) {
    const v = validateControlMessage(msg);
    assert.equal(v.ok, false, JSON.stringify(msg));
    assert.match(!v.ok ? v.error : '', re);
  }
});

test('the Sweep panel form becomes a startSweep request, or says which field is wrong', () => {
  const r = toRequest('m', '1', { ...DEFAULT_FORM, instances: '1, 2', maxBatch: '', preferred: 'none,max,4+8', budgetMs: '2.5' });
  assert.deepEqual([r.instances, r.max_batch, r.delay_us, r.preferred, r.latency_budget_ms], [[1, 2], undefined, [0, 1000, 4000], ['none', 'max', [4, 8]], 2.5]);
  assert.throws(() => toRequest('m', '1', { ...DEFAULT_FORM, delayUs: '' }), /delay/);
  assert.throws(() => toRequest('m', '1', { ...DEFAULT_FORM, instances: '0' }), /instances: '0'/);
  assert.throws(() => toRequest('m', '1', { ...DEFAULT_FORM, budgetMs: 'soon' }), /latency budget/);
  assert.equal(shortConfig({ instances: 2, max_batch_size: 32, max_queue_delay_microseconds: 1500, preferred_batch_size: [] }), 'i2 b32 d1.5ms p-');
});
