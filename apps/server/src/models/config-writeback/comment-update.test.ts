/**
 * A save updates or drops the comments its new values make false (issue 53): "# Two instances" over
 * count: 2 after writing 1, "waited 2 ms" over max_queue_delay_microseconds: 2000 after writing 500, a
 * comment naming a preferred size the new list drops. Comments that do not mention the old value stay.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseModelConfig } from '@inferscope/core/config';
import { editConfigText } from './text-edit';
import { updateComments } from './comment-update';

const MLP = readFileSync(new URL('../../../../../model_repository/mlp_classifier/config.pbtxt', import.meta.url), 'utf8');

test('the demo config: count 2 -> 1 and delay 2000 -> 500 rewrite the comments that said so, and only those', () => {
  const notes: string[] = [];
  const out = editConfigText(MLP, [
    { path: 'instance_group[0].count', value: 1 },
    { path: 'dynamic_batching.max_queue_delay_microseconds', value: 500 },
  ], notes)!;
  assert.match(out, /^# One instance, each a worker thread with its own ONNX Runtime session: one per core\.$/m);
  assert.match(out, /^ {2}# \.\.\. or once the oldest request has waited 0\.5 ms\.$/m);
  assert.match(out, /^ {4}count: 1$/m);
  // a comment attached to another field mentions 2 as well: it is not this value's comment
  assert.match(out, /^# One intra-op thread per instance: 2 instances x 1 thread = the 2 cores, no oversubscription\.$/m);
  assert.match(out, /^ {2}# Send a batch as soon as one of these sizes is reachable/m, 'a comment without the old value stays');
  assert.equal(notes.length, 2, notes.join('\n'));
  assert.equal(out.split('\n').length, MLP.split('\n').length);
  const cfg = parseModelConfig(out);
  assert.equal(cfg.instance_group?.[0].count, 1);
  assert.equal(cfg.dynamic_batching?.max_queue_delay_microseconds, 500);
});

test('a list value: a comment line naming a size the new list drops is removed, the others stay', () => {
  const text = 'dynamic_batching {\n  # sizes 8 and 32 fill the cores\n  # tuned for latency\n  preferred_batch_size: [ 8, 16, 32 ]  # 16 is common\n}\n';
  const notes: string[] = [];
  const out = editConfigText(text, [{ path: 'dynamic_batching.preferred_batch_size', value: [8, 16] }], notes)!;
  assert.equal(out, 'dynamic_batching {\n  # tuned for latency\n  preferred_batch_size: [ 8, 16 ]  # 16 is common\n}\n');
  assert.match(notes[0], /dropped the comment '# sizes 8 and 32 fill the cores'/);
});

test('mentions are matched as numbers, in their unit, with the noun agreeing; names and other numbers are not', () => {
  // the field is the line `x: ...`
  const edit = (text: string, field: string, old: unknown, value: unknown) =>
    updateComments(text, { fieldLine: text.split('\n').findIndex((l) => l.startsWith('x:')) + 1, enclosingLines: [], field, old, value }, []);
  assert.equal(edit('# wait 1 ms, i.e. 1000us\nx: 1000', 'max_queue_delay_microseconds', 1000, 2500), '# wait 2.5 ms, i.e. 2500us\nx: 1000');
  assert.equal(edit('# one instance per core\nx: 1', 'count', 1, 3), '# three instances per core\nx: 1');
  // a number not tied to the field's noun is not guessed at: "one batch", "2 cores" stay as written
  assert.equal(edit('# one batch per instance\nx: 1', 'count', 1, 3), '# one batch per instance\nx: 1');
  assert.equal(edit('# 2 instances on 2 cores\nx: 2', 'count', 2, 1), '# 1 instance on 2 cores\nx: 2');
  assert.equal(edit('# 3x3 kernels, v3, 3.5 GB, "#3"\nx: 3', 'count', 3, 4), '# 3x3 kernels, v3, 3.5 GB, "#3"\nx: 3');
  assert.equal(edit('# 40 instances\nx: 40', 'count', 40, 1), '# 1 instance\nx: 40');
  assert.equal(edit('# FOUR workers\n\nx: 4', 'count', 4, 2), '# FOUR workers\n\nx: 4', 'a blank line detaches a comment');
  const notes: string[] = [];
  const trailing = updateComments('count: 4 name: "a#4" # four workers\n', { fieldLine: 1, enclosingLines: [], field: 'count', old: 4, value: 2 }, notes);
  assert.equal(trailing, 'count: 4 name: "a#4" # two workers\n', 'a # inside a string is not a comment');
  updateComments('# 2 instances on 2 cores\ncount: 2\n', { fieldLine: 2, enclosingLines: [], field: 'count', old: 2, value: 1 }, notes);
  assert.match(notes.at(-1)!, /mentions 2, the old count, in words the save cannot tie to it: check it still holds/);
});
