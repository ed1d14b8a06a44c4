// Helpers shared by the validation tests (not a test file itself; no node:* imports, like all of core).
import type { ConfigIssue } from '../errors';
import { normalizeModelConfig } from '../normalize';
import { parseModelConfig } from '../parser';
import { validateModelConfig } from './index';

/** A small config Triton accepts; tests append the field under test. */
export const BASE = `
name: "m"
platform: "onnxruntime_onnx"
max_batch_size: 8
input { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] }
output { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] }
`;

/** parse -> normalise -> validate, the way Triton sees a config.pbtxt. */
export function issuesOf(text: string, opts: { gpuCount?: number; folderName?: string } = {}): ConfigIssue[] {
  const gpuCount = opts.gpuCount ?? 1;
  const config = normalizeModelConfig(parseModelConfig(text), { modelName: opts.folderName ?? 'm', gpuCount });
  return validateModelConfig(config, { gpuCount, folderName: opts.folderName });
}

/** Validates without normalising first (for rules only reachable that way). */
export function rawIssuesOf(text: string, gpuCount = 1): ConfigIssue[] {
  return validateModelConfig(parseModelConfig(text), { gpuCount });
}

/** Exactly one issue, whose message contains `message`; returns it. */
export function expectOne(issues: ConfigIssue[], message: string): ConfigIssue {
  if (issues.length !== 1) throw new Error(`expected one issue, got: ${JSON.stringify(issues.map((i) => i.message))}`);
  if (!issues[0]!.message.includes(message)) throw new Error(`"${issues[0]!.message}" does not contain "${message}"`);
  return issues[0]!;
}
