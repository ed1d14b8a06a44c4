/** Option parsing shared by `config check` and `config print`: --json, --gpus N / --gpus=N, paths. */
import { hostGpuCount } from './gpu-count';

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
  let json = false;
  let gpus: string | undefined;
  const paths: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json') json = true;
    else if (a === '--gpus') {
      gpus = argv[++i];
      if (gpus === undefined) return { error: '--gpus needs a number' };
    } else if (a.startsWith('--gpus=')) gpus = a.slice('--gpus='.length);
    else if (a === '--') paths.push(...argv.slice(i + 1)), (i = argv.length);
    else if (a.startsWith('-') && a !== '-') return { error: `unknown option ${a}` };
    else paths.push(a);
  }
  let gpuCount = hostGpuCount();
  if (gpus !== undefined) {
    if (!/^\d+$/.test(gpus)) return { error: `--gpus needs a whole number >= 0, got '${gpus}'` };
    gpuCount = Number(gpus);
  }
  if (want?.paths === 'one' && paths.length !== 1) return { error: `${want.command} needs exactly one PATH` };
  if (want?.paths === 'some' && paths.length === 0) return { error: `${want.command} needs at least one PATH` };
  return { json, gpuCount, paths };
}
