/**
 * The program a stub process runs: the Python interpreter on apps/server/python/stub_main.py (both stub
 * backends), or the native pytorch stub (apps/server/native/torch-stub, pytorch/native-stub.ts). Both
 * speak the frames of protocol.ts on fd 3 and share the claim words on fd 4.
 */
import { fileURLToPath } from 'node:url';

export interface StubProgram {
  file: string;
  args: string[];
  /** how messages name it, e.g. "the Python interpreter '/usr/bin/python3'" */
  what: string;
  /** what to do when `file` does not exist */
  missingHint: string;
}

const STUB_MAIN = fileURLToPath(new URL('../../../python/stub_main.py', import.meta.url));

export function pythonStub(python: string): StubProgram {
  // -u: unbuffered stdout/stderr, so the model's prints reach the log line by line as they happen
  return { file: python, args: ['-u', STUB_MAIN], what: `the Python interpreter '${python}'`, missingHint: 'no such interpreter: set --python or INFERSCOPE_PYTHON' };
}
