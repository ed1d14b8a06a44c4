/**
 * The backend plugin interface: how the model manager turns a model version on disk into something the
 * scheduler can run batches on. A backend loads one model version (checking the config against the
 * model file), and returns an Executor whose startInstance/stopInstance bring instances up and down and
 * whose execute runs one batch on one instance.
 */
import type { Executor, InferPayload, InferResult } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import type { MemoryLedger } from '../memory/ledger';
import type { ServerCalls } from './stub/server-calls';
import type { TorchStubChoice } from './pytorch/native-stub';

export interface ModelLoadContext {
  model: string;
  version: string;
  /** <repository>/<model>/<version> */
  versionDir: string;
  /** the file (or folder) the backend loads, e.g. <versionDir>/model.onnx */
  modelFile: string;
  /** normalised config (auto-completed before normalisation when strict_model_config is off) */
  config: ModelConfig;
  /** GPUs on this host */
  gpuCount: number;
  log(msg: string): void;
  memory: MemoryLedger;
  /** Python interpreter for stub backends (--python); unset = INFERSCOPE_PYTHON, else /usr/bin/python3 */
  python?: string;
  /** which stub runs pytorch models (--torch-stub; pytorch/native-stub.ts); unset = auto */
  torchStub?: TorchStubChoice;
  /** the server, for models that call it while they run (BLS, custom metrics) */
  calls?: ServerCalls;
  /** the largest frame a stub process may send the server (--max-inflight-bytes); unset = none */
  maxStubFrameBytes?: number;
  /** a backend appended to its notes while the model serves (e.g. an instance stopped): show them */
  notesChanged?(): void;
}

export interface LoadedModel {
  executor: Executor<InferPayload, InferResult>;
  /**
   * Things the user should know about how the model runs, e.g. "CUDA execution provider unavailable: ...;
   * running on CPU". Live: backends may append while instances start (the model manager shows the list
   * in the model's state reason and the dashboard).
   */
  notes: string[];
  /** Stops every instance still running and releases their memory. */
  unload(): Promise<void>;
}

export interface Backend {
  /** the config's `backend` value, e.g. 'onnxruntime' */
  name: string;
  /** the config's `platform` values it serves, e.g. ['onnxruntime_onnx'] */
  platforms: string[];
  /** default model file name inside the version folder */
  defaultModelFilename: string;
  load(ctx: ModelLoadContext): Promise<LoadedModel>;
  /**
   * Triton's auto-complete from the model itself (strict_model_config off), for backends that have one
   * beside onnxruntime's signature reader: the python backend runs model.py's auto_complete_config.
   */
  autoComplete?(modelFile: string, config: ModelConfig, opts: { python?: string }): Promise<ModelConfig>;
}

/** A model whose backend is unknown or cannot run here; its message is the model's UNAVAILABLE reason. */
export class BackendUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendUnavailableError';
  }
}
