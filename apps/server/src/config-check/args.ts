/** Options of `config check` and `config print` (--json, --gpus N / --gpus=N, paths), read by util.parseArgs. */
import { hostGpuCount } from './gpu-count';
import { parseArgs } from '../args/args';

export interface ConfigArgs {
  json: boolean;
  gpuCount: number;
  paths: string[];
}

/** How many PATHs a command takes; the error names the command (`config print needs exactly one PATH`). */
export interface PathCount {
  command: string;
  paths: 'one' | 'some';
}

export function parseConfigArgs(argv: readonly string[], want?: PathCount): ConfigArgs | { error: string } {
  let parsed;
  try {
    parsed = parseArgs([...argv], [{ names: ['--json'], key: 'json', flag: true }, { names: ['--gpus'], key: 'gpus' }]);
  } catch (err) {
    return { error: (err as Error).message };
  }
  const paths = parsed.positional;
  const gpus = parsed.values.gpus;
  let gpuCount = hostGpuCount();
  if (gpus !== undefined) {
    if (!/^\d+$/.test(gpus)) return { error: `--gpus needs a whole number >= 0, got '${gpus}'` };
    gpuCount = Number(gpus);
  }
  if (want?.paths === 'one' && paths.length !== 1) return { error: `${want.command} needs exactly one PATH` };
  if (want?.paths === 'some' && paths.length === 0) return { error: `${want.command} needs at least one PATH` };
  return { json: parsed.flags.has('json'), gpuCount, paths };
}
