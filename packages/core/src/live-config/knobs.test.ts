import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KNOBS, describeKnobPatch, knobNamed, parseKnobPatch, splitKnobPatch } from './knobs';
import { LIVE_LIMITS } from './limits';
import { DYNAMIC_BATCHING_FIELDS } from './fields';

test('every name of every knob is its own: no word names two knobs or shadows a dynamic_batching field', () => {
  const words = KNOBS.flatMap((k) => [...new Set([k.field, k.urlKey, k.word, ...k.aliases])]);
  assert.equal(new Set(words).size, words.length, words.join(' '));
  for (const k of KNOBS) {
    assert.ok(k.limit in LIVE_LIMITS, k.limit);
    for (const w of [k.urlKey, k.word, ...k.aliases]) assert.ok(!(DYNAMIC_BATCHING_FIELDS as readonly string[]).includes(w) || w === k.field, w);
    for (const w of [k.field, k.urlKey, k.word, ...k.aliases]) assert.equal(knobNamed(w), k);
  }
});

test('one grammar: words by any name, spaces or semicolons, a JSON object, a bare delay', () => {
  const want = { max_queue_delay_microseconds: 2000, preferred_batch_size: [8, 16], max_batch_size: 32, instance_count: 2 };
  assert.deepEqual(parseKnobPatch('delay=2000 preferred=8,16 max_batch=32 instances=2'), want);
  assert.deepEqual(parseKnobPatch('max_queue_delay_microseconds=2000;preferred_batch_size=[8,16];mbs=32;inst=2'), want);
  assert.deepEqual(parseKnobPatch('{"delay": 2000, "preferred_batch_size": [8, 16], "max_batch": 32, "instances": 2}'), want);
  assert.deepEqual(parseKnobPatch(' 750 '), { max_queue_delay_microseconds: 750 });
  assert.deepEqual(parseKnobPatch('preserve_ordering=true;default_queue_policy={"max_queue_size":4}'), { preserve_ordering: true, default_queue_policy: { max_queue_size: 4 } });
  // what a report prints reads back as the same patch
  assert.equal(describeKnobPatch(want), 'delay=2000 preferred=8,16 max_batch=32 instances=2');
  assert.deepEqual(parseKnobPatch(describeKnobPatch(want)), want);
  assert.deepEqual(splitKnobPatch(want), { batching: { max_queue_delay_microseconds: 2000, preferred_batch_size: [8, 16], max_batch_size: 32 }, instances: 2 });
});

test('knob values out of their live limits are refused with the live limits\' words', () => {
  assert.throws(() => parseKnobPatch('instances=0'), /'instance_count' must be between 1 and 64, got 0/);
  assert.throws(() => parseKnobPatch('delay=-5'), /'max_queue_delay_microseconds' must be between 0 and/);
  assert.throws(() => parseKnobPatch('delay=1.5'), /must be between/);
  assert.throws(() => parseKnobPatch('preferred=8,0'), /'preferred_batch_size' must be between 1 and/);
  assert.throws(() => parseKnobPatch(`preferred=${Array.from({ length: 65 }, (_, i) => i + 1).join(',')}`), /may list at most 64 sizes, got 65/);
  assert.throws(() => parseKnobPatch('colour=red'), /unknown field 'colour'/);
  assert.throws(() => parseKnobPatch('delay='), /write key=value/);
  assert.throws(() => parseKnobPatch('{"delay": '), /not valid JSON/);
  assert.throws(() => parseKnobPatch('[1,2]'), /write key=value/);
  assert.throws(() => parseKnobPatch('   '), /at least one field/);
});
