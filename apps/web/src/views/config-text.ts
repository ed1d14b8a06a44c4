/**
 * The model config as text for the config drawer, and its validation messages. Uses core's printer and
 * validator (the same code the server and the CLI use), so what the page shows is what a file would hold.
 */
import { formatIssue, printModelConfig, validateModelConfig, type ModelConfig } from '@inferscope/core/config';

export interface ConfigIssueView {
  message: string;
  path?: string;
}

export function configAsPbtxt(config: Record<string, unknown>): string {
  return printModelConfig(config as unknown as ModelConfig);
}

export function validateConfig(config: Record<string, unknown>, folder: string, gpus: number): ConfigIssueView[] {
  return validateModelConfig(config as unknown as ModelConfig, { folderName: folder, gpuCount: gpus }).map((i) => ({ message: formatIssue(i), path: i.path }));
}
