import type { Command } from '../command';
import { DEMO_MODELS, generateRepository } from '../../models-gen/generate';
import { statSync } from 'node:fs';
import { relative } from 'node:path';

const command: Command = {
  name: ['generate-models'],
  summary: 'write the demo ONNX models and their config.pbtxt (deterministic, seeded weights)',
  help: `Usage: inferscope generate-models [--out DIR] [--model NAME]...

Writes the demo model repository: ${DEMO_MODELS.map((m) => m.name).join(', ')}.
Each model gets DIR/<name>/config.pbtxt and DIR/<name>/<version>/model.onnx. Weights come from a
seeded random generator, so the files are byte-identical on every run and machine.

Options:
  --out DIR       repository folder to write into (default: model_repository)
  --model NAME    only this model (repeatable)`,
  async run(argv) {
    let out = 'model_repository';
    const only: string[] = [];
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i];
      const value = argv[i + 1];
      if ((a === '--out' || a === '--model') && (value === undefined || value.startsWith('--'))) {
        console.error(`${a} needs a value`);
        return 2;
      }
      if (a === '--out') out = argv[++i];
      else if (a === '--model') only.push(argv[++i]);
      else {
        console.error(`unknown option: ${a} (see --help)`);
        return 2;
      }
    }
    const unknown = only.filter((n) => !DEMO_MODELS.some((m) => m.name === n));
    if (unknown.length > 0) {
      console.error(`unknown model: ${unknown.join(', ')} (known: ${DEMO_MODELS.map((m) => m.name).join(', ')})`);
      return 2;
    }
    for (const file of generateRepository(out, only)) {
      console.log(`${relative(process.cwd(), file) || file}  ${statSync(file).size} bytes`);
    }
    return 0;
  },
};

export default command;
