/**
 * A temp repository of tiny ONNX models made with the project's own builder, and ensembles over them:
 *
 *   pipe:         IN --scale (2x+1)--> MID --project (x W, W 4x3)--> OUT        and IN --negate--> NEG
 *   lookup_pipe:  IDX --lookup (row IDX of a 4x4 table; out of range = onnxruntime error)--> ROW --project--> OUT
 *   ghost_pipe:   IN --missing_model--> OUT (a composing model that is not in the repository)
 *   outer:        IN --pipe--> OUT (an ensemble of an ensemble)
 *
 * `scale` and `project` batch with a long delay and preferred sizes 2 and 8, so concurrent ensemble requests
 * share their step batches whatever the machine's speed. The same arithmetic in plain TypeScript gives the
 * expected outputs (`expected`), so tests compare the ensemble with its steps run by hand.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GraphBuilder } from '../../apps/server/src/model-generator/onnx-builder';

export const W = Float32Array.from([0.5, -1, 2, 1, 0.25, -0.5, -2, 1.5, 0, 3, -0.75, 1]); // [4,3] row-major
export const TABLE = Float32Array.from({ length: 16 }, (_, i) => i - 7.5); // [4,4]

function scaleModel(): Uint8Array {
  const g = new GraphBuilder('scale');
  const x = g.input('x', 'float32', ['batch', 4]);
  const two = g.weight('two', [1], Float32Array.of(2));
  const one = g.weight('one', [1], Float32Array.of(1));
  g.node('Add', [g.node('Mul', [x, two]), one], {}, 'y');
  g.output('y', 'float32', ['batch', 4]);
  return g.encode('test: y = 2x + 1');
}

function projectModel(): Uint8Array {
  const g = new GraphBuilder('project');
  const x = g.input('x', 'float32', ['batch', 4]);
  g.node('MatMul', [x, g.weight('w', [4, 3], W)], {}, 'z');
  g.output('z', 'float32', ['batch', 3]);
  return g.encode('test: z = x W');
}

function negateModel(): Uint8Array {
  const g = new GraphBuilder('negate');
  g.node('Neg', [g.input('x', 'float32', ['batch', 4])], {}, 'n');
  g.output('n', 'float32', ['batch', 4]);
  return g.encode('test: n = -x');
}

function lookupModel(): Uint8Array {
  const g = new GraphBuilder('lookup');
  const idx = g.input('idx', 'int64', ['batch', 1]);
  const rows = g.node('Gather', [g.weight('table', [4, 4], TABLE), idx], { axis: 0 }); // [batch,1,4]
  g.node('Flatten', [rows], { axis: 1 }, 'row');
  g.output('row', 'float32', ['batch', 4]);
  return g.encode('test: row = table[idx]');
}

const io = (name: string, type: string, dims: number[]) => `{ name: "${name}" data_type: ${type} dims: [ ${dims.join(', ')} ] }`;

function onnxConfig(name: string, input: string, output: string, batching: string): string {
  return `name: "${name}"
backend: "onnxruntime"
max_batch_size: 8
input [ ${input} ]
output [ ${output} ]
${batching}
instance_group [ { count: 1 kind: KIND_CPU } ]
parameters { key: "intra_op_thread_count" value: { string_value: "1" } }
`;
}

// A request of 2 samples (or two requests) leaves at once; a lone single-sample one waits the whole delay.
const BATCH_8 = 'dynamic_batching { preferred_batch_size: [ 2, 8 ] max_queue_delay_microseconds: 2000000 }';

const step = (model: string, inputs: Record<string, string>, outputs: Record<string, string>) =>
  `step [ { model_name: "${model}" model_version: -1 ${Object.entries(inputs).map(([k, v]) => `input_map { key: "${k}" value: "${v}" }`).join(' ')} ${Object.entries(outputs).map(([k, v]) => `output_map { key: "${k}" value: "${v}" }`).join(' ')} } ]`;

export const PIPE = `name: "pipe"
platform: "ensemble"
max_batch_size: 8
input [ ${io('IN', 'TYPE_FP32', [-1])} ]
output [ ${io('OUT', 'TYPE_FP32', [3])}, ${io('NEG', 'TYPE_FP32', [4])} ]
ensemble_scheduling {
  ${step('scale', { x: 'IN' }, { y: 'MID' })}
  ${step('project', { x: 'MID' }, { z: 'OUT' })}
  ${step('negate', { x: 'IN' }, { n: 'NEG' })}
}
`;

const LOOKUP_PIPE = `name: "lookup_pipe"
platform: "ensemble"
max_batch_size: 8
input [ ${io('IDX', 'TYPE_INT64', [1])} ]
output [ ${io('OUT', 'TYPE_FP32', [3])} ]
ensemble_scheduling {
  ${step('lookup', { idx: 'IDX' }, { row: 'ROW' })}
  ${step('project', { x: 'ROW' }, { z: 'OUT' })}
}
`;

const GHOST_PIPE = `name: "ghost_pipe"
platform: "ensemble"
max_batch_size: 8
input [ ${io('IN', 'TYPE_FP32', [4])} ]
output [ ${io('OUT', 'TYPE_FP32', [4])} ]
ensemble_scheduling { ${step('missing_model', { x: 'IN' }, { y: 'OUT' })} }
`;

/** An ensemble of an ensemble: outer asks pipe for OUT only (pipe then skips its negate step). */
const OUTER = `name: "outer"
platform: "ensemble"
max_batch_size: 8
input [ ${io('IN', 'TYPE_FP32', [-1])} ]
output [ ${io('OUT', 'TYPE_FP32', [3])} ]
ensemble_scheduling { ${step('pipe', { IN: 'IN' }, { OUT: 'OUT' })} }
`;

