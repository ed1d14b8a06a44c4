// Public surface of the config.pbtxt engine (pure TypeScript: runs in the server and the browser).
export * from './types';
export * from './datatype';
export { ConfigError, formatIssue, type ConfigIssue } from './errors';
export {
  parseModelConfig, parseModelConfigWithLocations,
  type ParsedModelConfig, type SourceLocations, type SourcePosition,
} from './parser';
export { normalizeModelConfig, SEQUENCE_IDLE_DEFAULT_MICROSECONDS, type NormalizeOptions } from './normalize';
export { validateModelConfig, RULES as VALIDATION_RULES, type ValidateOptions } from './validate/index';
export { configProblems, type ConfigProblem } from './problems';
export { printModelConfig } from './printer';
export { adviseModelConfig } from './advise';
export { validateEnsembleSteps } from './ensemble-steps';
export { modelConfigToJson, type JsonValue } from './json';
export { loadModelConfig, locate, type LoadOptions, type LoadResult } from './load';
export { BACKEND, PLATFORM, MODEL_FILENAME, KNOWN_PLATFORMS } from './platforms';
export { modelConfigFromJson, ConfigJsonError } from './from-json';
export { tokenize, type Token } from './lexer';
export { isDecoupled } from './transaction-policy';
export { configSignatureMismatch, fullConfigShape, shapeText, type ModelSignature, type TensorSignature } from './model-signature';
export { schemaOf, type MessageName } from './schema';
export { FIELD_USE, fieldUseOf, schemaPaths, unservedFields, type FieldUse } from './field-use';
export { readNumberText, parseNumberText, strictNumber, type NumberRule } from './number-text';
export {
  NUMERIC_PARAMETERS, numericParameter, numericParameterProblem,
  EXECUTE_TIMEOUT_KEY, LOAD_TIMEOUT_KEY, FINAL_TIMEOUT_KEY, SEND_STALL_KEY, ACTIVATION_PARAMETER,
} from './numeric-parameters';
