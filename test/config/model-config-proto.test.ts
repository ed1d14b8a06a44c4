// ModelConfig is declared once (packages/core/src/config/schema.ts; types.ts is computed from it). This
// test holds that table to the gRPC `model_config.proto` the server answers ModelConfig with (Triton's
// messages and field names): the same messages, fields in the same order with the same type,
// repeated-ness, map key, oneof and enum values. Then it writes every field of every message into a
// config, as text and as JSON, and checks the parser and the JSON reader take it with its proto type,
// and refuse a field the proto lacks or a value of another type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { modelConfigFromJson, parseModelConfig, printModelConfig } from '@inferscope/core/config';
import { SCHEMAS, type FieldSpec } from '@inferscope/core/config/schema.ts';
import type { ModelEnsembling } from '@inferscope/core/config/types.ts';
import { PROTO_DIR } from '../../apps/server/src/grpc/proto';

// protobufjs is the parser @grpc/proto-loader loads our protos with; take that very copy.
const require = createRequire(import.meta.url);
const pb = createRequire(require.resolve('@grpc/proto-loader'))('protobufjs') as typeof import('protobufjs');
const root = new pb.Root().loadSync(join(PROTO_DIR, 'model_config.proto'), { keepCase: true });
root.resolveAll();

type PbType = InstanceType<typeof pb.Type>;
type PbField = InstanceType<typeof pb.Field>;
type PbMapField = PbField & { keyType: string };

function protoMessages(): PbType[] {
  const out: PbType[] = [];
  const walk = (ns: { nestedArray: unknown[] }) => {
    for (const o of ns.nestedArray) {
      if (o instanceof pb.Type) out.push(o);
      if (o instanceof pb.Namespace) walk(o);
    }
  };
  walk(root);
  return out;
}
const fullName = (t: { fullName: string }) => t.fullName.replace(/^\./, '');
const tableByFullName = new Map(Object.values(SCHEMAS).map((s) => [s.fullName, s.fields as Readonly<Record<string, FieldSpec>>]));
const isMap = (f: PbField): f is PbMapField => f instanceof pb.MapField;

/** One comparable word for a field's type, from the proto and from the table. */
function protoTypeWord(f: PbField): string {
  const t = f.resolvedType;
  if (t instanceof pb.Enum) return `enum ${fullName(t)}`;
  if (t instanceof pb.Type) return `message ${fullName(t)}`;
  return f.type;
}
function tableTypeWord(s: FieldSpec): string {
  if (s.kind === 'enum') return `enum ${s.name}`;
  if (s.kind === 'message') return `message ${SCHEMAS[s.message].fullName}`;
  return s.type;
}

test('the table declares exactly the messages of model_config.proto', () => {
  const proto = protoMessages().map(fullName).sort();
  assert.ok(proto.length >= 40, `only ${proto.length} messages read from the proto`);
  assert.deepEqual([...tableByFullName.keys()].sort(), proto);
});

test('every field agrees with the proto: name, order, type, repeated, map key, oneof, enum values', () => {
  const disagreements: string[] = [];
  for (const message of protoMessages()) {
    const name = fullName(message);
    const table = tableByFullName.get(name);
    if (!table) continue; // the test above names it
    const protoFields = message.fieldsArray.map((f) => f.name);
    if (protoFields.join() !== Object.keys(table).join()) {
      disagreements.push(`${name}: proto fields [${protoFields.join(', ')}], table [${Object.keys(table).join(', ')}]`);
    }
    for (const f of message.fieldsArray) {
      const s = table[f.name];
      if (!s) continue;
      const where = `${name}.${f.name}`;
      if (protoTypeWord(f) !== tableTypeWord(s)) disagreements.push(`${where}: type ${protoTypeWord(f)} vs ${tableTypeWord(s)}`);
      const protoMapKey = isMap(f) ? f.keyType : undefined;
      if (protoMapKey !== s.mapKey) disagreements.push(`${where}: map key ${protoMapKey} vs ${s.mapKey}`);
      if (!isMap(f) && f.repeated !== (s.repeated === true)) disagreements.push(`${where}: repeated ${f.repeated} vs ${s.repeated}`);
      if (f.partOf?.name !== s.oneof) disagreements.push(`${where}: oneof ${f.partOf?.name} vs ${s.oneof}`);
      const e = f.resolvedType;
      if (e instanceof pb.Enum && s.kind === 'enum') {
        // The table stores an enum as names where values[i] has number i.
        const byNumber = Object.entries(e.values).sort((a, b) => a[1] - b[1]);
        const numbered = byNumber.every(([, n], i) => n === i);
        if (!numbered || byNumber.map(([k]) => k).join() !== s.values.join()) {
          disagreements.push(`${where}: enum ${byNumber.map(([k, n]) => `${k}=${n}`).join(', ')} vs ${s.values.join(', ')}`);
        }
      }
    }
  }
  assert.deepEqual(disagreements, []);
});

