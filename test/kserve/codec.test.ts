// The KServe codec on its own: JSON and binary round trips for every datatype, and every validation
// error with Triton's wording.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KServeDatatype, Tensor } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config/types.ts';
import { buildModelSpec } from '../../apps/server/src/infer/model-spec';
import { parseHeaderLength, parseInferRequest } from '../../apps/server/src/kserve/parse-request';
import { toSchedulerRequest, validateInferRequest } from '../../apps/server/src/infer/validate-request';
import { encodeInferResponse } from '../../apps/server/src/kserve/encode-response';
import { selectOutputs } from '../../apps/server/src/infer/run-inference';
import { classify } from '../../apps/server/src/infer/classification';
import { floatToHalf, halfToFloat } from '../../apps/server/src/infer/datatypes';
import { binaryRequest, jsonRequest, jsonValues, parseResponse } from './wire';

const enc = new TextEncoder();
const SAMPLES: Record<KServeDatatype, Tensor['data']> = {
  BOOL: new Uint8Array([1, 0, 1, 1, 0, 0]),
  UINT8: new Uint8Array([0, 1, 127, 128, 254, 255]),
  UINT16: new Uint16Array([0, 1, 300, 65535, 2, 3]),
  UINT32: new Uint32Array([0, 1, 70000, 4294967295, 5, 6]),
  UINT64: new BigUint64Array([0n, 1n, 2n ** 40n, 2n ** 53n - 1n, 9n, 10n]),
  INT8: new Int8Array([-128, -1, 0, 1, 100, 127]),
  INT16: new Int16Array([-32768, -1, 0, 1, 1000, 32767]),
  INT32: new Int32Array([-2147483648, -1, 0, 1, 123456, 2147483647]),
  INT64: new BigInt64Array([-(2n ** 53n) + 1n, -1n, 0n, 1n, 2n ** 33n, 2n ** 53n - 1n]),
  FP16: new Uint16Array([0x3c00, 0xc100, 0x3800, 0x7bff, 0x0000, 0x8001]),
  FP32: new Float32Array([0.5, -1.25, Math.fround(0.1), Math.fround(3.4e38), 0, -7]),
  FP64: new Float64Array([Math.PI, -1e-300, 0.1, 1e300, 0, -7]),
  BYTES: ['hello', '', 'wörld', 'a"b', 'x', '\u0000z'].map((s) => enc.encode(s)),
};

function identityConfig(dt: KServeDatatype): ModelConfig {
  const t = dt === 'BYTES' ? 'TYPE_STRING' : `TYPE_${dt}`;
  return {
    name: 'ident',
    max_batch_size: 0,
    input: [{ name: 'x', data_type: t as never, dims: [2, 3] }],
    output: [{ name: 'y', data_type: t as never, dims: [2, 3] }],
  };
}

function decode(body: Buffer | string, headerLength: number | undefined, config: ModelConfig, name = 'ident') {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  const spec = buildModelSpec(name, '1', config);
  return validateInferRequest(parseInferRequest(buf, headerLength, name), spec);
}

function plain(data: Tensor['data']): unknown[] {
  return Array.isArray(data) ? data.map((b) => Buffer.from(b).toString('hex')) : Array.from(data as ArrayLike<unknown>);
}

for (const dt of Object.keys(SAMPLES) as KServeDatatype[]) {
  for (const mode of ['json', 'binary'] as const) {
    test(`${dt} round trip over ${mode}`, () => {
      const input: Tensor = { name: 'x', datatype: dt, shape: [2, 3], data: SAMPLES[dt] };
      const config = identityConfig(dt);
      const decoded =
        mode === 'json'
          ? decode(jsonRequest([input], { id: 'r1' }), undefined, config)
          : (() => {
              const { body, headerLength } = binaryRequest([input], { id: 'r1' });
              return decode(body, headerLength, config);
            })();
      assert.equal(decoded.id, 'r1');
      assert.equal(decoded.inputs.length, 1);
      const got = decoded.inputs[0];
      assert.equal(got.datatype, dt);
      assert.deepEqual(got.shape, [2, 3]);
      assert.deepEqual(plain(got.data), plain(SAMPLES[dt]));
      if (!Array.isArray(got.data)) {
        // Decoded without a buffer of their own (a view on the body, or a pooled copy when the body's
        // offset is misaligned for the type): aligned, and never the whole buffer, so no backend can
        // mistake it for one it may transfer (tested for onnxruntime's gather in ort-batch-io.test.ts).
        assert.equal(got.data.byteOffset % got.data.BYTES_PER_ELEMENT, 0);
      }

      // And back out as the response, in the same encoding.
      const res = encodeInferResponse('ident', '1', { ...decoded, binaryDefault: mode === 'binary' }, [
        { name: 'y', datatype: dt, shape: [2, 3], data: got.data },
      ]);
      const body = typeof res.body === 'string' ? Buffer.from(res.body) : res.body;
      assert.equal(res.contentType, mode === 'binary' ? 'application/octet-stream' : 'application/json');
      const parsed = parseResponse(body, res.headerLength);
      assert.equal(parsed.model_name, 'ident');
      assert.equal(parsed.model_version, '1');
      assert.equal(parsed.id, 'r1');
      assert.equal(parsed.outputs[0].binary, mode === 'binary');
      assert.deepEqual(parsed.outputs[0].shape, [2, 3]);
      assert.deepEqual(parsed.outputs[0].values, jsonValues({ datatype: dt, data: SAMPLES[dt] }));
    });
  }
}

