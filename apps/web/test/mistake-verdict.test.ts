/** Lesson 2's checker calls no mistake valid, and gives the message the server gives at load. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MISTAKE_EXAMPLES, mistakeVerdict } from '../src/teach/mistake-verdict';

test('every example mistake is refused; the batch dimension in dims gets the load message and the hint', () => {
  for (const { text } of MISTAKE_EXAMPLES) assert.equal(mistakeVerdict(text, 'valid').ok, false, text);
  const first = mistakeVerdict(MISTAKE_EXAMPLES[0]!.text, 'valid');
  assert.match(first.message, /model 'mlp_classifier', tensor 'input': the model expects 2 dimensions \(shape \[-1,784\]\) but the model configuration specifies 3 dimensions/);
  assert.match(first.message, /making complete shape \[-1,1,784\]/);
  assert.match(first.message, /hint: .*dims: \[ 784 \]/);
  const fixed = MISTAKE_EXAMPLES[0]!.text.replace('dims: [1, 784]', 'dims: [784]');
  assert.deepEqual(mistakeVerdict(fixed, 'valid'), { ok: true, message: 'valid' });
});
