import { usageError, type Command } from '../command';
import { parseArgs } from '../../args/args';
import { DEMO_MODELS, generateRepository } from '../../model-generator/generate';
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { TORCH_MODEL_NAME, generateTorchModel, torchUnavailableReason } from '../../model-generator/torch-models';
import { resolvePython } from '../../backends/stub/plan';

const KNOWN = [...DEMO_MODELS.map((m) => m.name), TORCH_MODEL_NAME];

const command: Command = {
  name: ['generate-models'],
  summary: 'write the demo ONNX models and their config.pbtxt (deterministic, seeded weights)',
  help: `Usage: inferscope generate-models [--out DIR] [--model NAME]...

Writes the demo model repository: ${KNOWN.join(', ')}.
Each model gets DIR/<name>/config.pbtxt and DIR/<name>/<version>/model.onnx. Weights come from a
seeded random generator, so the files are byte-identical on every run and machine.
${TORCH_MODEL_NAME} (model.pt, the same weights as mlp_classifier version 1) is exported with the torch of
$INFERSCOPE_PYTHON or /usr/bin/python3, and skipped with a message when that has no torch; its bytes
differ between runs (torch.jit.save), its outputs do not.

Options:
  --out DIR       repository folder to write into (default: model_repository)
  --model NAME    only this model (repeatable)`,
  async run(argv) {
    let out: string;
    let only: string[];
    try {
      const a = parseArgs(argv, [{ names: ['--out'], key: 'out' }, { names: ['--model'], key: 'model', repeat: true }]);
      if (a.positional.length) throw new Error(`unexpected argument '${a.positional[0]}'`);
      out = a.values.out ?? 'model_repository';
      only = a.lists.model;
    } catch (err) {
      return usageError((err as Error).message, command.help);
    }
    const unknown = only.filter((n) => !KNOWN.includes(n));
    if (unknown.length > 0) {
      console.error(`unknown model: ${unknown.join(', ')} (known: ${KNOWN.join(', ')})`);
      return 2;
    }
    const onnxOnly = only.filter((n) => n !== TORCH_MODEL_NAME);
    const files = only.length === 0 || onnxOnly.length > 0 ? generateRepository(out, onnxOnly) : [];
    if (only.length === 0 || only.includes(TORCH_MODEL_NAME)) {
      const python = resolvePython(undefined);
      const why = torchUnavailableReason(python);
      if (why) console.log(`skipped ${TORCH_MODEL_NAME}: torch is not importable by ${python} (${why}); install it with: apt-get install python3-torch libopenblas0-pthread`);
      else files.push(...generateTorchModel(out, python));
    }
    for (const file of files) {
      console.log(`${relative(process.cwd(), file) || file}  ${statSync(file).size} bytes`);
    }
    return 0;
  },
};

export default command;
