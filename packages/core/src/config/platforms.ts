/**
 * Triton's platforms, backends and default model file names (core's constants.h), and the
 * platform <-> backend pairing rule (GetBackendType / GetBackendTypeFromPlatform).
 */
export const PLATFORM = {
  tensorflowGraphDef: 'tensorflow_graphdef',
  tensorflowSavedModel: 'tensorflow_savedmodel',
  tensorrtPlan: 'tensorrt_plan',
  onnxruntimeOnnx: 'onnxruntime_onnx',
  pytorchLibTorch: 'pytorch_libtorch',
  pytorchLibTorchAlt: 'libtorch',
  pytorchAoti: 'torch_aoti',
  ensemble: 'ensemble',
} as const;

export const BACKEND = {
  tensorflow: 'tensorflow',
  tensorrt: 'tensorrt',
  onnxruntime: 'onnxruntime',
  openvino: 'openvino',
  pytorch: 'pytorch',
  python: 'python',
} as const;

export const MODEL_FILENAME = {
  tensorflowGraphDef: 'model.graphdef',
  tensorflowSavedModel: 'model.savedmodel',
  tensorrtPlan: 'model.plan',
  onnx: 'model.onnx',
  openvino: 'model.xml',
  pytorch: 'model.pt',
  pytorchAoti: 'model.pt2',
  python: 'model.py',
} as const;

/** Platforms Triton knows by name (what `platform:` may say without a backend). */
export const KNOWN_PLATFORMS: readonly string[] = Object.values(PLATFORM);

// Triton's AOTI backend is also named 'pytorch', so both torch platforms pair with that backend here.
type BackendType = 'tensorflow' | 'tensorrt' | 'onnxruntime' | 'pytorch' | 'unknown';

export function backendTypeOfBackend(backend: string | undefined): BackendType {
  switch (backend) {
    case BACKEND.tensorflow: return 'tensorflow';
    case BACKEND.tensorrt: return 'tensorrt';
    case BACKEND.onnxruntime: return 'onnxruntime';
    case BACKEND.pytorch: return 'pytorch';
    default: return 'unknown';
  }
}

export function backendTypeOfPlatform(platform: string | undefined): BackendType {
  switch (platform) {
    case PLATFORM.tensorflowGraphDef:
    case PLATFORM.tensorflowSavedModel: return 'tensorflow';
    case PLATFORM.tensorrtPlan: return 'tensorrt';
    case PLATFORM.onnxruntimeOnnx: return 'onnxruntime';
    case PLATFORM.pytorchLibTorch:
    case PLATFORM.pytorchLibTorchAlt:
    case PLATFORM.pytorchAoti: return 'pytorch';
    default: return 'unknown';
  }
}

/** The platform a beginner most likely meant, for hints ('onnx' -> 'onnxruntime_onnx'). */
export function suggestPlatform(platform: string): string | undefined {
  const p = platform.toLowerCase();
  if (p.includes('onnx')) return PLATFORM.onnxruntimeOnnx;
  if (p.includes('tensorrt') || p === 'trt' || p === 'plan') return PLATFORM.tensorrtPlan;
  if (p.includes('torch')) return PLATFORM.pytorchLibTorch;
  if (p.includes('savedmodel')) return PLATFORM.tensorflowSavedModel;
  if (p.includes('tensorflow') || p.includes('graphdef') || p === 'tf') return PLATFORM.tensorflowGraphDef;
  if (p.includes('ensemble')) return PLATFORM.ensemble;
  return undefined;
}
