/**
 * `inferscope config print [--json] [--gpus N] PATH`: the config as Triton serves it (defaults filled),
 * as config.pbtxt text or as the JSON of Triton's GET /v2/models/{m}/config.
 */
import { usageError, type Command } from '../command';
import { parseConfigArgs } from '../../config-check/args';
import { checkPath } from '../../config-check/check-path';
import { formatIssue, modelConfigToJson, printModelConfig } from '@inferscope/core/config';

const help = `Usage: inferscope config print [--json] [--gpus N] PATH

Prints the normalised configuration: what Triton fills in (name, platform/backend, version policy,
instance groups, preferred batch sizes ...) for a config.pbtxt or a model folder.
Problems go to stderr; the exit status is 1 when the config is not valid (it is still printed when it
could be read), 2 for a usage error.

Options:
  --gpus N   normalise as on a host with N GPUs (default: the GPUs of this host)
  --json     print JSON as Triton's GET /v2/models/{m}/config does, instead of config.pbtxt text`;

const command: Command = {
  name: ['config', 'print'],
  summary: 'print a config as Triton serves it (defaults filled), as pbtxt or JSON',
  help,
  async run(argv) {
    const args = parseConfigArgs(argv, { command: 'config print', paths: 'one' });
    if ('error' in args) return usageError(args.error, help);
    const checks = checkPath(args.paths[0]!, { gpuCount: args.gpuCount });
    if (checks.length !== 1) {
      console.error(`${args.paths[0]} is a repository; give one model folder or config.pbtxt`);
      return 2;
    }
    const c = checks[0]!;
    if (c.config) {
      process.stdout.write(args.json ? JSON.stringify(modelConfigToJson(c.config), null, 2) + '\n' : printModelConfig(c.config));
    }
    for (const issue of c.issues.length ? c.issues : c.error ? [c.error] : []) console.error(`${c.path}: error: ${formatIssue(issue)}`);
    return c.error ? 1 : 0;
  },
};
export default command;
