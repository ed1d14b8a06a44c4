/**
 * `inferscope config check [--json] [--gpus N] PATH...`: would Triton accept these configs?
 * One line per config/model folder: `PATH: ok` or `PATH: error: MESSAGE (line L, column C)`.
 */
import { usageError, type Command } from '../command';
import { parseConfigArgs } from '../../config-check/args';
import { checkPath, type PathCheck } from '../../config-check/check-path';
import { formatIssue, type ConfigIssue } from '@inferscope/core/config';

const help = `Usage: inferscope config check [--json] [--gpus N] PATH...

Checks model configurations with Triton's rules and Triton's messages.
PATH is one of:
  a config.pbtxt     config-level checks; the model name is the name of its folder
  a model folder     also checks the version folders and the model file in each served version
  a repository       checks every model folder in it (one line each)

Prints one line per config: "PATH: ok" or "PATH: error: MESSAGE (line L, column C)".
The first error is the one Triton would report; --json lists every issue.
Exit status: 0 when all are valid, 1 when any is not, 2 for a usage error.

Options:
  --gpus N   validate as on a host with N GPUs (default: the GPUs of this host, from /dev/nvidiaN)
  --json     print a JSON array: [{ path, ok, error, issues, warnings }]`;

function issueJson(i: ConfigIssue | { message: string; line?: number; column?: number; reason?: string }) {
  const { message, hint, path, line, column } = i as ConfigIssue & { reason?: string };
  // A ConfigError's message already ends with its position; report the bare reason.
  const text = 'reason' in i && i.reason ? i.reason : message;
  return { message: text, ...(hint ? { hint } : {}), ...(path ? { field: path } : {}), ...(line !== undefined ? { line, column } : {}) };
}

export function renderCheckLine(c: PathCheck): string {
  if (!c.error) return `${c.path}: ok`;
  const more = c.issues.length > 1 ? ` [+${c.issues.length - 1} more issue${c.issues.length > 2 ? 's' : ''}]` : '';
  return `${c.path}: error: ${formatIssue(c.error)}${more}`;
}

const command: Command = {
  name: ['config', 'check'],
  summary: 'check config.pbtxt files, model folders or repositories with Triton\'s rules',
  help,
  async run(argv) {
    const args = parseConfigArgs(argv, { command: 'config check', paths: 'some' });
    if ('error' in args) return usageError(args.error, help);
    const checks = args.paths.flatMap((p) => checkPath(p, { gpuCount: args.gpuCount }));
    if (args.json) {
      const out = checks.map((c) => ({
        path: c.path,
        ok: !c.error,
        ...(c.error ? { error: issueJson(c.error) } : {}),
        issues: c.issues.map(issueJson),
        warnings: c.warnings,
      }));
      console.log(JSON.stringify(out, null, 2));
    } else {
      for (const c of checks) {
        console.log(renderCheckLine(c));
        for (const w of c.warnings) console.error(`${c.path}: warning: ${w}`);
      }
    }
    return checks.every((c) => !c.error) ? 0 : 1;
  },
};
export default command;
