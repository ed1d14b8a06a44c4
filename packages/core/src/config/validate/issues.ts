/**
 * Collects validation issues. Each rule reports Triton's message (so it can be searched) and, where a
 * beginner's mistake is likely, a hint; `path` names the field so a caller holding source locations can
 * point at the line.
 */
import type { ConfigIssue } from '../errors';
import type { ModelConfig } from '../types';

export class IssueList {
  readonly issues: ConfigIssue[] = [];

  add(message: string, path?: string, hint?: string): void {
    const issue: ConfigIssue = { message };
    if (hint) issue.hint = hint;
    if (path) issue.path = path;
    this.issues.push(issue);
  }

  get count(): number {
    return this.issues.length;
  }
}

export interface ValidateOptions {
  /** the folder the config.pbtxt lives in: must equal the model name */
  folderName?: string;
  /** GPUs on the host the config is validated for (ids 0..gpuCount-1) */
  gpuCount: number;
  /** Triton's minimum CUDA compute capability, only quoted in messages (default 6.0) */
  minComputeCapability?: number;
}

/** A rule: looks at the (normalised) config and adds what it finds. */
export type Rule = (config: ModelConfig, issues: IssueList, opts: ValidateOptions) => void;

export const nameOf = (config: ModelConfig) => config.name ?? '';
