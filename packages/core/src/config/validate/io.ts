/**
 * Inputs, outputs, batch inputs and batch outputs: Triton's ValidateModelIOConfig, ValidateIOShape,
 * ValidateModelInput/Output, ValidateNonLinearFormatIO and ValidateBatchIO, with hints for the
 * mistakes people make with dims and reshape.
 */
import { KNOWN_DATATYPES_HINT } from './hints';
import { IssueList, nameOf, type Rule } from './issues';
import { PLATFORM } from '../platforms';
import type { ModelConfig, ModelInput, ModelOutput } from '../types';

export const WILDCARD_DIM = -1;

/**
 * Element count of a shape as Triton's GetElementCount computes it: -1 when any dimension is variable,
 * and 0 for an empty shape (which is why an empty reshape gets its own rule below).
 */
export function tritonElementCount(shape: readonly number[]): number {
  if (shape.length === 0) return 0;
  let count = 1;
  for (const d of shape) {
    if (d === WILDCARD_DIM) return -1;
    count *= d;
  }
  return count;
}

/** Products of the fixed dimensions between variable ones: [2, 4, -1, 6] -> [8, 6]. */
function chunksBetweenWildcards(shape: readonly number[]): number[] {
  const chunks: number[] = [];
  let current = 1;
  for (const d of shape) {
    if (d === WILDCARD_DIM) {
      chunks.push(current);
      current = 1;
    } else {
      current *= d;
    }
  }
  chunks.push(current);
  return chunks;
}

/** The first problem with one tensor's name/type/dims/reshape, or undefined. Stops at the first, as Triton. */
function checkIOShape(
  io: ModelInput | ModelOutput, maxBatchSize: number, kind: 'input' | 'output', path: string,
): { message: string; path: string; hint?: string } | undefined {
  const prefix = `model ${kind} `;
  if (!io.name) return { message: `${prefix}must specify 'name'`, path };
  const named = `${prefix}'${io.name}' `;
  if (!io.data_type || io.data_type === 'TYPE_INVALID') {
    return { message: `${named}must specify 'data_type'`, path: `${path}.data_type`, hint: KNOWN_DATATYPES_HINT };
  }
  const dims = io.dims ?? [];
  if (dims.length === 0) {
    return {
      message: `${named}must specify 'dims'`, path,
      hint: 'give the shape without the batch dimension, e.g. dims: [ 3, 224, 224 ]; use [ 1 ] for one value per batch item',
    };
  }
  const reshape = io.reshape?.shape;
  if (io.reshape && (reshape ?? []).length === 0 && maxBatchSize === 0) {
    return { message: `${named}cannot have empty reshape for non-batching model as scalar tensors are not supported`, path: `${path}.reshape` };
  }
  if (dims.some((d) => d < 1 && d !== WILDCARD_DIM)) {
    return {
      message: `${named}dimension must be integer >= 1, or ${WILDCARD_DIM} to indicate a variable-size dimension`,
      path: `${path}.dims`,
      hint: 'a dimension of 0 would make the tensor empty; write -1 for a dimension whose size varies per request',
    };
  }
  if (!io.reshape) return undefined;
  const shape = reshape ?? [];
  if (shape.some((d) => d < 1 && d !== WILDCARD_DIM)) {
    return {
      message: `${named}reshape dimensions must be integer >= 1, or ${WILDCARD_DIM} to indicate a variable-size dimension`,
      path: `${path}.reshape`,
    };
  }
  const dimsSize = tritonElementCount(dims);
  const reshapeSize = tritonElementCount(shape);
  // An empty reshape (a scalar per batch item) matches dims holding exactly one element.
  if (dimsSize !== reshapeSize && (reshapeSize !== 0 || dimsSize !== 1)) {
    const hint = dimsSize > 0 && reshapeSize > 0
      ? `dims [${dims.join(', ')}] hold ${dimsSize} elements but reshape [${shape.join(', ')}] holds ${reshapeSize}; both must hold the same number`
      : 'dims and reshape must both be fixed-size with equal element counts, or have their variable (-1) dimensions in matching places';
    return { message: `${named}has different size for dims and reshape`, path: `${path}.reshape`, hint };
  }
  if (dimsSize === -1) {
    const a = chunksBetweenWildcards(dims);
    const b = chunksBetweenWildcards(shape);
    if (a.length !== b.length) {
      return { message: `${named}has different number of variable-size dimensions for dims and reshape`, path: `${path}.reshape` };
    }
    if (a.some((n, i) => n !== b[i])) {
      return {
        message: `${named}has different size for dims and reshape`, path: `${path}.reshape`,
        hint: 'between two -1 dimensions, the fixed dimensions of dims and reshape must multiply to the same number',
      };
    }
  }
  return undefined;
}

function checkNonLinearFormat(io: ModelInput | ModelOutput, platform: string, kind: 'input' | 'output') {
  if (!io.is_non_linear_format_io) return undefined;
  if (platform !== PLATFORM.tensorrtPlan) return 'Non-linear IO format is only supported for the TensorRT platform';
  if ((io.dims ?? []).length !== 3) return `Non-linear IO format ${kind} requires 3 dims`;
  return undefined;
}

