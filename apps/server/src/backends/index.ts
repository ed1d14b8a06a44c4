// What the model manager and the server use from the backends.
export { getBackend, listBackends, registerBackend } from './registry';
export { BackendUnavailableError, type Backend, type LoadedModel, type ModelLoadContext } from './types';
export { autoCompleteConfig, autoCompleteFromSignature, checkConfigAgainstModel, DEFAULT_MAX_BATCH_SIZE } from './onnxruntime/autocomplete';
export { readOnnxSignature, type OnnxSignature } from './onnxruntime/onnx-signature';
export { OrtExecutor } from './onnxruntime/executor';
