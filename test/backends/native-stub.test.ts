// When the server may use the native torch stub: only a binary whose stamp matches its sources (and the
// torch headers, where they are installed) and whose libtorch libraries are still there counts, so an
// edited source or an upgraded or removed torch falls back to the Python stub with a reason instead of
// running a stale binary. --torch-stub takes three values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATIVE_STUB_SOURCES, buildKey, nativeStub } from '../../apps/server/src/backends/pytorch/native-stub';
import { OptionsError, validateServerOptions } from '../../apps/server/src/server-options';

test('the native stub counts only while its stamp matches its sources and torch', () => {
  const dir = mkdtempSync(join(tmpdir(), 'is-native-'));
  try {
    cpSync(NATIVE_STUB_SOURCES, dir, { recursive: true, filter: (src) => !src.includes('/build') });
    assert.match(JSON.stringify(nativeStub(dir)), /not built \(npm run build:torch-stub\)/);
    mkdirSync(join(dir, 'build'));
    writeFileSync(join(dir, 'build', 'torch_stub'), '');
    writeFileSync(join(dir, 'build', 'torch_stub.stamp'), 'not json');
    assert.match(JSON.stringify(nativeStub(dir)), /stamp is unreadable/);
    const key = buildKey(dir);
    writeFileSync(join(dir, 'build', 'torch_stub.stamp'), JSON.stringify(key));
    assert.deepEqual(nativeStub(dir), { binary: join(dir, 'build', 'torch_stub') });
    if (key.torch !== null) {
      writeFileSync(join(dir, 'build', 'torch_stub.stamp'), JSON.stringify({ ...key, torch: 'another torch' }));
      assert.match(JSON.stringify(nativeStub(dir)), /torch changed since the native torch stub was built/);
      writeFileSync(join(dir, 'build', 'torch_stub.stamp'), JSON.stringify(key));
    }
    writeFileSync(join(dir, 'build', 'torch_stub.stamp'), JSON.stringify({ ...key, libraries: [join(dir, 'gone', 'libtorch_cpu.so.1.13')] }));
    assert.match(JSON.stringify(nativeStub(dir)), /libtorch_cpu\.so\.1\.13, which the native torch stub was built against, is gone/);
    writeFileSync(join(dir, 'build', 'torch_stub.stamp'), JSON.stringify(key));
    appendFileSync(join(dir, 'json.hpp'), '\n// edited\n');
    assert.match(JSON.stringify(nativeStub(dir)), /older than its sources: rebuild it/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--torch-stub is auto, native or python', () => {
  assert.equal(validateServerOptions({ modelRepositories: ['m'] }).torchStub, 'auto');
  assert.equal(validateServerOptions({ modelRepositories: ['m'], torchStub: 'python' }).torchStub, 'python');
  assert.throws(() => validateServerOptions({ modelRepositories: ['m'], torchStub: 'fast' as never }), (e: Error) => e instanceof OptionsError && /--torch-stub must be one of auto, native, python, got 'fast'/.test(e.message));
});
