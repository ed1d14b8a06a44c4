/**
 * The KServe codec alone, on the serve benchmark's request (binary FP32 [1,784], binary output): what the
 * HTTP path spends per request parsing, validating and encoding, against JSON.parse of the same header
 * measured in the same run (the part no decoder can skip).
 *
 *   node --import tsx bench/serve/codec.ts [--n 200000]
 */
import { parseInferRequest } from '../../apps/server/src/kserve/parse-request';
import { validateInferRequest } from '../../apps/server/src/infer/validate-request';
import { encodeInferResponse } from '../../apps/server/src/kserve/encode-response';
import { modelSpecFor } from '../../apps/server/src/infer/model-spec';
import type { ModelConfig } from '@inferscope/core/config';
import { binaryRequest } from '../../test/kserve/wire';
import { benchInput } from './bench-models';
import { arg } from '../args';

const n = Number(arg('--n', '200000'));
const { body, headerLength } = binaryRequest([benchInput], { binaryOutput: true });
const buf = Buffer.from(body);
const config = {
  name: 'mlp_batched', max_batch_size: 64,
  input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [784] }],
  output: [{ name: 'probabilities', data_type: 'TYPE_FP32', dims: [10] }],
} as unknown as ModelConfig;
const spec = modelSpecFor('mlp_batched', '1', config);
const outputs = [{ name: 'probabilities', datatype: 'FP32' as const, shape: [1, 10], data: new Float32Array(10) }];
const decoded = validateInferRequest(parseInferRequest(buf, headerLength, 'mlp_batched'), spec);

function usPerCall(fn: () => unknown): number {
  for (let i = 0; i < n / 10; i++) fn(); // warm-up: optimised code
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - t0) / n / 1000;
}

const base = usPerCall(() => JSON.parse(buf.toString('utf8', 0, headerLength)));
const rows: [string, number][] = [
  ['parse (framing + JSON structure)', usPerCall(() => parseInferRequest(buf, headerLength, 'mlp_batched'))],
  ['parse + validate (tensors decoded)', usPerCall(() => validateInferRequest(parseInferRequest(buf, headerLength, 'mlp_batched'), spec))],
  ['encode (binary response)', usPerCall(() => encodeInferResponse('mlp_batched', '1', decoded, outputs))],
];
console.log(`baseline JSON.parse of the ${headerLength}-byte header: ${base.toFixed(3)} µs`);
for (const [label, us] of rows) console.log(`${label}: ${us.toFixed(3)} µs (${(us / base).toFixed(1)}x the baseline)`);
