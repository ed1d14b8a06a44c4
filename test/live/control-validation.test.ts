// The control validator built from core's schemas: every action's good message passes (decoded), every
// kind of bad field is refused with a sentence that names the field, and the live-config limits are the
// exact edges of what is accepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIVE_LIMITS } from '@inferscope/core/live-config';
import { validateControlMessage } from '@inferscope/core/live';

const refused = (msg: unknown): string => {
  const v = validateControlMessage(msg);
  assert.equal(v.ok, false, `accepted: ${JSON.stringify(msg)}`);
  return (v as { error: string }).error;
};

test('good messages of every action pass; a numeric version is decoded to a string; the token is taken out', () => {
  const good = [
    { action: 'setDynamicBatching', model: 'm', version: 2, max_queue_delay_microseconds: 0, preferred_batch_size: [4, 8], priority_queue_policy: { 1: { timeout_action: 'DELAY' } } },
    { action: 'setInstanceCount', model: 'm', group: 'g', count: 2 },
    { action: 'loadModel', model: 'm' }, { action: 'unloadModel', model: 'm' }, { action: 'saveConfig', model: 'm', dryRun: true },
    { action: 'startLoad', model: 'm', scenario: 'steady', rate: 10.5, mode: 'http' }, { action: 'startLoad', model: 'm', scenario: { kind: 'x' } },
    { action: 'stopLoad' }, { action: 'startReplay', trace: 'run-1.ndjson', speed: 2 },
    { action: 'startRecording', models: ['m'] }, { action: 'stopRecording', id: 'r1' },
  ];
  for (const msg of good) {
    const v = validateControlMessage({ ...msg, token: 'secret' });
    assert.ok(v.ok, `${JSON.stringify(msg)}: ${(v as { error?: string }).error}`);
    assert.equal(v.token, 'secret');
    assert.ok(!('token' in v.value));
  }
  const v = validateControlMessage(good[0]);
  assert.ok(v.ok && v.value.action === 'setDynamicBatching' && v.value.version === '2');
});

test('bad fields are refused, naming the field and what it must be', () => {
  const cases: [unknown, RegExp][] = [
    [{ action: 'setDynamicBatching', model: 'm', preferred_batch_size: [4, 0] }, /^'preferred_batch_size\[1\]' must be between 1 and/],
    [{ action: 'setDynamicBatching', model: 'm', default_queue_policy: { max_queue_size: 'x' } }, /^'default_queue_policy.max_queue_size' must be an integer/],
    [{ action: 'setDynamicBatching', model: 'm', default_queue_policy: { colour: 1 } }, /unknown field 'colour' in default_queue_policy \(allowed: timeout_action/],
    [{ action: 'setDynamicBatching', model: 'm', priority_queue_policy: { zero: {} } }, /'priority_queue_policy' is keyed by priority level/],
    [{ action: 'setDynamicBatching', model: 'm', preserve_ordering: 'yes' }, /'preserve_ordering' must be true or false/],
    [{ action: 'setDynamicBatching', model: 'm', version: '1x', max_batch_size: 2 }, /'version' must be a positive integer version/],
    [{ action: 'setDynamicBatching', model: '..', max_batch_size: 2 }, /'model' is not a valid model name/],
    [{ action: 'setDynamicBatching', model: 'a\u0001b', max_batch_size: 2 }, /not a valid model name/],
    [{ action: 'setInstanceCount', model: 'm' }, /'count' is required/],
    [{ action: 'startLoad', model: 'm', scenario: 'steady', rate: 0 }, /'rate' must be > 0/],
    [{ action: 'startLoad', model: 'm', scenario: 7 }, /'scenario' must be a preset name or a scenario object/],
    [{ action: 'startReplay', trace: 'a/../b' }, /file name in the recordings folder/],
    [{ action: 'startRecording', models: [] }, /'models' must be a non-empty list/],
    [{ action: 'stopLoad', id: '' }, /'id' must be a load id/],
    [{ action: 'loadModel', model: 'm', extra: 1 }, /unknown field 'extra' in loadModel \(allowed: action, model\)/],
    [[1, 2], /must be an object/],
  ];
  for (const [msg, re] of cases) assert.match(refused(msg), re, JSON.stringify(msg));
});

test('the live-config limits are the exact edges of what control accepts', () => {
  const edges: [string, keyof typeof LIVE_LIMITS, (v: number) => Record<string, unknown>][] = [
    ['max_queue_delay_microseconds', 'max_queue_delay_microseconds', (v) => ({ action: 'setDynamicBatching', model: 'm', max_queue_delay_microseconds: v })],
    ['max_batch_size', 'max_batch_size', (v) => ({ action: 'setDynamicBatching', model: 'm', max_batch_size: v })],
    ['count', 'instance_count', (v) => ({ action: 'setInstanceCount', model: 'm', count: v })],
  ];
  for (const [field, limit, msg] of edges) {
    const { min, max } = LIVE_LIMITS[limit];
    assert.ok(validateControlMessage(msg(min)).ok && validateControlMessage(msg(max)).ok, field);
    assert.match(refused(msg(max + 1)), new RegExp(`'${field}' must be between ${min} and ${max}`));
    assert.match(refused(msg(min - 1)), new RegExp(`'${field}' must be between`));
  }
});
