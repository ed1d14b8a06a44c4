/**
 * torch run directly in one Python process (direct_torch.py) at given batch sizes, as rows shaped like
 * the serve bench's direct onnxruntime rows, so directThroughputForMix applies to both. `DirectTorch`
 * keeps one process loaded across measurements (rounds interleaved with the server's cells).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { DirectOrtRow } from '../serve/direct-ort';

export const TORCH_MODEL = fileURLToPath(new URL('../../model_repository/mlp_classifier_torch/1/model.pt', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./direct_torch.py', import.meta.url));

export function measureDirectTorch(opts: { batchSizes: number[]; durationMs?: number; python?: string; modelFile?: string; threads?: number }): DirectOrtRow[] {
  const out = execFileSync(
    opts.python ?? '/usr/bin/python3',
    [SCRIPT, opts.modelFile ?? TORCH_MODEL, opts.batchSizes.join(','), String(opts.durationMs ?? 1500), String(opts.threads ?? 1)],
    { encoding: 'utf8', maxBuffer: 1 << 20, env: { ...process.env, OPENBLAS_NUM_THREADS: String(opts.threads ?? 1), OMP_NUM_THREADS: String(opts.threads ?? 1) } },
  );
  return JSON.parse(out) as DirectOrtRow[];
}

export class DirectTorch {
  private readonly child: ChildProcess;
  private readonly lines: Interface;
  private readonly waiting: ((line: string) => void)[] = [];
  readonly ready: Promise<void>;

  constructor(python = '/usr/bin/python3', modelFile = TORCH_MODEL) {
    // the same BLAS threading the pytorch backend gives its stubs (one thread)
    this.child = spawn(python, [SCRIPT, modelFile, 'serve', '1'], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1' } });
    this.lines = createInterface({ input: this.child.stdout! });
    this.lines.on('line', (l) => this.waiting.shift()?.(l));
    this.ready = new Promise((resolve) => this.waiting.push(() => resolve()));
  }

  measure(batchSizes: number[], durationMs: number): Promise<DirectOrtRow[]> {
    return new Promise((resolve) => {
      this.waiting.push((l) => resolve(JSON.parse(l) as DirectOrtRow[]));
      this.child.stdin!.write(`${batchSizes.join(',')} ${durationMs}\n`);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  close(): void {
    this.child.stdin!.end();
  }
}
