/**
 * The Chinese for sentences the server and core compose in English (i18n/server-text.ts): every fixed
 * autotuner reason in core's source has a rendering (read from the source, so a new or reworded reason
 * fails here), the templated ones carry their numbers over, the memory ledger's real refusals get a gloss,
 * and an English page shows them all as sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setLanguage } from '../src/i18n/strings';
import { autotuneText, refusalGloss } from '../src/i18n/server-text';
import { MemoryLedger } from '../../server/src/memory/ledger';

const CJK = /[\u4e00-\u9fff]/;
const inZh = <T>(f: () => T): T => {
  setLanguage('zh');
  try {
    return f();
  } finally {
    setLanguage('en');
  }
};

test("every fixed reason in core's autotuner reads in Chinese", () => {
  const files = ['policy.ts', 'instances.ts', 'proposal.ts', 'queue-model.ts'].map((f) => readFileSync(new URL(`../../../packages/core/src/autotune/${f}`, import.meta.url), 'utf8'));
  const fixed = [...new Set(files.flatMap((src) => [...src.matchAll(/\b(?:why|beyond)(?::| =) '([^']+)'/g)].map((m) => m[1])))];
  assert.ok(fixed.length >= 6, `found the reasons: ${fixed.join(' | ')}`);
  for (const why of fixed) {
    const zh = inZh(() => autotuneText(why));
    assert.match(zh, CJK, `untranslated: ${why}`);
  }
});

test('templated reasons keep their numbers', () => {
  const cases: [string, RegExp][] = [
    ['no delay meets the target with 2 instances: one more', /^2 个实例.*再加一个/],
    ['start: the delay 5 ms is not below the target 3 ms; half the target until the traffic is measured', /^开始时.*5 ms.*3 ms/],
    ['measuring the last change for 1.5 s more', /1\.5 s/],
    ['proposed 2 s ago, made: preferred sizes [8,16] cut batches at 4; without them a delay of 1 ms forms batches of 9 and saves 12 µs of instance time a request within the target', /^2 s前.*\[8,16\].*1 ms.*9.*12 µs/],
    ['the instance would be 96% busy: beyond the queue model', /96%/],
    ['the instances cannot keep up (120% busy)', /120%/],
  ];
  for (const [en, zh] of cases) {
    const out = inZh(() => autotuneText(en));
    assert.match(out, zh, `${en} -> ${out}`);
    assert.match(out, CJK);
  }
  assert.equal(autotuneText(cases[0][0]), cases[0][0], 'an English page shows the reason as sent');
  assert.equal(inZh(() => autotuneText('a sentence no rule knows')), 'a sentence no rule knows');
});

test("the memory ledger's own refusals get a Chinese gloss, with their numbers", () => {
  const MiB = 1024 * 1024;
  const ledger = new MemoryLedger({ budgets: { cpu: 100 * MiB } });
  ledger.reserve({ device: 'cpu', model: 'cnn_classifier', version: '1', instance: 'cnn_classifier_0' }, 60 * MiB);
  const refusals: string[] = [];
  try {
    ledger.reserve({ device: 'cpu', model: 'cnn_classifier', version: '1', instance: 'cnn_classifier_1' }, 60 * MiB);
  } catch (err) {
    refusals.push((err as Error).message);
  }
  try {
    ledger.checkAddInstances('cnn_classifier', '1', 2);
  } catch (err) {
    refusals.push((err as Error).message);
  }
  assert.equal(refusals.length, 2, 'both refusals happened');
  for (const r of refusals) {
    const gloss = inZh(() => refusalGloss(r));
    assert.ok(gloss && CJK.test(gloss), `no gloss for: ${r}`);
    assert.match(gloss!, /超出内存预算.*cnn_classifier.*100(\.0)? MiB.*40(\.0)? MiB/);
  }
  assert.equal(refusalGloss(refusals[0]), undefined, 'an English page needs no gloss');
});
