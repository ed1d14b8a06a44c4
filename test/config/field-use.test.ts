// Every field of model_config.proto is honoured, inert by Triton's own definition, or refused at load
// (core config/field-use.ts). A field the server parses but does not serve must never load READY: these
// tests fail when a new field has no decision, when an "honoured" claim names a file that does not read the
// field, and when a config that sets a refused field loads, in core's check and on the real server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  FIELD_USE, fieldUseOf, schemaPaths, schemaOf, unservedFields, loadModelConfig, modelConfigToJson, modelConfigFromJson,
  normalizeModelConfig, parseModelConfig, type MessageName, type ModelConfig,
} from '@inferscope/core/config';
import { startTestServer, tempRepository, type TestServer } from '../support/server';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The field spec at a dotted path, walking the schema from ModelConfig. */
function specAt(path: string) {
  let message: MessageName = 'ModelConfig';
  let spec;
  for (const part of path.split('.')) {
    spec = schemaOf(message).fields[part];
    assert.ok(spec, `${path}: no field ${part} in ${message}`);
    if (spec.kind === 'message') message = spec.message as MessageName;
  }
  return spec!;
}

/** A value that is set (not the proto default) for the field at `path`. */
function sampleValue(path: string): unknown {
  const spec = specAt(path);
  let one: unknown;
  if (spec.kind === 'message') one = {};
  else if (spec.kind === 'enum') one = spec.values[1];
  else one = spec.type === 'string' ? 'x' : spec.type === 'bool' ? true : 2;
  if (spec.mapKey) return { k: one };
  return spec.repeated ? [one] : one;
}

/** A config object that sets `path` (repeated messages on the way hold one element). */
function configSetting(path: string): ModelConfig {
  const root: Record<string, unknown> = { name: 'm', backend: 'onnxruntime', max_batch_size: 4 };
  let node = root;
  let message: MessageName = 'ModelConfig';
  const parts = path.split('.');
  parts.forEach((part, i) => {
    const spec = schemaOf(message).fields[part]!;
    if (i === parts.length - 1) {
      node[part] = sampleValue(parts.slice(0, i + 1).join('.'));
      return;
    }
    const child: Record<string, unknown> = {};
    node[part] = spec.mapKey ? { k: child } : spec.repeated ? [child] : child;
    node = child;
    message = (spec as { message: MessageName }).message;
  });
  return root as ModelConfig;
}

const leaves = schemaPaths().filter((p) => {
  const spec = specAt(p);
  return spec.kind !== 'message' || Object.keys(schemaOf(spec.message as MessageName).fields).length === 0;
});

test('every field of the schema has a decision, and every decision names a field of the schema', () => {
  const all = new Set(schemaPaths());
  assert.ok(leaves.length > 100);
  const undecided = leaves.filter((p) => !fieldUseOf(p));
  assert.deepEqual(undecided, [], 'fields with no decision in FIELD_USE');
  for (const key of Object.keys(FIELD_USE)) assert.ok(all.has(key), `FIELD_USE key '${key}' is not a field of model_config.proto`);
});

test('each honoured field names a file of the product that reads it', () => {
  for (const [path, use] of Object.entries(FIELD_USE)) {
    if (use.use !== 'honoured') continue;
    const file = join(ROOT, use.by);
    assert.ok(existsSync(file), `${path}: ${use.by} does not exist`);
    const name = path.split('.').at(-1)!;
    assert.ok(readFileSync(file, 'utf8').includes(name), `${path}: ${use.by} never mentions '${name}'`);
  }
});

