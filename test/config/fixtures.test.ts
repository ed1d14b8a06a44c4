// Triton's own config.pbtxt files (../shared/fixtures/triton-configs beside the repository): every
// config Triton accepts must pass, every config Triton refuses must be refused, with Triton's words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  loadModelConfig, normalizeModelConfig, parseModelConfig, printModelConfig,
} from '@inferscope/core/config/index.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = join(repoRoot, '..', 'shared', 'fixtures', 'triton-configs');

function validConfigs(): { model: string; file: string }[] {
  assert.ok(existsSync(FIXTURES), `Triton config fixtures not found at ${FIXTURES} (shared/ must sit beside the repository)`);
  const out: { model: string; file: string }[] = [];
  for (const source of readdirSync(join(FIXTURES, 'valid'))) {
    for (const model of readdirSync(join(FIXTURES, 'valid', source))) {
      out.push({ model, file: join(FIXTURES, 'valid', source, model, 'config.pbtxt') });
    }
  }
  return out;
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
  const cases = readdirSync(join(FIXTURES, 'invalid'));
  assert.ok(cases.length >= 10);
  for (const name of cases) {
    const text = withPlatform(readFileSync(join(FIXTURES, 'invalid', name, 'config.pbtxt'), 'utf8'), 'onnxruntime_onnx');
    const expected = new RegExp(readFileSync(join(FIXTURES, 'invalid', name, 'expected'), 'utf8').trim());
    const r = loadModelConfig(text, { modelName: name, gpuCount: 1 });
    assert.ok(r.error, `${name} was accepted`);
    // The first issue is the one Triton reports (same rule order).
    assert.match(r.error.message, expected, name);
  }
});

test('every fixture round-trips through the printer, before and after normalisation', () => {
  const files = [
    ...validConfigs().map((c) => ({ model: c.model, file: c.file })),
    ...readdirSync(join(FIXTURES, 'invalid')).map((model) => ({ model, file: join(FIXTURES, 'invalid', model, 'config.pbtxt') })),
  ];
  for (const { model, file } of files) {
    const parsed = parseModelConfig(readFileSync(file, 'utf8'));
    assert.deepEqual(parseModelConfig(printModelConfig(parsed)), parsed, file);
    const normalized = normalizeModelConfig(parsed, { modelName: model, gpuCount: 1 });
    assert.deepEqual(parseModelConfig(printModelConfig(normalized)), normalized, file);
  }
});
