/**
 * Triton's classification extension: an output requested with `classification: K` is replaced by a BYTES
 * tensor of the top K entries per batch item, each "score:index" or "score:index:label" (label from the
 * output's `label_filename`, one label per line, in the model folder). Scores print like C++'s
 * std::to_string (six decimals for floats, digits for integers), as Triton's do. Ties keep the lower index first (a stable sort).
 */
import { readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { Tensor } from '@inferscope/core';
import { invalid } from './errors';

/** Triton refuses to sort more than this many elements of one output. */
const MAX_CLASSIFICATION_ELEMENTS = 1_000_000;
const utf8 = new TextEncoder();

export function classify(t: Tensor, k: number, batched: boolean, labels: readonly string[] | undefined): Tensor {
  if (t.datatype === 'BYTES' || t.datatype === 'BOOL' || t.datatype === 'FP16') {
    throw invalid(`class result not available for output due to unsupported type '${t.datatype}'`);
  }
  const data = t.data as ArrayLike<number | bigint>;
  if (data.length > MAX_CLASSIFICATION_ELEMENTS) throw invalid('classification output tensor too large');
  const rows = batched && t.shape.length > 0 ? t.shape[0] : 1;
  const perRow = rows === 0 ? 0 : data.length / rows;
  const take = Math.min(k, perRow);
  const out: Uint8Array[] = [];
  const float = t.datatype === 'FP32' || t.datatype === 'FP64';
  const order = Array.from({ length: perRow }, (_, i) => i);
  for (let r = 0; r < rows; r++) {
    const base = r * perRow;
    const score = (i: number) => Number(data[base + i]);
    const sorted = order.slice().sort((a, b) => score(b) - score(a));
    for (let j = 0; j < take; j++) {
      const i = sorted[j];
      const label = labels?.[i];
      out.push(utf8.encode(`${float ? Number(data[base + i]).toFixed(6) : String(data[base + i])}:${i}${label !== undefined ? `:${label}` : ''}`));
    }
  }
  return { name: t.name, datatype: 'BYTES', shape: batched ? [rows, take] : [take], data: out };
}

const labelCache = new Map<string, string[]>();

/**
 * The labels of one output, read once per file. The file must stay inside the model folder (a config
 * naming `../x` gets no labels rather than reading outside it).
 */
export function outputLabels(modelDir: string | undefined, labelFile: string | undefined): string[] | undefined {
  if (!modelDir || !labelFile) return undefined;
  const root = resolve(modelDir);
  const file = resolve(join(root, labelFile));
  if (!file.startsWith(root + sep)) return undefined;
  let labels = labelCache.get(file);
  if (!labels) {
    try {
      labels = readFileSync(file, 'utf8').split(/\r?\n/);
      if (labels.length > 0 && labels[labels.length - 1] === '') labels.pop();
    } catch {
      labels = [];
    }
    labelCache.set(file, labels);
  }
  return labels;
}