export interface Fixture {
  dir: string;
  remove(): Promise<void>;
}

/**
 * Writes the fixture repository; `only` limits it to some models (e.g. an ensemble without a step model),
 * `batching` replaces the dynamic_batching block of scale and project (benchmarks want a short delay).
 */
export async function ensembleRepository(only?: string[], opts: { batching?: string } = {}): Promise<Fixture> {
  const batching = opts.batching ?? BATCH_8;
  const dir = await mkdtemp(join(tmpdir(), 'is-ensemble-'));
  const models: Record<string, { config: string; onnx?: Uint8Array }> = {
    scale: { config: onnxConfig('scale', io('x', 'TYPE_FP32', [4]), io('y', 'TYPE_FP32', [4]), batching), onnx: scaleModel() },
    project: { config: onnxConfig('project', io('x', 'TYPE_FP32', [4]), io('z', 'TYPE_FP32', [3]), batching), onnx: projectModel() },
    negate: { config: onnxConfig('negate', io('x', 'TYPE_FP32', [4]), io('n', 'TYPE_FP32', [4]), ''), onnx: negateModel() },
    lookup: { config: onnxConfig('lookup', io('idx', 'TYPE_INT64', [1]), io('row', 'TYPE_FP32', [4]), ''), onnx: lookupModel() },
    pipe: { config: PIPE },
    lookup_pipe: { config: LOOKUP_PIPE },
    ghost_pipe: { config: GHOST_PIPE },
    outer: { config: OUTER },
  };
  for (const [name, m] of Object.entries(models)) {
    if (only && !only.includes(name)) continue;
    await mkdir(join(dir, name, '1'), { recursive: true });
    await writeFile(join(dir, name, 'config.pbtxt'), m.config);
    if (m.onnx) await writeFile(join(dir, name, '1', 'model.onnx'), m.onnx);
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The steps by hand: OUT = (2x+1) W and NEG = -x for each row of 4. */
export function expected(x: number[]): { OUT: number[]; NEG: number[] } {
  const OUT: number[] = [];
  const NEG: number[] = [];
  for (let r = 0; r < x.length / 4; r++) {
    const mid = x.slice(r * 4, r * 4 + 4).map((v) => Math.fround(2 * v + 1));
    for (let c = 0; c < 3; c++) OUT.push(mid.reduce((s, v, k) => s + v * W[k * 3 + c]!, 0));
    NEG.push(...x.slice(r * 4, r * 4 + 4).map((v) => -v));
  }
  return { OUT, NEG };
}

/** Row `i` of TABLE projected: the lookup_pipe by hand. */
export function expectedLookup(i: number): number[] {
  const row = [...TABLE.slice(i * 4, i * 4 + 4)];
  return [0, 1, 2].map((c) => row.reduce((s, v, k) => s + v * W[k * 3 + c]!, 0));
}
