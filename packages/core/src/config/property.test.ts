// Property tests, seeded so failures reproduce:
// - random configs built from the schema (every message and field type) survive print -> parse;
// - mangled config texts either parse or fail with a ConfigError carrying a position, never anything else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from './errors';
import { parseModelConfig } from './parser';
import { printModelConfig } from './printer';
import { schemaOf, type FieldSpec, type MessageName } from './schema';
import { mulberry32 } from '../load/rng';

const rng = mulberry32;

const STRINGS = ['', 'a', 'INPUT0', 'with "quotes"', "it's", 'back\\slash', 'new\nline', 'tab\t', 'ü é 日本', '\x01\x7f', '#not a comment'];

function randomValue(spec: FieldSpec, r: () => number, depth: number): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  if (spec.kind === 'enum') return pick(spec.values);
  if (spec.kind === 'message') return randomMessage(spec.message, r, depth + 1);
  switch (spec.type) {
    case 'string': return pick(STRINGS);
    case 'bool': return r() < 0.5;
    case 'int32': return Math.floor((r() - 0.5) * 2 ** 32);
    case 'uint32': return Math.floor(r() * 2 ** 32);
    case 'int64': return pick([0, -1, 1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, Math.floor((r() - 0.5) * 1e12)]);
    case 'uint64': return pick([0, 1, Number.MAX_SAFE_INTEGER, Math.floor(r() * 1e12)]);
    default: return pick([0, -1.5, 0.1 + 0.2, 1e-7, 6.02e23, -0, Infinity, -Infinity, NaN, r() * 1000]);
  }
}

function randomMessage(name: MessageName, r: () => number, depth: number): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  const oneofsUsed = new Set<string>();
  for (const [field, spec] of Object.entries(schemaOf(name).fields)) {
    if (r() < (depth > 3 ? 0.8 : 0.5)) continue;
    if (spec.oneof) {
      if (oneofsUsed.has(spec.oneof)) continue;
      oneofsUsed.add(spec.oneof);
    }
    const element: FieldSpec = { ...spec, repeated: false, mapKey: undefined };
    if (spec.mapKey !== undefined) {
      const map: Record<string, unknown> = {};
      const n = Math.floor(r() * 3);
      for (let i = 0; i < n; i++) {
        const key = spec.mapKey === 'uint64' ? String(Math.floor(r() * 100)) : STRINGS[Math.floor(r() * STRINGS.length)]!;
        map[key] = randomValue(element, r, depth);
      }
      obj[field] = map;
    } else if (spec.repeated) {
      obj[field] = Array.from({ length: Math.floor(r() * 4) }, () => randomValue(element, r, depth));
    } else {
      obj[field] = randomValue(element, r, depth);
    }
  }
  return obj;
}

test('random configs over the whole schema round-trip through the printer', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const config = randomMessage('ModelConfig', rng(seed), 0);
    const text = printModelConfig(config);
    let back;
    try {
      back = parseModelConfig(text);
    } catch (e) {
      assert.fail(`seed ${seed}: printed text does not parse: ${(e as Error).message}\n${text}`);
    }
    assert.deepEqual(back, config, `seed ${seed}`);
  }
});

const SOURCE = `name: "m" # comment
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "IN", data_type: TYPE_FP32, format: FORMAT_NCHW, dims: [ 3, -1, 0x10 ] reshape { shape: [ 3, -1, 16 ] } } ]
output < name: 'OUT' data_type: TYPE_STRING dims: 1 >
dynamic_batching { preferred_batch_size: [ 2, 4 ] priority_levels: 2 priority_queue_policy { key: 1 value: { timeout_action: DELAY } } }
parameters { key: "k\\n" value { string_value: "v" "w" } }
model_metrics { metric_control { histogram_options { buckets: [ 1.5e3, -inf ] } } }
`;

test('mangled texts parse or fail with a positioned ConfigError, nothing else', () => {
  const r = rng(42);
  const alphabet = ['{', '}', '<', '>', '[', ']', ':', ',', ';', '"', "'", '\\', '#', '\n', ' ', '-', '0', 'x', '.', 'e', 'é', 'name', 'dims', 'TYPE_FP32'];
  let parsed = 0;
  let refused = 0;
  for (let i = 0; i < 1000; i++) {
    let text = SOURCE;
    const edits = 1 + Math.floor(r() * 4);
    for (let k = 0; k < edits; k++) {
      const at = Math.floor(r() * text.length);
      const op = r();
      if (op < 0.4) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(r() * 5));
      else if (op < 0.8) text = text.slice(0, at) + alphabet[Math.floor(r() * alphabet.length)] + text.slice(at);
      else text = text.slice(0, at) + text.slice(at + Math.floor(r() * 20));
    }
    try {
      const config = parseModelConfig(text);
      parsed++;
      assert.deepEqual(parseModelConfig(printModelConfig(config)), config, text);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw new Error(`non-ConfigError ${String(e)} for:\n${text}`);
      const lines = text.split('\n').length;
      assert.ok(e.line >= 1 && e.line <= lines && e.column >= 1, `bad position ${e.line}:${e.column} for:\n${text}`);
      refused++;
    }
  }
  assert.ok(parsed > 20 && refused > 20, `parsed ${parsed}, refused ${refused}`);
});
