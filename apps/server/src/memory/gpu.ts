/**
 * GPU memory as the driver reports it, through nvidia-smi. Absent on CPU hosts: every function then
 * returns undefined and callers fall back to the modelled figure.
 */
import { execFileSync } from 'node:child_process';

/** MiB in use on GPU `index` per nvidia-smi, or undefined when there is no driver/tool. */
export function gpuMemoryUsedBytes(index: number): number | undefined {
  try {
    const out = execFileSync(
      'nvidia-smi',
      ['--query-gpu=memory.used', '--format=csv,noheader,nounits', `--id=${index}`],
      { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const mib = Number(out.trim().split('\n')[0]);
    return Number.isFinite(mib) ? mib * 1024 * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Number of GPUs nvidia-smi lists, 0 when it is missing. */
export function gpuCount(): number {
  try {
    const out = execFileSync('nvidia-smi', ['--query-gpu=index', '--format=csv,noheader'], {
      encoding: 'utf8',
      timeout: 5000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.split('\n').filter((l) => l.trim() !== '').length;
  } catch {
    return 0;
  }
}