test('FP16 conversion rounds to nearest even and keeps specials', () => {
  assert.equal(floatToHalf(1), 0x3c00);
  assert.equal(floatToHalf(65504), 0x7bff);
  assert.equal(floatToHalf(1e6), 0x7c00);
  assert.equal(floatToHalf(-0), 0x8000);
  assert.equal(floatToHalf(2 ** -24), 0x0001);
  assert.equal(floatToHalf(1 + 2 ** -11), 0x3c00); // tie -> even
  assert.equal(floatToHalf(1 + 3 * 2 ** -11), 0x3c02);
  assert.ok(Number.isNaN(halfToFloat(floatToHalf(NaN))));
  for (let bits = 0; bits < 0x7c00; bits += 37) assert.equal(floatToHalf(halfToFloat(bits)), bits);
});

// ------------------------------------------------------------------ validation against a batching model

const MLP: ModelConfig = {
  name: 'mlp',
  max_batch_size: 64,
  input: [{ name: 'INPUT0', data_type: 'TYPE_FP32', dims: [784] }],
  output: [
    { name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [10] },
    { name: 'LOGITS', data_type: 'TYPE_FP32', dims: [10] },
  ],
};
const fp32 = (n: number, fill = 0.5) => new Float32Array(n).fill(fill);
const mlpInput = (batch: number, name = 'INPUT0'): Tensor => ({
  name,
  datatype: 'FP32',
  shape: [batch, 784],
  data: fp32(batch * 784),
});
const mlp = (body: Buffer | string, headerLength?: number) => decode(body, headerLength, MLP, 'mlp');

function rejects(fn: () => unknown, message: string | RegExp, status = 400): void {
  assert.throws(fn, (err: any) => {
    assert.equal(err.httpStatus, status, `status for: ${err.message}`);
    if (typeof message === 'string') assert.ok(err.message.includes(message), `"${err.message}" lacks "${message}"`);
    else assert.match(err.message, message);
    return true;
  });
}

test('a valid batched request: batch size, shape key, priority and timeout reach the scheduler', () => {
  const d = mlp(jsonRequest([mlpInput(3)], { parameters: { priority: 2, timeout: 5000 } }));
  assert.equal(d.batchSize, 3);
  assert.equal(d.shapeKey, '');
  const req = toSchedulerRequest(d);
  assert.equal(req.batchSize, 3);
  assert.equal(req.priority, 2);
  assert.equal(req.timeoutUs, 5000);
  assert.equal(req.payload.outputs, undefined);
  assert.equal((req.payload.inputs[0].data as Float32Array).length, 3 * 784);
});

test('nested JSON data is accepted like flat data', () => {
  const rows = [Array.from({ length: 784 }, (_, i) => i / 784), Array.from({ length: 784 }, () => 1)];
  const body = JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [2, 784], data: rows }] });
  const d = mlp(body);
  const data = d.inputs[0].data as Float32Array;
  assert.equal(data.length, 1568);
  assert.equal(data[1], Math.fround(1 / 784));
  assert.equal(data[1567], 1);
});

