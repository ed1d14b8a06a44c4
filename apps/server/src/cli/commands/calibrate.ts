/**
 * `inferscope calibrate`: measures how long each bundled model's batches take on this machine and writes
 * the table the simulator and teaching mode use (packages/core/src/sim/calibrations/<model>.json): per batch
 * size, the spread, interruptions, the table with two in flight and the cost after idle. The host's own
 * figures (timers, stalls, spinning, cores) are the fidelity bench's: `npx tsx bench/calibration/calibrate.ts`.
 *
 * Method: the model is loaded by its real backend (onnxruntime: one worker thread, one session, the
 * config's intra-op threads) with one instance; batches of 1..64 samples are sent one after the other
 * through the executor, exactly as the scheduler sends them, and the median wall time per batch size is
 * recorded. So a table entry is what the server reports as compute time for that batch (hand-off to the
 * worker included), measured alone: contention between instances is the simulator's CpuHost's job.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from '../command';
import { usageError } from '../command';
import { numberArg, parseArgs } from '../../args/args';
import { CALIBRATION_SIZES as SIZES } from '../../calibration/measure-batches';
import { calibrateModel } from '../../calibration/calibrate-model';

const DEFAULT_OUT = fileURLToPath(new URL('../../../../../packages/core/src/sim/calibrations/', import.meta.url));
const BUNDLED = ['mlp_classifier', 'cnn_classifier', 'text_encoder', 'mlp_classifier_torch'];

const help = `Usage: inferscope calibrate [--model-repository DIR] [--model NAME]... [--out DIR] [--seq-len N] [--min-ms MS] [--rounds N]

Runs each model (default: ${BUNDLED.join(', ')}) on its real backend with one instance at batch sizes
${SIZES.join(', ')} and writes the median time per batch to DIR/<model>.json (default:
packages/core/src/sim/calibrations), the table \`simulate\` and teaching mode use.

Options:
  --model-repository DIR  repository to read the models from (default: model_repository)
  --model NAME            calibrate only this model (repeatable)
  --out DIR               where to write the tables
  --seq-len N             length used for variable dimensions (-1), e.g. text_encoder's tokens (default 16)
  --min-ms MS             measure each batch size for at least this long (default 300)
  --rounds N              measure all sizes N times over and fit them together (default 3: on a shared
                          machine a burst of other work then spoils one round, not the median)`;

const command: Command = {
  name: ['calibrate'],
  summary: 'measure the bundled models\' batch times on this machine and write the simulator\'s cost tables',
  help,
  async run(argv) {
    let repo: string, out: string, seqLen: number, minMs: number, rounds: number, only: string[];
    try {
      const a = parseArgs(argv, [
        { names: ['--model-repository'], key: 'repo' }, { names: ['--model'], key: 'model', repeat: true },
        { names: ['--out'], key: 'out' }, { names: ['--seq-len'], key: 'seqLen' }, { names: ['--min-ms'], key: 'minMs' },
        { names: ['--rounds'], key: 'rounds' },
      ]);
      if (a.positional.length) throw new Error(`unexpected argument '${a.positional[0]}'`);
      repo = a.values.repo ?? 'model_repository';
      out = a.values.out ?? DEFAULT_OUT;
      only = a.lists.model;
      seqLen = numberArg(a.values.seqLen, '--seq-len', 16, { integer: true, min: 1 });
      minMs = numberArg(a.values.minMs, '--min-ms', 300, { integer: true, min: 1 });
      rounds = numberArg(a.values.rounds, '--rounds', 3, { integer: true, min: 1 });
    } catch (err) {
      return usageError((err as Error).message, help);
    }
    mkdirSync(out, { recursive: true });
    for (const name of only.length ? only : BUNDLED) {
      try {
        const cal = await calibrateModel(repo, name, { seqLen, minMs, rounds, log: (line) => console.error(line) });
        const file = join(out, `${name}.json`);
        writeFileSync(file, JSON.stringify(cal, null, 2) + '\n');
        console.log(`${file}: fixed ${cal.fit.fixed_us} µs + ${cal.fit.per_item_us} µs per sample (batch 1 ${cal.table_us['1']} µs, batch 64 ${cal.table_us['64']} µs)`);
      } catch (err) {
        console.error(`calibrate: ${name}: ${(err as Error).message}`);
        return 1;
      }
    }
    return 0;
  },
};

export default command;
