import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from './errors';
import { parseModelConfig, parseModelConfigWithLocations } from './parser';

/** Parses and expects a ConfigError; returns it for further checks. */
function parseError(text: string): ConfigError {
  try {
    parseModelConfig(text);
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected ConfigError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the text to be refused');
}

test('scalars, comments and separators', () => {
  const c = parseModelConfig(`
    # a comment
    name: "m"   # trailing comment
    platform: 'onnxruntime_onnx';
    max_batch_size: 8,
  `);
  assert.deepEqual(c, { name: 'm', platform: 'onnxruntime_onnx', max_batch_size: 8 });
});

test('message fields with { }, : { } and < >', () => {
  const c = parseModelConfig(`
    dynamic_batching { max_queue_delay_microseconds: 100 }
    version_policy: { all { } }
    optimization < graph < level: -1 > >
  `);
  assert.deepEqual(c.dynamic_batching, { max_queue_delay_microseconds: 100 });
  assert.deepEqual(c.version_policy, { all: {} });
  assert.deepEqual(c.optimization, { graph: { level: -1 } });
});

test('lists of scalars and of messages, and repetition, accumulate in order', () => {
  const c = parseModelConfig(`
    input [ { name: "a" dims: [ 1, 2 ] }, { name: "b" dims: [] } ]
    input { name: "c" dims: 3 dims: 4 }
    input: [ { name: "d" } ]
  `);
  assert.deepEqual(c.input, [
    { name: 'a', dims: [1, 2] },
    { name: 'b', dims: [] },
    { name: 'c', dims: [3, 4] },
    { name: 'd' },
  ]);
});

test('maps are written as key/value entries, by repetition or as a list', () => {
  const c = parseModelConfig(`
    parameters { key: "x" value: { string_value: "1" } }
    parameters [ { key: "y" value { string_value: "2" } } ]
    dynamic_batching { priority_levels: 2 priority_queue_policy { key: 2 value { max_queue_size: 5 timeout_action: DELAY } } }
  `);
  const e = parseModelConfig(
    'ensemble_scheduling { step { model_name: "a" input_map { key: "in" value: "x" } output_map [ { key: "out", value: "y" } ] } }',
  );
  assert.deepEqual(c.parameters, { x: { string_value: '1' }, y: { string_value: '2' } });
  assert.deepEqual(c.dynamic_batching?.priority_queue_policy, { '2': { max_queue_size: 5, timeout_action: 'DELAY' } });
  assert.deepEqual(e.ensemble_scheduling?.step?.[0]?.input_map, { in: 'x' });
  assert.deepEqual(e.ensemble_scheduling?.step?.[0]?.output_map, { out: 'y' });
});

test('a later map entry with the same key replaces the earlier one, as protobuf does', () => {
  const c = parseModelConfig('metric_tags { key: "k" value: "1" } metric_tags { key: "k" value: "2" }');
  assert.deepEqual(c.metric_tags, { k: '2' });
});

test('enums by name and by number', () => {
  const c = parseModelConfig('input { data_type: TYPE_FP32 format: 2 } instance_group { kind: KIND_CPU }');
  assert.equal(c.input?.[0]?.data_type, 'TYPE_FP32');
  assert.equal(c.input?.[0]?.format, 'FORMAT_NCHW');
  assert.equal(c.instance_group?.[0]?.kind, 'KIND_CPU');
});

test('strings: both quotes, every escape, UTF-8, adjacent literals concatenate', () => {
  const c = parseModelConfig(String.raw`
    name: "a\nb\tc\\d\'e\"f"
    platform: 'it''s' "!"
    backend: "\101\x42\103"
    runtime: "caf\303\251 ü"
  `);
  assert.equal(c.name, 'a\nb\tc\\d\'e"f');
  assert.equal(c.platform, 'its!');
  assert.equal(c.backend, 'ABC');
  assert.equal(c.runtime, 'café ü');
});

test('numbers: negative, float, exponent, hex, octal, inf and nan', () => {
  const c = parseModelConfig(`
    max_batch_size: 0x10
    input { dims: [ -1, 010, 7 ] }
    sequence_batching { direct { minimum_slot_utilization: 5e-1 } }
    model_metrics { metric_control { histogram_options { buckets: [ -2.5, 1E3, .5, 3f, inf, -inf, nan, 4 ] } } }
  `);
  assert.equal(c.max_batch_size, 16);
  assert.deepEqual(c.input?.[0]?.dims, [-1, 8, 7]);
  assert.equal(c.sequence_batching?.direct?.minimum_slot_utilization, 0.5);
  const buckets = c.model_metrics?.metric_control?.[0]?.histogram_options?.buckets ?? [];
  assert.deepEqual(buckets.slice(0, 6), [-2.5, 1000, 0.5, 3, Infinity, -Infinity]);
  assert.ok(Number.isNaN(buckets[6]));
  assert.equal(buckets[7], 4);
});

test('booleans in every spelling protobuf accepts', () => {
  const spellings: [string, boolean][] = [
    ['true', true], ['True', true], ['t', true], ['1', true],
    ['false', false], ['False', false], ['f', false], ['0', false],
  ];
  for (const [text, value] of spellings) {
    assert.equal(parseModelConfig(`response_cache { enable: ${text} }`).response_cache?.enable, value, text);
  }
  assert.match(parseError('response_cache { enable: yes }').message, /Invalid value for boolean field "enable"/);
});

test('an unknown field is an error naming the field and its message, with line and column', () => {
  const e = parseError('name: "m"\ninput {\n  name: "x"\n  dimz: [1]\n}');
  assert.match(e.message, /Message type "inference.ModelInput" has no field named "dimz"/);
  assert.equal(e.line, 4);
  assert.equal(e.column, 3);
  assert.match(e.message, /Did you mean "dims"\?/);
  assert.doesNotMatch(parseError('zzzzzz: 1').message, /Did you mean/);
  assert.match(parseError('dynamic_batching { max_batch_size: 8 }').message,
    /"max_batch_size" is a field of inference.ModelConfig \(the top level of config.pbtxt\)/);
  assert.match(parseError('input { data_type: FP32 }').message, /Did you mean TYPE_FP32\?/);
  assert.match(parseError('instance_group { kind: GPU }').message, /Did you mean KIND_GPU\?/);
});

test('a wrong value type is an error', () => {
  assert.match(parseError('max_batch_size: "8"').message, /Expected integer, got: "8"/);
  assert.match(parseError('name: 8').message, /Expected string, got: 8/);
  assert.match(parseError('max_batch_size: 1.5').message, /Expected integer, got: 1.5/);
  assert.match(parseError('input { data_type: FP32 }').message, /Unknown enumeration value of "FP32" for field "data_type"/);
  assert.match(parseError('input { data_type: 99 }').message, /Unknown enumeration value of "99"/);
  assert.match(parseError('dynamic_batching: 5').message, /Expected "\{" or "<"/);
});

test('integer ranges are checked per type', () => {
  assert.match(parseError('max_batch_size: 2147483648').message, /Integer out of range/);
  assert.match(parseError('dynamic_batching { max_queue_delay_microseconds: -1 }').message, /Integer out of range/);
  assert.match(parseError('input { dims: 9007199254740993 }').message, /beyond 2\^53-1/);
  assert.equal(parseModelConfig('max_batch_size: -2147483648').max_batch_size, -2147483648);
});

test('a non-repeated field set twice is an error', () => {
  const e = parseError('name: "a"\nname: "b"');
  assert.match(e.message, /Non-repeated field "name" is specified multiple times/);
  assert.equal(e.line, 2);
  assert.match(parseError('dynamic_batching { } dynamic_batching { }').message, /Non-repeated field "dynamic_batching"/);
});

test('two members of one oneof are an error', () => {
  const e = parseError('dynamic_batching { }\nsequence_batching { }');
  assert.match(e.message, /Field "sequence_batching" is specified along with field "dynamic_batching", another member of oneof "scheduling_choice"/);
  assert.match(parseError('version_policy { latest { } all { } }').message, /oneof "policy_choice"/);
});

test('syntax errors carry line and column', () => {
  const cases: [string, RegExp, number, number][] = [
    ['name "m"', /Expected ":"/, 1, 6],
    ['name: "m', /String literals cannot cross line boundaries/, 1, 7],
    ['name: "\\q"', /Invalid escape sequence/, 1, 8],
    ['input {\n name: "a"', /Expected "}", found end of input/, 2, 11],
    ['max_batch_size: [1]', /not repeated/, 1, 17],
    ['input [ { name: "a" } { name: "b" } ]', /Expected "," or "]"/, 1, 23],
    ['name: "m" @', /Unexpected character "@"/, 1, 11],
    ['}', /Expected identifier, got: }/, 1, 1],
    ['max_batch_size: 12abc', /Invalid number/, 1, 17],
  ];
  for (const [text, message, line, column] of cases) {
    const e = parseError(text);
    assert.match(e.message, message, text);
    assert.deepEqual([e.line, e.column], [line, column], `${text}: ${e.message}`);
  }
});

test('locations record where each field and element was written', () => {
  const { locations } = parseModelConfigWithLocations('name: "m"\ninput [\n  {\n    name: "x"\n    dims: [ 0 ]\n  }\n]');
  assert.deepEqual(locations.get('name'), { line: 1, column: 1 });
  assert.deepEqual(locations.get('input[0]'), { line: 3, column: 3 });
  assert.deepEqual(locations.get('input[0].dims'), { line: 5, column: 5 });
});

test('an empty text is an empty config', () => {
  assert.deepEqual(parseModelConfig('  # nothing\n'), {});
});

test('a byte order mark and CRLF line ends are accepted; columns count from the BOM-less text', () => {
  assert.deepEqual(parseModelConfig('\ufeffname: "m"\r\nmax_batch_size: 2\r\n'), { name: 'm', max_batch_size: 2 });
  const e = parseError('\ufeffname: "m"\r\nbad: 1');
  assert.deepEqual([e.line, e.column], [2, 1]);
  assert.equal(parseError('\ufeffbad: 1').column, 1);
});
