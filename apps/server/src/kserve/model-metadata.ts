/**
 * KServe v2's model metadata answer (name, versions, platform, inputs and outputs with their shapes as a
 * client sends them), the same for GET /v2/models/<m> and gRPC ModelMetadata.
 */
import { tritonToKServeDatatype, type ModelConfig, type ModelInput, type ModelOutput } from '@inferscope/core/config';

function tensorMetadata(t: ModelInput | ModelOutput, batching: boolean) {
  // Metadata shows the shape the client sends: the config dims (not the reshape), -1 in front for batching.
  const dims = t.dims ?? [];
  return {
    name: t.name ?? '',
    datatype: tritonToKServeDatatype(t.data_type ?? 'TYPE_INVALID') ?? 'INVALID',
    shape: batching ? [-1, ...dims] : [...dims],
  };
}

export function modelMetadata(name: string, versions: string[], config: ModelConfig) {
  const batching = (config.max_batch_size ?? 0) > 0;
  return {
    name,
    versions,
    platform: config.platform ?? config.backend ?? '',
    inputs: (config.input ?? []).map((t) => tensorMetadata(t, batching)),
    outputs: (config.output ?? []).map((t) => tensorMetadata(t, batching)),
  };
}