test('a config that sets any refused field is refused, naming the field; defaults are not', () => {
  const refusedPaths = Object.entries(FIELD_USE).filter(([, u]) => u.use === 'refused').map(([p]) => p);
  assert.ok(refusedPaths.includes('sequence_batching.state.use_growable_memory') && refusedPaths.includes('instance_group.passive'));
  for (const path of refusedPaths) {
    const issues = unservedFields(configSetting(path));
    assert.equal(issues.length, 1, `${path}: ${JSON.stringify(issues)}`);
    assert.match(issues[0]!.message, new RegExp(`InferScope does not serve '${path.replace(/\./g, '\\.')}'`));
  }
  // The proto defaults ask for nothing: an explicit `enable: false`, an empty rate_limiter, no agents.
  const defaults = {
    name: 'm', response_cache: { enable: false }, instance_group: [{ count: 1, rate_limiter: {} }],
    model_repository_agents: { agents: [] }, input: [{ name: 'a', allow_ragged_batch: false }],
    cc_model_filenames: {}, metric_tags: {},
  } as ModelConfig;
  assert.deepEqual(unservedFields(defaults), []);
  // a config as the server prints it (protobuf's JSON mapping: every field with its default) asks for nothing
  const printed = modelConfigToJson(normalizeModelConfig(parseModelConfig(readFileSync(join(ROOT, 'model_repository/mlp_classifier/config.pbtxt'), 'utf8')), { modelName: 'mlp_classifier', gpuCount: 0 }));
  assert.deepEqual(unservedFields(modelConfigFromJson(JSON.parse(JSON.stringify(printed)))), []);
  // Honoured and inert fields are never refused.
  for (const [path, use] of Object.entries(FIELD_USE)) {
    if (use.use === 'refused') continue;
    if (leaves.includes(path)) assert.deepEqual(unservedFields(configSetting(path)), [], path);
  }
});

test('config check reports the unserved field with its line; Triton validity is reported apart', () => {
  const text = 'name: "s"\nbackend: "onnxruntime"\nmax_batch_size: 4\ninput [{ name: "x" data_type: TYPE_FP32 dims: [1] }]\n'
    + 'output [{ name: "y" data_type: TYPE_FP32 dims: [1] }]\nsequence_batching { state [{ input_name: "s_in" output_name: "s_out" data_type: TYPE_FP32 dims: [1] use_growable_memory: true }] }\n';
  const r = loadModelConfig(text, { modelName: 's', gpuCount: 0 });
  assert.equal(r.error, undefined, 'Triton accepts it');
  assert.equal(r.unserved.length, 1);
  assert.equal(r.unserved[0]!.line, 6);
});

let server: TestServer;
let repo: { dir: string; remove(): Promise<void> };
const REFUSED_MODELS: Record<string, { extra: string; field: string }> = {
  passive: { extra: 'instance_group [{ count: 1 kind: KIND_CPU passive: true }]', field: 'instance_group.passive' },
  bounded: { extra: 'metric_tags { key: "team" value: "a" }', field: 'metric_tags' },
};
before(async () => {
  repo = await tempRepository(['mlp_classifier']);
  const base = 'backend: "onnxruntime"\nmax_batch_size: 8\n'
    + 'input [{ name: "input" data_type: TYPE_FP32 dims: [784] }]\noutput [{ name: "probabilities" data_type: TYPE_FP32 dims: [10] }]\n';
  const model = await readFile(join(repo.dir, 'mlp_classifier', '1', 'model.onnx'));
  for (const [name, { extra }] of Object.entries(REFUSED_MODELS)) {
    await mkdir(join(repo.dir, name, '1'), { recursive: true });
    await writeFile(join(repo.dir, name, 'config.pbtxt'), `name: "${name}"\n${base}\n${extra}\n`);
    await writeFile(join(repo.dir, name, '1', 'model.onnx'), model);
  }
  server = await startTestServer({ modelRepositories: [repo.dir], live: false });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

test('the server loads a config setting an unserved field UNAVAILABLE with the reason, and serves the rest', async () => {
  const index = await (await fetch(`${server.url}/v2/repository/index`, { method: 'POST', body: '{}' })).json() as
    { name: string; state: string; reason: string }[];
  assert.equal(index.find((m) => m.name === 'mlp_classifier')?.state, 'READY');
  for (const [name, { field }] of Object.entries(REFUSED_MODELS)) {
    const entry = index.find((m) => m.name === name);
    assert.equal(entry?.state, 'UNAVAILABLE', `${name}: ${JSON.stringify(entry)}`);
    assert.match(entry!.reason, new RegExp(`InferScope does not serve '${field.replace(/\./g, '\\.')}'`), name);
    assert.notEqual((await fetch(`${server.url}/v2/models/${name}/ready`)).status, 200);
  }
});
