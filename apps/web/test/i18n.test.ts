/** The language tables: S follows setLanguage, both tables have the same keys, nothing is left empty. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { S, setLanguage, stringsFor, language } from '../src/i18n/strings';

function shape(v: unknown, path = ''): string[] {
  if (typeof v === 'function') return [`${path}()`];
  if (Array.isArray(v)) return [`${path}[${v.length}]`];
  if (v && typeof v === 'object') return Object.keys(v).sort().flatMap((k) => shape((v as Record<string, unknown>)[k], `${path}.${k}`));
  return [path];
}

test('S reads the current language, also through a reference taken before the switch', () => {
  const views = () => S.views;
  assert.equal(S.play, 'Play');
  setLanguage('zh');
  try {
    assert.equal(language(), 'zh');
    assert.equal(S.play, '播放');
    assert.equal(views().data, '数据流');
    assert.match(S.narrate.formed(8, S.triggers.preferred), /8.*首选批大小/);
  } finally {
    setLanguage('en');
  }
  assert.equal(S.play, 'Play');
});

test('the Chinese table has exactly the English keys (functions, lists of the same length)', () => {
  assert.deepEqual(shape(stringsFor('zh')), shape(stringsFor('en')));
});

test('no Chinese string is left in English (except identifiers and units)', () => {
  const texts: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') texts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(stringsFor('zh'));
  // words of prose: letters only (identifiers such as max_batch_size have '_'), not a product name or unit
  const NAMES = new Set(['InferScope', 'pbtxt', 'config', 'max_queue_delay', 'gRPC', 'HTTP']);
  const prose = (t: string) => (t.match(/[A-Za-z][A-Za-z0-9_]*/g) ?? []).filter((w) => w.length >= 3 && !/[_\d]/.test(w) && !NAMES.has(w));
  const english = texts.filter((t) => !/[\u4e00-\u9fff]/.test(t) && prose(t).length > 0);
  assert.deepEqual(english, []);
});