test('variable dims give a shape key so only equal lengths share a batch', () => {
  const cfg: ModelConfig = {
    name: 'text',
    max_batch_size: 8,
    input: [{ name: 'TOKENS', data_type: 'TYPE_INT64', dims: [-1] }],
    output: [{ name: 'EMB', data_type: 'TYPE_FP32', dims: [64] }],
  };
  const t = (len: number): Tensor => ({ name: 'TOKENS', datatype: 'INT64', shape: [2, len], data: new BigInt64Array(2 * len) });
  const a = decode(jsonRequest([t(5)]), undefined, cfg, 'text');
  const b = decode(jsonRequest([t(7)]), undefined, cfg, 'text');
  assert.equal(a.batchSize, 2);
  assert.equal(a.shapeKey, '5');
  assert.notEqual(a.shapeKey, b.shapeKey);
});

test('max_batch_size 0: batch size 1 and the full shape is checked against dims', () => {
  const cfg: ModelConfig = {
    name: 'nobatch',
    max_batch_size: 0,
    input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [1, 4] }],
    output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [1, 4] }],
  };
  const d = decode(jsonRequest([{ name: 'x', datatype: 'FP32', shape: [1, 4], data: fp32(4) }]), undefined, cfg, 'nobatch');
  assert.equal(d.batchSize, 1);
  rejects(
    () => decode(jsonRequest([{ name: 'x', datatype: 'FP32', shape: [2, 4], data: fp32(8) }]), undefined, cfg, 'nobatch'),
    "unexpected shape for input 'x' for model 'nobatch'. Expected [1,4], got [2,4]",
  );
});

test('requested outputs and their binary flags are honoured', () => {
  const d = mlp(jsonRequest([mlpInput(1)], { outputs: [{ name: 'LOGITS', binary: true }, { name: 'OUTPUT0' }] }));
  assert.deepEqual(d.outputs, ['LOGITS', 'OUTPUT0']);
  assert.equal(d.binaryOutputs.get('LOGITS'), true);
  assert.equal(d.binaryOutputs.get('OUTPUT0'), false);
  const served = { name: 'mlp', version: '1', state: 'READY' as const, config: MLP };
  const selected = selectOutputs(served, buildModelSpec('mlp', '1', MLP), d, [
    { name: 'OUTPUT0', datatype: 'FP32', shape: [1, 10], data: fp32(10, 1) },
    { name: 'LOGITS', datatype: 'FP32', shape: [1, 10], data: fp32(10, 2) },
  ]);
  const res = encodeInferResponse('mlp', '1', d, selected);
  const parsed = parseResponse(res.body as Buffer, res.headerLength);
  assert.deepEqual(parsed.outputs.map((o) => [o.name, o.binary]), [['LOGITS', true], ['OUTPUT0', false]]);
  assert.deepEqual(parsed.outputs[0].values, new Array(10).fill(2));
});

test('validation errors carry Triton wording and status 400', () => {
  rejects(() => mlp(jsonRequest([])), "expected 1 inputs but got 0 inputs for model 'mlp'. Got input(s) [], but missing required input(s) ['INPUT0']. Please provide all required input(s).");
  rejects(() => mlp(jsonRequest([mlpInput(1), mlpInput(1, 'EXTRA')])), "expected 1 inputs but got 2 inputs for model 'mlp'");
  rejects(() => mlp(jsonRequest([mlpInput(1, 'foo')])), "unexpected inference input 'foo' for model 'mlp'");
  rejects(
    () => mlp(jsonRequest([{ name: 'INPUT0', datatype: 'INT32', shape: [1, 784], data: new Int32Array(784) }])),
    "inference input 'INPUT0' data-type is 'INT32', but model 'mlp' expects 'FP32'",
  );
  rejects(
    () => mlp(jsonRequest([{ name: 'INPUT0', datatype: 'FP32', shape: [2, 100], data: fp32(200) }])),
    "unexpected shape for input 'INPUT0' for model 'mlp'. Expected [-1,784], got [2,100]",
  );
  rejects(() => mlp(jsonRequest([mlpInput(65)])), "inference request batch-size must be <= 64 for 'mlp'");
  rejects(
    () => mlp(JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 784], data: [1, 2, 3] }] })),
    "Unable to parse 'data': Shape does not match true shape of 'data' field",
  );
  rejects(
    () => mlp(JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 784], data: new Array(784).fill('a') }] })),
    "Unable to parse 'data': expected FP32 values for input 'INPUT0'",
  );
  rejects(() => mlp(jsonRequest([mlpInput(1)], { outputs: [{ name: 'nope' }] })), "unexpected inference output 'nope' for model 'mlp'");
  rejects(() => mlp('{"inputs": ['), 'failed to parse the request JSON buffer');
  rejects(() => mlp(''), 'failed to parse the request JSON buffer: The document is empty.');
  rejects(() => mlp('[1,2]'), 'failed to parse the request JSON buffer');
  rejects(() => mlp('{}'), "Unable to parse 'inputs': attempt to access non-existing object member 'inputs'");
  rejects(
    () => mlp(JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [-1, 784], data: [] }] })),
    "Unable to parse 'shape'",
  );
  rejects(
    () => mlp(JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1e9, 1e9], data: [] }] })),
    /more than the \d+ allowed/,
  );
  rejects(
    () => mlp(JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FLOAT', shape: [1, 784], data: [] }] })),
    'invalid datatype for input INPUT0',
  );
  rejects(
    () => mlp(JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 784] }] })),
    "Input must set only one of the following fields: 'data', 'binary_data_size' in 'parameters', 'shared_memory_region' in 'parameters'. But no field is set",
  );
  rejects(
    () => mlp(jsonRequest([mlpInput(1)], { parameters: { priority: -1 } })),
    "Unable to parse 'priority'",
  );
  rejects(() => mlp(jsonRequest([mlpInput(1)], { parameters: { timeout: 'soon' } })), "Unable to parse 'timeout'");
  rejects(() => mlp(jsonRequest([mlpInput(1)], { parameters: { triton_x: 1 } })), "parameter keys starting with 'triton_' are reserved");
  rejects(
    () => mlp(JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [0, 784], data: [] }] })),
    "inference request batch-size must be >= 1 for 'mlp'",
  );
});