// ------------------------------------------------------------------- every field, as text and as JSON

interface Written { text: string; value: unknown; json: unknown }

/** A sample value of a field's element type, chosen to exercise its range (negative, beyond 2^32). */
function sample(f: PbField): Written {
  const t = f.resolvedType;
  if (t instanceof pb.Enum) {
    const names = Object.keys(t.values);
    const last = names[names.length - 1]!;
    return { text: last, value: last, json: last.toLowerCase() }; // JSON enum names are case-insensitive
  }
  if (t instanceof pb.Type) return { text: '{ }', value: {}, json: {} };
  switch (f.type) {
    case 'string': return { text: '"s \\"q\\""', value: 's "q"', json: 's "q"' };
    case 'bool': return { text: 'true', value: true, json: true };
    case 'int32': return { text: '-2147483648', value: -(2 ** 31), json: -(2 ** 31) };
    case 'uint32': return { text: '4294967295', value: 2 ** 32 - 1, json: 2 ** 32 - 1 };
    case 'int64': return { text: '-9007199254740991', value: -Number.MAX_SAFE_INTEGER, json: String(-Number.MAX_SAFE_INTEGER) };
    case 'uint64': return { text: '9007199254740991', value: Number.MAX_SAFE_INTEGER, json: String(Number.MAX_SAFE_INTEGER) };
    case 'float':
    case 'double': return { text: '0.25', value: 0.25, json: 0.25 };
    default: throw new Error(`no sample for proto type ${f.type}`);
  }
}

const mapKey = (f: PbMapField) => (f.keyType === 'string' ? { text: '"k"', key: 'k' } : { text: '7', key: '7' });

/** `inner` (the body of f's message) written as the value of field f, once. */
function wrap(f: PbField, inner: Written): Written {
  const body = `{ ${inner.text} }`;
  if (isMap(f)) {
    const k = mapKey(f);
    return { text: `${f.name} { key: ${k.text} value ${body} }`, value: { [f.name]: { [k.key]: inner.value } }, json: { [f.name]: { [k.key]: inner.json } } };
  }
  if (f.repeated) return { text: `${f.name} ${body}`, value: { [f.name]: [inner.value] }, json: { [f.name]: [inner.json] } };
  return { text: `${f.name} ${body}`, value: { [f.name]: inner.value }, json: { [f.name]: inner.json } };
}

/** Field f set to its sample (twice for a repeated field, one entry for a map). */
function leaf(f: PbField): Written {
  const one = sample(f);
  if (isMap(f)) {
    const k = mapKey(f);
    const value = f.resolvedType instanceof pb.Type ? `value ${one.text}` : `value: ${one.text}`;
    return { text: `${f.name} { key: ${k.text} ${value} }`, value: { [f.name]: { [k.key]: one.value } }, json: { [f.name]: { [k.key]: one.json } } };
  }
  const sep = f.resolvedType instanceof pb.Type ? ' ' : ': ';
  if (f.repeated) return { text: `${f.name}${sep}[${one.text}, ${one.text}]`, value: { [f.name]: [one.value, one.value] }, json: { [f.name]: [one.json, one.json] } };
  return { text: `${f.name}${sep}${one.text}`, value: { [f.name]: one.value }, json: { [f.name]: one.json } };
}

