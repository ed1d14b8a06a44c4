// The project's config fixtures (test/config/fixtures, see its README): every config Triton accepts must
// pass, every config Triton refuses must be refused, with the words Triton uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  loadModelConfig, normalizeModelConfig, parseModelConfig, printModelConfig,
} from '@inferscope/core/config';

const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));

function validConfigs(): { model: string; file: string }[] {
  return readdirSync(join(FIXTURES, 'accepted'))
    .map((model) => ({ model, file: join(FIXTURES, 'accepted', model, 'config.pbtxt') }));
}

/** What Triton's L0_model_config test does: drop any platform line, append the platform under test. */
function withPlatform(text: string, platform: string): string {
  return text.split('\n').filter((line) => !line.includes('platform:')).join('\n') + `\nplatform: "${platform}"\n`;
}

test('every config Triton accepts is valid (on a host with one GPU)', () => {
  const configs = validConfigs();
  assert.ok(configs.length >= 10);
  for (const { model, file } of configs) {
    const r = loadModelConfig(readFileSync(file, 'utf8'), { modelName: model, gpuCount: 1 });
    assert.equal(r.error, undefined, `${file}: ${r.error?.message}`);
  }
});

test('every config Triton refuses is refused with the message Triton gives', () => {
  const cases = readdirSync(join(FIXTURES, 'refused'));
  assert.ok(cases.length >= 10);
  for (const name of cases) {
    const text = withPlatform(readFileSync(join(FIXTURES, 'refused', name, 'config.pbtxt'), 'utf8'), 'onnxruntime_onnx');
    const expected = new RegExp(readFileSync(join(FIXTURES, 'refused', name, 'expected'), 'utf8').trim());
    const r = loadModelConfig(text, { modelName: name, gpuCount: 1 });
    assert.ok(r.error, `${name} was accepted`);
    // The first issue is the one Triton reports (same rule order).
    assert.match(r.error.message, expected, name);
  }
});

test('every fixture round-trips through the printer, before and after normalisation', () => {
  const files = [
    ...validConfigs().map((c) => ({ model: c.model, file: c.file })),
    ...readdirSync(join(FIXTURES, 'refused')).map((model) => ({ model, file: join(FIXTURES, 'refused', model, 'config.pbtxt') })),
  ];
  for (const { model, file } of files) {
    const parsed = parseModelConfig(readFileSync(file, 'utf8'));
    assert.deepEqual(parseModelConfig(printModelConfig(parsed)), parsed, file);
    const normalized = normalizeModelConfig(parsed, { modelName: model, gpuCount: 1 });
    assert.deepEqual(parseModelConfig(printModelConfig(normalized)), normalized, file);
  }
});
