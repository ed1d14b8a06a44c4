import { usageError, type Command } from '../command';
import { parseArgs } from '../../args/args';
import { buildNativeStub } from '../../backends/pytorch/native-stub';

const command: Command = {
  name: ['build-torch-stub'],
  summary: 'compile the native pytorch stub against the system libtorch (npm install runs it)',
  help: `Usage: inferscope build-torch-stub

Compiles apps/server/native/torch-stub (C++, libtorch's API) into its build folder, unless the binary
there is current. The pytorch backend then runs TorchScript models in it instead of the Python stub
(--torch-stub chooses). Needs the libtorch headers Debian's python3-torch brings and a C++ compiler
(g++, or $CXX).

Exit status: 0 when the stub is built or this host cannot build it (it says why; pytorch models then run
on the Python stub), 1 when the compiler failed.`,
  async run(argv) {
    try {
      const a = parseArgs(argv, []);
      if (a.positional.length) throw new Error(`unexpected argument '${a.positional[0]}'`);
    } catch (err) {
      return usageError((err as Error).message, command.help);
    }
    const started = Date.now();
    const outcome = buildNativeStub();
    if (outcome.built) {
      console.log(outcome.fresh ? `built ${outcome.binary} in ${((Date.now() - started) / 1000).toFixed(0)} s` : `${outcome.binary} is current`);
      return 0;
    }
    if ('unavailable' in outcome) {
      console.log(`native torch stub not built: ${outcome.unavailable}; pytorch models run on the Python stub`);
      return 0;
    }
    console.error(`native torch stub: the compiler failed:\n${outcome.failed}`);
    return 1;
  },
};

export default command;
