// The one reading of numeric model parameters (issue 56): plain digits only, bounded, the same words for
// every key and every way in (config validation, the readers, control's and the CLI's autotune target).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { autotuneTargetOfMs, autotuneTargetUs } from './autotune-parameter';
import { NUMERIC_PARAMETERS, numericParameter, numericParameterProblem } from './numeric-parameters';
import { BASE, issuesOf } from './validate/test-helpers';

const withParam = (key: string, value: string) => ({ name: 'm', parameters: { [key]: { string_value: value } } });
const HUGE = '99999999999999999999';
// what Number() takes (or parseInt, or a sloppy regex) and a person did not mean
const REFUSED = ['', '1e3', '0x10', '+5', ' 7', '7 ', '1.5', '-1', HUGE, '1_000', 'Infinity', 'NaN', '٣', '0b1', '.5', '5.'];

test('every integer parameter refuses anything but plain digits in range, with one wording', () => {
  for (const [key, rule] of Object.entries(NUMERIC_PARAMETERS)) {
    if (rule.decimals) continue;
    for (const text of REFUSED) {
      const problem = numericParameterProblem(withParam(key, text), key);
      assert.ok(problem, `${key} = '${text}' was accepted`);
      assert.equal(problem, `parameter '${key}' of model 'm' must be an integer >= ${rule.min} and <= ${rule.max} (plain digits), got '${text}'`);
      assert.throws(() => numericParameter(withParam(key, text), key), { message: problem });
    }
    assert.equal(numericParameter(withParam(key, String(rule.min)), key), rule.min);
    assert.equal(numericParameter(withParam(key, String(rule.max)), key), rule.max);
  }
  assert.equal(numericParameter(withParam('execute_timeout_ms', '1500'), 'execute_timeout_ms'), 1500);
  assert.equal(numericParameter(withParam('execute_timeout_ms', '007'), 'execute_timeout_ms'), 7);
  assert.equal(numericParameter({ name: 'm' }, 'execute_timeout_ms'), undefined);
  assert.match(numericParameterProblem(withParam('execution_mode', '2'), 'execution_mode')!, /must be an integer >= 0 and <= 1 \(plain digits\), got '2'/);
});

test('config validation refuses a bad numeric parameter, naming it, whatever the backend', () => {
  for (const text of ['', '1e3', '0x10', '+5', ' 7', '1.5', '-1', HUGE]) {
    const issues = issuesOf(`${BASE}parameters { key: "execute_timeout_ms" value: { string_value: "${text}" } }`);
    assert.equal(issues.length, 1, `'${text}': ${JSON.stringify(issues)}`);
    assert.equal(issues[0]!.path, 'parameters.execute_timeout_ms');
    assert.match(issues[0]!.message, new RegExp(`parameter 'execute_timeout_ms' of model 'm' must be an integer >= 0 .*got '${text.replace(/[.+]/g, '\\$&')}'`));
  }
  assert.deepEqual(issuesOf(`${BASE}parameters { key: "execute_timeout_ms" value: { string_value: "1500" } }`), []);
  // keys InferScope does not read are the model's own (a python model's settings): not checked
  assert.deepEqual(issuesOf(`${BASE}parameters { key: "my_setting" value: { string_value: "1e3" } }`), []);
  assert.deepEqual(issuesOf(`${BASE}parameters { key: "constructor" value: { string_value: "x" } }`), []);
});

test('the autotune target: ms with at most 3 decimals, at least 1 µs; never rounded to 0', () => {
  const target = (text: string) => autotuneTargetUs(withParam('autotune_p99_ms', text));
  assert.equal(target('3'), 3000);
  assert.equal(target('2.5'), 2500);
  assert.equal(target('0.001'), 1);
  for (const text of ['0', '0.0004', '0.0001', '1e-7', '', '1e3', '0x10', '+5', ' 7', '-1', HUGE]) {
    assert.throws(() => target(text), new RegExp(`parameter 'autotune_p99_ms' of model 'm' must be a number >= 0.001 and <= 3600000 \\(plain digits, at most 3 decimals\\), got '${text.replace(/[.+]/g, '\\$&')}'`), text);
  }
  // control's target_ms (a JSON number) and the CLI's --autotune (text) by the same rule
  assert.equal(autotuneTargetOfMs(2.5, 'target_ms'), 2500);
  assert.equal(autotuneTargetOfMs('0.001', '--autotune'), 1);
  assert.throws(() => autotuneTargetOfMs(0.0001, 'target_ms'), /^Error: target_ms must be a number >= 0.001 .*got '0.0001'$/);
  assert.throws(() => autotuneTargetOfMs(1e-7, 'target_ms'), /got '1e-7'/);
  assert.throws(() => autotuneTargetOfMs('0.0004', '--autotune'), /^Error: --autotune must be a number >= 0.001/);
});
