/**
 * The native pytorch stub (apps/server/native/torch-stub): built from its C++ sources against the libtorch
 * that Debian's python3-torch brings (its headers come with it, in libtorch-dev), once, by `npm install`
 * (the postinstall runs `inferscope build-torch-stub`), into apps/server/native/torch-stub/build. A stamp
 * beside the binary records what it was built from; a binary whose sources or torch headers changed since
 * is not used (the Python stub runs the model instead, and the log says to rebuild).
 *
 * Which stub runs a pytorch model (--torch-stub): `auto` (default) the native one when it is built and
 * current, unless the model's torch may be another (--python names an interpreter other than
 * /usr/bin/python3) or it wants a GPU the host has (the stub links no CUDA): else the Python one
 * (pytorch/backend.ts decides); `native` only the native one (the model is UNAVAILABLE without it);
 * `python` only the Python one (apps/server/python/stub_main.py), e.g. for a torch that only another
 * interpreter (--python) has.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StubProgram } from '../stub/program';

export const TORCH_STUB_CHOICES = ['auto', 'native', 'python'] as const;
export type TorchStubChoice = (typeof TORCH_STUB_CHOICES)[number];

/** The stub's sources; its binary and stamp go to <sources>/build (a parameter for the tests). */
export const NATIVE_STUB_SOURCES = fileURLToPath(new URL('../../../native/torch-stub', import.meta.url));
const binaryIn = (sources: string): string => join(sources, 'build', 'torch_stub');
const stampIn = (sources: string): string => join(sources, 'build', 'torch_stub.stamp');
/** Debian's layout: <torch/script.h> under /usr/include, the C++ API's headers under torch/csrc/api/include. */
const TORCH_INCLUDE = '/usr/include/torch/csrc/api/include';
export const TORCH_VERSION_HEADER = join(TORCH_INCLUDE, 'torch/version.h');
const COMPILER = (): string => process.env.CXX || 'g++';
const FLAGS = ['-O2', '-std=c++17', `-I${TORCH_INCLUDE}`, '-ltorch', '-ltorch_cpu', '-lc10'];

export const BUILD_COMMAND = 'npm run build:torch-stub';

/** What the binary is built from: its sources, the flags, and the torch headers (null: no headers here). */
export function buildKey(sources: string): { sources: string; torch: string | null } {
  const h = createHash('sha256');
  for (const f of readdirSync(sources).filter((n) => /\.(cpp|hpp)$/.test(n)).sort()) {
    h.update(f).update('\0').update(readFileSync(join(sources, f))).update('\0');
  }
  h.update(FLAGS.join(' '));
  const torch = existsSync(TORCH_VERSION_HEADER) ? createHash('sha256').update(readFileSync(TORCH_VERSION_HEADER)).digest('hex') : null;
  return { sources: h.digest('hex'), torch };
}

/** The libtorch libraries the binary loads (ldd, at build time): a torch removed since is seen before a spawn fails. */
function torchLibraries(binary: string): string[] {
  try {
    const out = execFileSync('ldd', [binary], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return [...out.matchAll(/=> (\S*\/lib(?:torch|c10)[^\s/]*)/g)].map((m) => m[1]);
  } catch {
    return [];
  }
}

/** The built binary when it is current; otherwise why not (for the log, and for --torch-stub native). */
export function nativeStub(sources = NATIVE_STUB_SOURCES): { binary: string } | { missing: string } {
  const binary = binaryIn(sources);
  if (!existsSync(binary) || !existsSync(stampIn(sources))) return { missing: `the native torch stub is not built (${BUILD_COMMAND})` };
  let stamp: { sources?: string; torch?: string | null; libraries?: string[] };
  try {
    stamp = JSON.parse(readFileSync(stampIn(sources), 'utf8')) as typeof stamp;
  } catch {
    return { missing: `the native torch stub's stamp is unreadable: rebuild it (${BUILD_COMMAND})` };
  }
  const now = buildKey(sources);
  if (stamp.sources !== now.sources) return { missing: `the native torch stub is older than its sources: rebuild it (${BUILD_COMMAND})` };
  // headers gone (libtorch-dev removed) is fine: the binary needs the libraries, not the headers
  if (now.torch !== null && stamp.torch !== now.torch) return { missing: `torch changed since the native torch stub was built: rebuild it (${BUILD_COMMAND})` };
  const gone = (stamp.libraries ?? []).find((lib) => !existsSync(lib));
  if (gone) return { missing: `${gone}, which the native torch stub was built against, is gone (is python3-torch installed?)` };
  return { binary };
}

export function nativeTorchStub(binary: string): StubProgram {
  return { file: binary, args: [], what: `the native torch stub '${binary}'`, missingHint: `rebuild it: ${BUILD_COMMAND}` };
}

export type BuildOutcome = { built: true; binary: string; fresh: boolean } | { built: false; unavailable: string } | { built: false; failed: string };

/**
 * Builds the stub unless it is current. `unavailable`: this host cannot build it (no libtorch headers or
 * no compiler), the Python stub serves; `failed`: the compiler refused the sources (a defect to report).
 */
export function buildNativeStub(sources = NATIVE_STUB_SOURCES): BuildOutcome {
  if (!existsSync(TORCH_VERSION_HEADER)) return { built: false, unavailable: `no libtorch headers at ${TORCH_INCLUDE} (apt-get install python3-torch brings them)` };
  const current = nativeStub(sources);
  if ('binary' in current) return { built: true, binary: current.binary, fresh: false };
  try {
    execFileSync(COMPILER(), ['--version'], { stdio: 'ignore' });
  } catch {
    return { built: false, unavailable: `no C++ compiler '${COMPILER()}' (apt-get install g++, or set CXX)` };
  }
  const binary = binaryIn(sources);
  mkdirSync(dirname(binary), { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  try {
    execFileSync(COMPILER(), [join(sources, 'torch_stub.cpp'), '-o', partial, ...FLAGS], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000 });
  } catch (err) {
    rmSync(partial, { force: true });
    const stderr = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message);
    return { built: false, failed: stderr.trim().split('\n').slice(0, 20).join('\n') };
  }
  // a server starting meanwhile sees either the old pair or the new binary with its stamp written after
  renameSync(partial, binary);
  writeFileSync(stampIn(sources), JSON.stringify({ ...buildKey(sources), libraries: torchLibraries(binary) }));
  return { built: true, binary, fresh: true };
}
