/**
 * JSON Schemas of the Open Inference Protocol (KServe v2) REST responses, written from the protocol's
 * specification (server/model metadata, inference response, errors), plus Triton's statistics and
 * repository-index extensions (their documented JSON). Compiled with ajv for the conformance test.
 */
import Ajv from 'ajv';

const parameters = {
  type: 'object',
  additionalProperties: { type: ['string', 'number', 'boolean'] },
};
const metadataTensor = {
  type: 'object',
  required: ['name', 'datatype', 'shape'],
  additionalProperties: false,
  properties: { name: { type: 'string' }, datatype: { type: 'string' }, shape: { type: 'array', items: { type: 'integer' } } },
};
const tensorData = { type: 'array' };
const duration = {
  type: 'object',
  required: ['count', 'ns'],
  additionalProperties: false,
  // Triton: uint64 counts and nanoseconds, never fractions
  properties: { count: { type: 'integer', minimum: 0 }, ns: { type: 'integer', minimum: 0 } },
};

export const SCHEMAS = {
  error: { type: 'object', required: ['error'], additionalProperties: false, properties: { error: { type: 'string', minLength: 1 } } },
  serverMetadata: {
    type: 'object',
    required: ['name', 'version', 'extensions'],
    additionalProperties: false,
    properties: { name: { type: 'string' }, version: { type: 'string' }, extensions: { type: 'array', items: { type: 'string' } } },
  },
  modelMetadata: {
    type: 'object',
    required: ['name', 'platform'],
    additionalProperties: false,
    properties: {
      name: { type: 'string' },
      versions: { type: 'array', items: { type: 'string' } },
      platform: { type: 'string' },
      inputs: { type: 'array', items: metadataTensor },
      outputs: { type: 'array', items: metadataTensor },
    },
  },
  inferResponse: {
    type: 'object',
    required: ['model_name', 'outputs'],
    additionalProperties: false,
    properties: {
      model_name: { type: 'string' },
      model_version: { type: 'string' },
      id: { type: 'string' },
      parameters,
      outputs: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'shape', 'datatype'],
          additionalProperties: false,
          properties: {
            name: { type: 'string' },
            shape: { type: 'array', items: { type: 'integer', minimum: 0 } },
            datatype: { enum: ['BOOL', 'UINT8', 'UINT16', 'UINT32', 'UINT64', 'INT8', 'INT16', 'INT32', 'INT64', 'FP16', 'FP32', 'FP64', 'BYTES'] },
            parameters,
            data: tensorData,
          },
          // data, unless the output went binary (binary_data_size)
          anyOf: [{ required: ['data'] }, { required: ['parameters'], properties: { parameters: { type: 'object', required: ['binary_data_size'] } } }],
        },
      },
    },
  },
  modelStats: {
    type: 'object',
    required: ['model_stats'],
    additionalProperties: false,
    properties: {
      model_stats: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'version', 'last_inference', 'inference_count', 'execution_count', 'inference_stats', 'batch_stats'],
          properties: {
            name: { type: 'string' },
            version: { type: 'string' },
            last_inference: { type: 'integer', minimum: 0 },
            inference_count: { type: 'integer', minimum: 0 },
            execution_count: { type: 'integer', minimum: 0 },
            inference_stats: {
              type: 'object',
              required: ['success', 'fail', 'queue', 'compute_input', 'compute_infer', 'compute_output'],
              additionalProperties: duration,
            },
            batch_stats: {
              type: 'array',
              items: {
                type: 'object',
                required: ['batch_size', 'compute_input', 'compute_infer', 'compute_output'],
                additionalProperties: false,
                properties: { batch_size: { type: 'integer', minimum: 1 }, compute_input: duration, compute_infer: duration, compute_output: duration },
              },
            },
            response_stats: { type: 'object' },
            memory_usage: { type: 'array' },
          },
        },
      },
    },
  },
  repositoryIndex: {
    type: 'array',
    items: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: { name: { type: 'string' }, version: { type: 'string' }, state: { type: 'string' }, reason: { type: 'string' } },
    },
  },
} as const;

export type SchemaName = keyof typeof SCHEMAS;

// strictRequired off: the output's "data unless binary" rule names properties inside anyOf branches.
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const validators = Object.fromEntries(Object.entries(SCHEMAS).map(([k, s]) => [k, ajv.compile(s)])) as Record<SchemaName, ReturnType<typeof ajv.compile>>;

/** Validation errors as text ('' when the document conforms). */
export function schemaErrors(name: SchemaName, doc: unknown): string {
  const v = validators[name];
  return v(doc) ? '' : ajv.errorsText(v.errors, { separator: '; ' });
}