function validateTensor(config: ModelConfig, issues: IssueList, io: ModelInput | ModelOutput, kind: 'input' | 'output', index: number) {
  const suffix = ` for ${nameOf(config)}`;
  const maxBatch = config.max_batch_size ?? 0;
  const platform = config.platform ?? '';
  const path = `${kind}[${index}]`;
  const shapeProblem = checkIOShape(io, maxBatch, kind, path);
  if (shapeProblem) {
    issues.add(shapeProblem.message + suffix, shapeProblem.path, shapeProblem.hint);
    return;
  }
  if (kind === 'input') {
    const input = io as ModelInput;
    const format = input.format ?? 'FORMAT_NONE';
    if ((format === 'FORMAT_NHWC' || format === 'FORMAT_NCHW') && (input.dims ?? []).length !== 3) {
      const hint = (input.dims ?? []).length === 4 && maxBatch > 0
        ? 'dims exclude the batch dimension; with max_batch_size > 0 Triton prepends it, so write the 3 image dimensions only'
        : 'NHWC/NCHW dims are the 3 image dimensions (C, H, W or H, W, C) without the batch dimension';
      issues.add(`model input NHWC/NCHW require 3 dims${suffix}`, `${path}.dims`, hint);
      return;
    }
  }
  if (platform !== PLATFORM.tensorrtPlan && io.is_shape_tensor) {
    issues.add(`shape tensors are only supported for TensorRT platform${suffix}`, `${path}.is_shape_tensor`);
    return;
  }
  const nonLinear = checkNonLinearFormat(io, platform, kind);
  if (nonLinear) issues.add(nonLinear + suffix, `${path}.is_non_linear_format_io`);
}

/** Tensor names must be unique among inputs and among outputs (requests address tensors by name). */
function checkUniqueNames(config: ModelConfig, issues: IssueList, kind: 'input' | 'output') {
  const seen = new Set<string>();
  (config[kind] ?? []).forEach((io, i) => {
    if (!io.name) return;
    if (seen.has(io.name)) {
      issues.add(`model ${kind} '${io.name}' is specified more than once for ${nameOf(config)}`, `${kind}[${i}].name`,
        `each ${kind} needs its own name`);
    }
    seen.add(io.name);
  });
}

export const validateInputsOutputs: Rule = (config, issues) => {
  (config.input ?? []).forEach((io, i) => validateTensor(config, issues, io, 'input', i));
  (config.output ?? []).forEach((io, i) => validateTensor(config, issues, io, 'output', i));
  checkUniqueNames(config, issues, 'input');
  checkUniqueNames(config, issues, 'output');
};

export const validateBatchIO: Rule = (config, issues) => {
  const suffix = ` for ${nameOf(config)}`;
  const inputNames = new Set((config.input ?? []).map((io) => io.name ?? ''));
  const outputNames = new Set((config.output ?? []).map((io) => io.name ?? ''));

  (config.batch_input ?? []).forEach((bi, i) => {
    const path = `batch_input[${i}]`;
    const kind = bi.kind ?? 'BATCH_ELEMENT_COUNT';
    const sources = bi.source_input ?? [];
    if (sources.length !== 1) {
      issues.add(`batch input kind '${kind}' expects 1 source input, got ${sources.length}${suffix}`, path,
        `name the one model input the value is derived from, e.g. source_input: [ "${[...inputNames][0] ?? 'INPUT'}" ]`);
      return;
    }
    const dt = bi.data_type ?? 'TYPE_INVALID';
    if (dt !== 'TYPE_INT32' && dt !== 'TYPE_FP32') {
      issues.add(`batch input data type must be TYPE_INT32 or TYPE_FP32${suffix}`, `${path}.data_type`);
      return;
    }
    for (const source of sources) {
      if (!inputNames.has(source)) {
        issues.add(`unknown source input name '${source}'${suffix}`, `${path}.source_input`);
        return;
      }
    }
  });

  (config.batch_output ?? []).forEach((bo, i) => {
    const path = `batch_output[${i}]`;
    const kind = bo.kind ?? 'BATCH_SCATTER_WITH_INPUT_SHAPE';
    const sources = bo.source_input ?? [];
    if (sources.length !== 1) {
      issues.add(`batch output kind '${kind}' expects 1 source input, got ${sources.length}${suffix}`, path);
      return;
    }
    for (const source of sources) {
      if (!inputNames.has(source)) {
        issues.add(`unknown source input name '${source}'${suffix}`, `${path}.source_input`);
        return;
      }
    }
    const targets = new Set<string>();
    for (const target of bo.target_name ?? []) {
      if (!outputNames.has(target)) {
        issues.add(`unknown target output name '${target}'${suffix}`, `${path}.target_name`);
        return;
      }
      if (targets.has(target)) {
        issues.add(`target output name '${target}' can only be specified once${suffix}`, `${path}.target_name`);
        return;
      }
      targets.add(target);
    }
  });
};
