import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIVE_LIMITS } from '@inferscope/core/live-config';
import { DEFAULT_URL_STATE, parseUrlState, serializeUrlState } from '../src/store/url-state';
import { parseSizes } from '../src/controls/target';
import { applyConfigChanges, batchingOf, configLabel } from '../src/store/config-paths';

test('URL state round-trips and writes only what differs from the defaults', () => {
  const s = { ...DEFAULT_URL_STATE, view: 'state' as const, model: 'mlp_classifier:1', window: 60, lesson: 'batching', scenario: 'burst', seed: 7, theme: 'dark' as const, large: true, mode: 'teach' as const };
  const text = serializeUrlState(s);
  assert.deepEqual(parseUrlState(text), s);
  assert.equal(serializeUrlState({ ...DEFAULT_URL_STATE }), '?theme=light');
});

test('bad URL values fall back to defaults instead of breaking the page', () => {
  const s = parseUrlState('?view=nope&window=-5&seed=1.5&mode=x&theme=blue&colour=priority', true);
  assert.equal(s.view, 'architecture');
  assert.equal(s.window, 30);
  assert.equal(s.seed, 1);
  assert.equal(s.mode, 'live');
  assert.equal(s.theme, 'dark'); // OS preference is the fallback
  assert.equal(s.colour, 'priority');
});

test('preferred sizes parse from commas or spaces and refuse junk clearly', () => {
  assert.deepEqual(parseSizes('4, 8 16'), [4, 8, 16]);
  assert.deepEqual(parseSizes(''), []);
  assert.throws(() => parseSizes('4, x'), /'x' is not a positive whole number/);
  assert.throws(() => parseSizes('0'), /not a positive/);
});

test('batching view and config labels read Triton field names', () => {
  const cfg: Record<string, unknown> = { max_batch_size: 32, dynamic_batching: { max_queue_delay_microseconds: 2000, preferred_batch_size: [8, 16] } };
  assert.deepEqual(batchingOf(cfg, 2), { maxBatchSize: 32, dynamic: true, maxQueueDelayUs: 2000, preferred: [8, 16], priorityLevels: 0, instances: 2 });
  assert.equal(batchingOf({ max_batch_size: 0 }, 1).dynamic, false);
  applyConfigChanges(cfg, [{ path: 'dynamic_batching.preferred_batch_size', new: [4] }]);
  const m = { config: cfg, instances: new Map([['i0', { state: 'idle' }], ['i1', { state: 'draining' }]]) } as never;
  assert.equal(configLabel(m), 'd=2ms p=[4] mb=32 ×1');
});

test('language and the teaching knobs round-trip through the URL; bad ones are dropped', () => {
  const s = { ...DEFAULT_URL_STATE, mode: 'teach' as const, lesson: 'batching', lang: 'zh' as const, delay: 2000, pbs: [4, 8], mbs: 16, inst: 2, speed: 10, t: 123456 };
  const text = serializeUrlState(s);
  assert.match(text, /lang=zh/);
  assert.deepEqual(parseUrlState(text), s);
  const bad = parseUrlState('?lang=fr&delay=-1&inst=0&pbs=4,x&t=abc');
  assert.equal(bad.lang, 'en');
  for (const k of ['delay', 'inst', 'pbs', 't'] as const) assert.equal(bad[k], undefined, k);
});

test('teaching knobs that are live config fields take the server\'s bounds (LIVE_LIMITS)', () => {
  const L = LIVE_LIMITS;
  const top = parseUrlState(`?delay=${L.max_queue_delay_microseconds.max}&mbs=${L.max_batch_size.max}&inst=${L.instance_count.max}&pbs=${L.preferred_batch_size.max}`);
  assert.deepEqual([top.delay, top.mbs, top.inst, top.pbs], [L.max_queue_delay_microseconds.max, L.max_batch_size.max, L.instance_count.max, [L.preferred_batch_size.max]]);
  const over = parseUrlState(`?delay=${L.max_queue_delay_microseconds.max + 1}&mbs=${L.max_batch_size.min - 1}&inst=${L.instance_count.max + 1}&pbs=${L.preferred_batch_size.max + 1}`);
  for (const k of ['delay', 'mbs', 'inst', 'pbs'] as const) assert.equal(over[k], undefined, k);
  const tooMany = Array.from({ length: L.preferred_batch_sizes.max + 1 }, (_, i) => i + 1).join(',');
  assert.equal(parseUrlState(`?pbs=${tooMany}`).pbs, undefined, 'more preferred sizes than a patch may list');
});
