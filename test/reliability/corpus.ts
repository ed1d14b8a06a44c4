/**
 * A seeded, deterministic corpus of malformed KServe v2 infer requests against the demo models
 * (mlp_classifier: FP32 [-1,784], max_batch_size 64; text_encoder: INT64 [-1,-1], max_batch_size 32).
 * Every case is wrong in exactly one way the server must notice, so every case must get a 4xx with a
 * Triton-style `{"error": "..."}` body. Cases are built so that no random mutation can produce a valid
 * request (truncation always cuts before the closing brace, numeric noise only goes where it is an error).
 */
import { mulberry32 } from '../../apps/server/src/loadgen/input-generator.ts';

export interface BadCase {
  category: string;
  label: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

const MLP = '/v2/models/mlp_classifier/infer';
const TEXT = '/v2/models/text_encoder/infer';
const JSON_CT = { 'content-type': 'application/json' };

const zeros = (n: number): number[] => new Array<number>(n).fill(0);
const mlpInput = (rows = 1, extra: Record<string, unknown> = {}) => ({ name: 'input', datatype: 'FP32', shape: [rows, 784], data: zeros(rows * 784), ...extra });
export const validMlpRequest = (rows = 1, id = 'valid'): Record<string, unknown> => ({ id, inputs: [mlpInput(rows)] });
const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

/** Binary-extension body: JSON header then raw bytes; returns the honest header length too. */
function binaryBody(header: unknown, payload: Buffer): { body: Buffer; headerLength: number } {
  const h = json(header);
  return { body: Buffer.concat([h, payload]), headerLength: h.byteLength };
}

export function buildBadCorpus(seed = 1): BadCase[] {
  const rand = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const cases: BadCase[] = [];
  const add = (category: string, label: string, body: Buffer | string, url = MLP, headers: Record<string, string> = JSON_CT) =>
    cases.push({ category, label, url, headers, body: typeof body === 'string' ? Buffer.from(body) : body });

  // ---- broken JSON: truncations of a valid request (always before the final brace) and classics
  const valid = JSON.stringify(validMlpRequest(1));
  for (let i = 0; i < 300; i++) add('broken-json', `truncated at ${i}`, valid.slice(0, int(0, valid.length - 1)));
  for (const s of ['', ' ', '{', '}', '[', '{"inputs":', '{"inputs":[}', "{'inputs':[]}", '{"inputs":[NaN]}', '{inputs:[]}',
    'null', 'true', '42', '"text"', '[]', '{"inputs":[{"name":"input",}]}', '{"inputs":[]}{"inputs":[]}', '[' .repeat(20000), '{"a":'.repeat(5000)]) {
    add('broken-json', `literal ${JSON.stringify(s.slice(0, 20))}`, s);
  }

  // ---- wrong types for every field of the request and of an input
  const wrongValues: unknown[] = [null, 1, -1, 1.5, true, 'x', [], {}, [1, 2]];
  for (const v of wrongValues) {
    if (!Array.isArray(v)) add('wrong-type', `inputs=${JSON.stringify(v)}`, json({ inputs: v }));
    if (typeof v !== 'string') add('wrong-type', `id=${JSON.stringify(v)}`, json({ ...validMlpRequest(), id: v }));
    if (typeof v !== 'object' || Array.isArray(v) || v === null) add('wrong-type', `parameters=${JSON.stringify(v)}`, json({ ...validMlpRequest(), parameters: v }));
    add('wrong-type', `priority=${JSON.stringify(v)}`, json({ ...validMlpRequest(), parameters: { priority: v === 1 ? -3 : v } }));
    add('wrong-type', `timeout=${JSON.stringify(v)}`, json({ ...validMlpRequest(), parameters: { timeout: v === 1 ? -3 : v } }));
    if (typeof v !== 'boolean') add('wrong-type', `binary_data_output=${JSON.stringify(v)}`, json({ ...validMlpRequest(), parameters: { binary_data_output: v } }));
    if (typeof v !== 'string') add('wrong-type', `input.name=${JSON.stringify(v)}`, json({ inputs: [mlpInput(1, { name: v })] }));
    if (typeof v !== 'string') add('wrong-type', `input.datatype=${JSON.stringify(v)}`, json({ inputs: [mlpInput(1, { datatype: v })] }));
    if (!Array.isArray(v) || v.length > 0) add('wrong-type', `input.shape=${JSON.stringify(v)}`, json({ inputs: [mlpInput(1, { shape: v })] }));
    if (!Array.isArray(v)) add('wrong-type', `input.data=${JSON.stringify(v)}`, json({ inputs: [mlpInput(1, { data: v })] }));
    add('wrong-type', `input=${JSON.stringify(v)}`, json({ inputs: [v] }));
    if (!Array.isArray(v)) add('wrong-type', `outputs=${JSON.stringify(v)}`, json({ ...validMlpRequest(), outputs: v }));
    add('wrong-type', `outputs[0]=${JSON.stringify(v)}`, json({ ...validMlpRequest(), outputs: [v] }));
    if (typeof v !== 'boolean') add('wrong-type', `binary_data=${JSON.stringify(v)}`, json({ ...validMlpRequest(), outputs: [{ name: 'probabilities', parameters: { binary_data: v } }] }));
  }
  for (const key of ['name', 'datatype', 'shape', 'data']) {
    const input: Record<string, unknown> = mlpInput(1);
    delete input[key];
    add('wrong-type', `input without ${key}`, json({ inputs: [input] }));
  }
  add('wrong-type', 'no inputs member', json({ id: 'x' }));
  add('wrong-type', 'data with strings', json({ inputs: [mlpInput(1, { data: zeros(784).map(String) })] }));
  add('wrong-type', 'data with booleans', json({ inputs: [mlpInput(1, { data: zeros(784).map(() => true) })] }));
  add('wrong-type', 'data with null', json({ inputs: [mlpInput(1, { data: zeros(784).map(() => null) })] }));
  add('wrong-type', 'data with objects', json({ inputs: [mlpInput(1, { data: zeros(784).map(() => ({})) })] }));
  add('wrong-type', 'INT64 data with fractions', json({ inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, 4], data: [1.5, 2, 3, 4] }] }), TEXT);
  add('wrong-type', 'INT64 data out of vocabulary range type', json({ inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, 2], data: ['a', 'b'] }] }), TEXT);
  add('wrong-type', 'triton_ reserved parameter', json({ ...validMlpRequest(), parameters: { triton_enable_empty_final_response: true } }));
  add('wrong-type', 'shared memory input', json({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { shared_memory_region: 'r' } }] }));
  add('wrong-type', 'data and binary_data_size', json({ inputs: [mlpInput(1, { parameters: { binary_data_size: 3136 } })] }));
  add('wrong-type', 'duplicate input', json({ inputs: [mlpInput(1), mlpInput(1)] }));
  add('wrong-type', 'extra input', json({ inputs: [mlpInput(1), { ...mlpInput(1), name: 'extra' }] }));
  add('wrong-type', 'no input at all', json({ inputs: [] }));
  add('wrong-type', 'unknown output', json({ ...validMlpRequest(), outputs: [{ name: 'nope' }] }));
  add('wrong-type', 'classification count not an integer', json({ ...validMlpRequest(), outputs: [{ name: 'probabilities', parameters: { classification: 'three' } }] }));

  // ---- datatypes that are not the model's, or not datatypes
  for (const dt of ['INT32', 'FP16', 'FP64', 'UINT8', 'BOOL', 'BYTES', 'INT64', 'fp32', 'FLOAT', 'TYPE_FP32', '', 'FP32 ', 'BF16X']) {
    add('datatype', `datatype ${dt}`, json({ inputs: [mlpInput(1, { datatype: dt })] }));
  }
  for (const dt of ['FP32', 'INT32', 'UINT64', 'BYTES', 'int64']) {
    add('datatype', `text_encoder datatype ${dt}`, json({ inputs: [{ name: 'token_ids', datatype: dt, shape: [1, 3], data: [1, 2, 3] }] }), TEXT);
  }

  // ---- shapes (data length kept consistent, so the shape is the only fault)
  for (let i = 0; i < 120; i++) {
    const kind = i % 4;
    if (kind === 0) {
      const d = int(1, 2000) === 784 ? 785 : int(1, 2000);
      add('shape', `feature dim ${d}`, json({ inputs: [mlpInput(1, { shape: [1, d], data: zeros(d === 784 ? 785 : d) })] }));
    } else if (kind === 1) {
      const b = int(65, 80);
      add('shape', `batch ${b} above max_batch_size 64`, json({ inputs: [mlpInput(b)] }));
    } else if (kind === 2) {
      add('shape', 'rank 3', json({ inputs: [mlpInput(1, { shape: [1, 28, 28] })] }));
    } else {
      add('shape', 'rank 1 (no batch dim)', json({ inputs: [mlpInput(1, { shape: [784] })] }));
    }
  }
  add('shape', 'empty shape', json({ inputs: [mlpInput(1, { shape: [], data: [0] })] }));
  add('shape', 'text_encoder rank 1', json({ inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [3], data: [1, 2, 3] }] }), TEXT);
  add('shape', 'text_encoder batch 40 above 32', json({ inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [40, 1], data: zeros(40) }] }), TEXT);

  // ---- huge, negative and non-integer dims
  for (const dims of [[-1, 784], [1, -784], [2 ** 31, 784], [1e12, 784], [2 ** 53, 784], [1, 1e308], [1.5, 784], [1, 784.5],
    [65536, 65536], [1, 784, 0, -1], [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]]) {
    add('huge-dims', `shape ${JSON.stringify(dims)}`, json({ inputs: [mlpInput(1, { shape: dims, data: [0] })] }));
    const b = binaryBody({ inputs: [{ name: 'input', datatype: 'FP32', shape: dims, parameters: { binary_data_size: 16 } }] }, Buffer.alloc(16));
    add('huge-dims', `binary shape ${JSON.stringify(dims)}`, b.body, MLP, { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(b.headerLength) });
  }

  // ---- lengths: data does not match the shape
  for (let i = 0; i < 120; i++) {
    const rows = int(1, 4);
    let len = int(0, rows * 784 + 50);
    if (len === rows * 784) len += 1;
    add('length', `${rows}x784 with ${len} values`, json({ inputs: [mlpInput(rows, { data: zeros(len) })] }));
  }
  add('length', 'nested data of the wrong inner length', json({ inputs: [mlpInput(2, { data: [zeros(784), zeros(783)] })] }));
  add('length', 'text_encoder 2x3 with 5 ids', json({ inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [2, 3], data: [1, 2, 3, 4, 5] }] }), TEXT);

  // ---- lying binary headers and binary_data_size mismatches
  for (let i = 0; i < 150; i++) {
    const honest = 784 * 4;
    const kind = i % 5;
    const declared = kind === 0 ? honest + int(1, 4000) : kind === 1 ? int(0, honest - 1) : honest;
    const sent = kind === 2 ? honest + int(1, 64) : kind === 3 ? int(0, honest - 1) : honest;
    const b = binaryBody({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { binary_data_size: declared } }] }, Buffer.alloc(sent));
    let headerLength = String(b.headerLength);
    if (kind === 4) headerLength = String(b.body.byteLength + int(1, 10_000)); // header length beyond the body
    cases.push({ category: 'binary-header', label: `kind ${kind} declared ${declared} sent ${sent} ihcl ${headerLength}`, url: MLP,
      headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': headerLength }, body: b.body });
  }
  for (const h of ['-1', 'abc', '1e3', '0x10', ' ', '99999999999999999999', '12.5']) {
    const b = binaryBody({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { binary_data_size: 3136 } }] }, Buffer.alloc(3136));
    cases.push({ category: 'binary-header', label: `ihcl ${JSON.stringify(h)}`, url: MLP, headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': h }, body: b.body });
  }
  {
    const b = binaryBody({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { binary_data_size: 3136 } }] }, Buffer.alloc(3136));
    cases.push({ category: 'binary-header', label: 'binary without the header', url: MLP, headers: JSON_CT, body: b.body });
    cases.push({ category: 'binary-header', label: 'binary_data_size without the header, JSON only', url: MLP, headers: JSON_CT, body: json({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { binary_data_size: 3136 } }] }) });
    const bad = binaryBody({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { binary_data_size: -4 } }] }, Buffer.alloc(3136));
    cases.push({ category: 'binary-header', label: 'negative binary_data_size', url: MLP, headers: { 'inference-header-content-length': String(bad.headerLength) }, body: bad.body });
    const frac = binaryBody({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { binary_data_size: 3135.5 } }] }, Buffer.alloc(3136));
    cases.push({ category: 'binary-header', label: 'fractional binary_data_size', url: MLP, headers: { 'inference-header-content-length': String(frac.headerLength) }, body: frac.body });
    const odd = binaryBody({ inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, 3], parameters: { binary_data_size: 23 } }] }, Buffer.alloc(23));
    cases.push({ category: 'binary-header', label: 'INT64 bytes not a multiple of 8', url: TEXT, headers: { 'inference-header-content-length': String(odd.headerLength) }, body: odd.body });
  }

  // ---- unknown models, versions, and malformed version segments
  const body = json(validMlpRequest());
  for (let i = 0; i < 60; i++) add('unknown-model', `model ${i}`, body, `/v2/models/no_such_model_${int(0, 1e6)}/infer`);
  for (const v of ['3', '99', '0', '-1', 'abc', '1.0', '01x', '99999999999999999999999', '%20', 'latest']) {
    add('unknown-version', `version ${v}`, body, `/v2/models/mlp_classifier/versions/${v}/infer`);
  }
  for (const n of ['..', '%2e%2e', '..%2f..%2fetc', 'mlp_classifier%00', '%2e%2e%2fmodel_repository', 'MLP_CLASSIFIER', 'mlp_classifier ']) {
    add('unknown-model', `odd name ${n}`, body, `/v2/models/${n}/infer`);
  }

  // ---- odd encodings and content types
  const validMlp = json(validMlpRequest());
  add('encoding', 'UTF-8 BOM before an otherwise broken body', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"inputs":[')]));
  add('encoding', 'UTF-16LE body', Buffer.from(JSON.stringify(validMlpRequest()), 'utf16le'), MLP, { 'content-type': 'application/json; charset=utf-16' });
  add('encoding', 'UTF-16 BOM + UTF-16LE', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(validMlpRequest()), 'utf16le')]));
  for (let i = 0; i < 30; i++) {
    // invalid UTF-8 inside the input name: refused as JSON text that is not UTF-8 (it used to become U+FFFD)
    const bytes = Buffer.from(JSON.stringify({ inputs: [mlpInput(1, { name: 'in@@' })] }));
    const at = bytes.indexOf('in@@') + 2;
    bytes[at] = [0xff, 0xc3, 0xe2, 0x80, 0xf0][i % 5];
    bytes[at + 1] = [0xfe, 0x28, 0x28, 0x80, 0x28][i % 5];
    add('encoding', `invalid UTF-8 in a name (${i % 5})`, bytes);
  }
  for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'image/png', '']) {
    add('encoding', `content-type ${ct || '(empty)'} with a broken body`, validMlp.subarray(0, validMlp.byteLength - 1), MLP, ct ? { 'content-type': ct } : {});
  }
  add('encoding', 'NUL bytes', Buffer.alloc(64));
  add('encoding', 'random bytes', Buffer.from(Array.from({ length: 512 }, () => int(0, 255)).map((x, i) => (i === 0 ? 0x01 : x))));
  return cases;
}