test('binary framing errors', () => {
  const good = binaryRequest([mlpInput(1)]);
  // byte size that does not match the shape
  const short = binaryRequest([{ name: 'INPUT0', datatype: 'FP32', shape: [1, 784], data: fp32(783) }]);
  rejects(() => mlp(short.body, short.headerLength), "input byte size mismatch for input 'INPUT0' for model 'mlp'. Expected 3136, got 3132");
  // body shorter than binary_data_size
  rejects(() => mlp(good.body.subarray(0, good.body.length - 10), good.headerLength), "unexpected size for input 'INPUT0', expecting 10 additional bytes for model 'mlp'");
  // trailing bytes after the last input
  rejects(() => mlp(Buffer.concat([good.body, Buffer.alloc(3)]), good.headerLength), "unexpected additional input data for model 'mlp'");
  // binary_data_size without the header length
  rejects(() => mlp(good.body, undefined), /failed to parse the request JSON buffer|must specify valid 'Infer-Header-Content-Length'/);
  const headerOnly = good.body.subarray(0, good.headerLength);
  rejects(() => mlp(headerOnly, undefined), "must specify valid 'Infer-Header-Content-Length'");
  // header length beyond the body, and garbage in the header
  rejects(() => parseHeaderLength(String(good.body.length + 1), good.body.length), 'inference header size should be in range');
  rejects(() => parseHeaderLength('12abc', good.body.length), 'Unable to parse Inference-Header-Content-Length, got: 12abc');
  // header length that cuts the JSON
  rejects(() => mlp(good.body, 10), 'failed to parse the request JSON buffer');
  // BYTES framing: a length prefix that runs past the end, and a wrong element count
  const cfg = identityConfig('BYTES');
  const strs: Tensor = { name: 'x', datatype: 'BYTES', shape: [2, 3], data: SAMPLES.BYTES };
  const b = binaryRequest([strs]);
  const cut = Buffer.concat([b.body.subarray(0, b.body.length - 1)]);
  const hdr = JSON.parse(cut.subarray(0, b.headerLength).toString());
  hdr.inputs[0].parameters.binary_data_size -= 1;
  const h2 = Buffer.from(JSON.stringify(hdr));
  rejects(() => decode(Buffer.concat([h2, cut.subarray(b.headerLength)]), h2.length, cfg), 'element byte size indicator exceeds the end of the buffer');
  const fewer: Tensor = { name: 'x', datatype: 'BYTES', shape: [2, 3], data: SAMPLES.BYTES.slice(0, 5) };
  const f = binaryRequest([fewer]);
  rejects(() => decode(f.body, f.headerLength, cfg), "expected 6 string elements for inference input 'x' for model 'ident', got 5");
});

// ------------------------------------------------------------ Triton's rules added with the gRPC work

test('a duplicate requested output is refused as Triton does', () => {
  rejects(() => mlp(jsonRequest([mlpInput(1)], { outputs: [{ name: 'LOGITS' }, { name: 'LOGITS' }] })), "output 'LOGITS' already exists in request");
});