/** The shortest chain of message fields from ModelConfig to each message. */
function pathsFromModelConfig(): Map<string, PbField[]> {
  const start = root.lookupType('inference.ModelConfig');
  const paths = new Map<string, PbField[]>([[fullName(start), []]]);
  const queue: PbType[] = [start];
  while (queue.length > 0) {
    const m = queue.shift()!;
    for (const f of m.fieldsArray) {
      const t = f.resolvedType;
      if (t instanceof pb.Type && !paths.has(fullName(t))) {
        paths.set(fullName(t), [...paths.get(fullName(m))!, f]);
        queue.push(t);
      }
    }
  }
  return paths;
}

/** A whole config that sets `body` inside the message at the end of `path`. */
function configAround(path: PbField[], body: Written): Written {
  return path.reduceRight((inner, f) => wrap(f, inner), body);
}

test('every field of every message is accepted with its proto type, as text and as JSON', () => {
  const paths = pathsFromModelConfig();
  let fields = 0;
  for (const message of protoMessages()) {
    const path = paths.get(fullName(message));
    assert.ok(path, `${fullName(message)} cannot be reached from ModelConfig`);
    for (const f of message.fieldsArray) {
      const config = configAround(path, leaf(f));
      const where = `${fullName(message)}.${f.name}: ${config.text}`;
      const parsed = parseModelConfig(config.text);
      assert.deepEqual(parsed, config.value, where);
      assert.deepEqual(modelConfigFromJson(config.json), config.value, `${where} (JSON ${JSON.stringify(config.json)})`);
      assert.deepEqual(parseModelConfig(printModelConfig(parsed)), parsed, `${where} (printed)`);
      fields++;
    }
  }
  assert.ok(fields >= 160, `${fields} fields checked`);
});

/** A value of another kind than f's type: the parser and the JSON reader must refuse it. */
function wrongValue(f: PbField): { text: string; json: unknown } {
  const t = f.resolvedType;
  if (t instanceof pb.Type) return { text: ': 1', json: 1 };
  if (t instanceof pb.Enum) return { text: ': NOT_A_VALUE', json: 'NOT_A_VALUE' };
  if (f.type === 'string') return { text: ': 5', json: 5 };
  return { text: ': "5x"', json: '5x' };
}

test('a field the proto lacks, or a value of another type, is refused at every level', () => {
  const paths = pathsFromModelConfig();
  for (const message of protoMessages()) {
    const path = paths.get(fullName(message))!;
    const unknown = configAround(path, { text: 'not_a_field: 1', value: {}, json: {} });
    assert.throws(() => parseModelConfig(unknown.text), /has no field named "not_a_field"/, unknown.text);
    const unknownJson = configAround(path, { text: '', value: {}, json: { not_a_field: 1 } });
    assert.throws(() => modelConfigFromJson(unknownJson.json), /not_a_field: Cannot find field/, JSON.stringify(unknownJson.json));
    for (const f of message.fieldsArray) {
      if (isMap(f)) continue; // a map's entries are messages: covered by the message case of its value
      const bad = wrongValue(f);
      const text = configAround(path, { text: `${f.name}${bad.text}`, value: {}, json: {} }).text;
      assert.throws(() => parseModelConfig(text), Error, text);
      const json = configAround(path, { text: '', value: {}, json: { [f.name]: f.repeated ? [bad.json] : bad.json } }).json;
      assert.throws(() => modelConfigFromJson(json), Error, JSON.stringify(json));
    }
  }
});

test('ModelEnsembling takes Triton\'s max_inflight_requests, not max_inflight_responses', () => {
  const text = 'platform: "ensemble" ensemble_scheduling { step { model_name: "a" model_version: -1 } max_inflight_requests: 16 }';
  const ensembling: ModelEnsembling = { step: [{ model_name: 'a', model_version: -1 }], max_inflight_requests: 16 };
  assert.deepEqual(parseModelConfig(text), { platform: 'ensemble', ensemble_scheduling: ensembling });
  assert.throws(() => parseModelConfig(text.replace('requests', 'responses')), /has no field named "max_inflight_responses"/);
  assert.deepEqual(modelConfigFromJson({ ensemble_scheduling: { maxInflightRequests: '16' } }), { ensemble_scheduling: { max_inflight_requests: 16 } });
  // @ts-expect-error the types come from the same table: the old name is not a field
  const old: ModelEnsembling = { max_inflight_responses: 16 };
  assert.ok(old);
});