test('request parameters: sequence flags must be booleans, custom values scalars', () => {
  const withParams = (parameters: Record<string, unknown>) => () => mlp(jsonRequest([mlpInput(1)], { parameters }));
  rejects(withParams({ sequence_start: 1 }), "Unable to parse 'sequence_start'");
  rejects(withParams({ sequence_end: 'yes' }), "Unable to parse 'sequence_end'");
  rejects(withParams({ sequence_id: { a: 1 } }), "Unable to parse 'sequence_id'");
  for (const v of [{ nested: true }, [1, 2], null]) {
    rejects(withParams({ custom: v }), "parameter 'custom' has invalid type. It should be either 'int', 'bool', or 'string'.");
  }
  for (const v of ['text', 3, 2.5, false]) assert.doesNotThrow(withParams({ custom: v, sequence_start: true, sequence_id: 'abc' }));
});

test('raw binary request: Inference-Header-Content-Length 0, the body is the only input', () => {
  const data = fp32(784, 0.25);
  const body = Buffer.from(data.buffer);
  const d = mlp(body, 0);
  assert.deepEqual(d.inputs[0].shape, [1, 784], 'batch dim 1 prepended for a batching model');
  assert.equal(d.inputs[0].name, 'INPUT0');
  assert.deepEqual(Array.from(d.inputs[0].data as Float32Array).slice(0, 3), [0.25, 0.25, 0.25]);
  rejects(() => mlp(body.subarray(0, 100), 0), "input byte size mismatch for input 'INPUT0' for model 'mlp'. Expected 3136, got 100");
  // one variable dim is sized from the byte count; BYTES only for a single element
  const varLen: ModelConfig = { name: 'v', max_batch_size: 0, input: [{ name: 'ids', data_type: 'TYPE_INT64', dims: [-1] }], output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [1] }] };
  assert.deepEqual(decode(Buffer.from(new BigInt64Array([1n, 2n, 3n]).buffer), 0, varLen, 'v').inputs[0].shape, [3]);
  const two: ModelConfig = { ...varLen, input: [varLen.input![0], { name: 'b', data_type: 'TYPE_FP32', dims: [1] }] };
  rejects(() => decode(Buffer.alloc(8), 0, two, 'v'), "Raw request must only have 1 input (found 1) to be deduced but got 2 inputs in 'v' model configuration");
  const str: ModelConfig = { ...varLen, input: [{ name: 's', data_type: 'TYPE_STRING', dims: [1] }] };
  const s = decode(Buffer.from('hello'), 0, str, 'v');
  assert.equal(Buffer.from((s.inputs[0].data as Uint8Array[])[0]).toString(), 'hello');
  rejects(() => decode(Buffer.from('x'), 0, { ...str, input: [{ name: 's', data_type: 'TYPE_STRING', dims: [2] }] }, 'v'), 'the model must have input shape [1]');
});

test('classification: top K as "score:index[:label]" per batch item, ties by index', () => {
  const t: Tensor = { name: 'p', datatype: 'FP32', shape: [2, 4], data: new Float32Array([0.1, 0.7, 0.2, 0.7, 0.9, 0, 0.05, 0.05]) };
  const c = classify(t, 2, true, ['cat', 'dog']);
  assert.equal(c.datatype, 'BYTES');
  assert.deepEqual(c.shape, [2, 2]);
  const strings = (c.data as Uint8Array[]).map((b) => Buffer.from(b).toString());
  assert.deepEqual(strings, ['0.700000:1:dog', '0.700000:3', '0.900000:0:cat', '0.050000:2']);
  const ints = classify({ name: 'i', datatype: 'INT32', shape: [3], data: new Int32Array([5, 9, 1]) }, 5, false, undefined);
  assert.deepEqual(ints.shape, [3]);
  assert.deepEqual((ints.data as Uint8Array[]).map((b) => Buffer.from(b).toString()), ['9:1', '5:0', '1:2']);
  rejects(() => classify({ name: 'b', datatype: 'BYTES', shape: [1], data: [new Uint8Array(1)] }, 1, false, undefined), "class result not available for output due to unsupported type 'BYTES'");
  // the request side: classification is a non-negative integer
  rejects(() => mlp(jsonRequest([mlpInput(1)], { outputs: [{ name: 'LOGITS', parameters: { classification: 'two' } }] })), "Unable to set 'classification'");
  const d = mlp(jsonRequest([mlpInput(1)], { outputs: [{ name: 'LOGITS', parameters: { classification: 3 } }] }));
  assert.equal(d.classification?.get('LOGITS'), 3);
});
