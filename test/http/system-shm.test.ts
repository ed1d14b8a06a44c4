/**
 * System shared memory registry as tritonclient's register/unregister/status calls use it, on a real
 * POSIX shared-memory object written by a second process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, symlinkSync } from 'node:fs';
import { startTestServer } from '../support/server.ts';

const KEY = `/inferscope_test_${process.pid}`;
const PATH = `/dev/shm${KEY}`;

test('register, status, read/write bounds and unregister on a /dev/shm object', { skip: existsSync('/dev/shm') ? false : 'no /dev/shm' }, async () => {
  // A second process creates the object and writes 16 float32s (0..15), as a client would.
  execFileSync(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(PATH)}, Buffer.from(new Float32Array([...Array(16).keys()]).buffer))`]);
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [] });
  const app = server.built.app;
  const post = (url: string, payload?: object) => app.inject({ method: 'POST', url, payload: payload ?? {} });
  try {
    const reg = await post('/v2/systemsharedmemory/region/in0/register', { key: KEY, offset: 16, byte_size: 32 });
    assert.equal(reg.statusCode, 200, reg.body);
    assert.deepEqual((await app.inject({ url: '/v2/systemsharedmemory/status' })).json(), [{ name: 'in0', key: KEY, offset: 16, byte_size: 32 }]);
    // window starts at byte 16 = element 4
    assert.deepEqual([...new Float32Array(new Uint8Array(server.built.shm.read('in0', 0, 8)).buffer)], [4, 5]);
    assert.throws(() => server.built.shm.read('in0', 30, 8), /Invalid offset \+ byte size/);
    server.built.shm.write('in0', 0, new Uint8Array(new Float32Array([42]).buffer), 4);
    assert.deepEqual([...new Float32Array(new Uint8Array(server.built.shm.read('in0', 0, 4)).buffer)], [42]);
    assert.equal((await post('/v2/systemsharedmemory/region/in0/register', { key: KEY, byte_size: 4 })).json().error, "shared memory region 'in0' already in manager");
    for (const [body, msg] of [
      [{ byte_size: 4 }, /no 'key' field/],
      [{ key: KEY }, /no 'byte_size' field/],
      [{ key: '/../../etc/passwd', byte_size: 4 }, /Unable to open shared memory region/],
      [{ key: KEY, offset: 60, byte_size: 8 }, /exceeds the object's 64 bytes/],
      [{ key: KEY, byte_size: -1 }, /unsigned integer/],
    ] as const) {
      const r = await post('/v2/systemsharedmemory/region/bad/register', body);
      assert.equal(r.statusCode, 400, JSON.stringify(body));
      assert.match(r.json().error, msg);
    }
    symlinkSync('/etc/hostname', `${PATH}_link`);
    const link = await post('/v2/systemsharedmemory/region/l/register', { key: `${KEY}_link`, byte_size: 1 });
    assert.equal(link.statusCode, 400, 'a symlink in /dev/shm is refused');
    assert.equal((await app.inject({ url: '/v2/systemsharedmemory/region/nope/status' })).statusCode, 400);
    assert.equal((await post('/v2/systemsharedmemory/region/in0/unregister')).statusCode, 200);
    assert.deepEqual((await app.inject({ url: '/v2/systemsharedmemory/status' })).json(), []);
    assert.match((await post('/v2/cudasharedmemory/region/g/register', { raw_handle: { b64: '' }, byte_size: 4, device_id: 0 })).json().error, /GPUs not supported/);
  } finally {
    await server.close();
    rmSync(PATH, { force: true });
    rmSync(`${PATH}_link`, { force: true });
  }
});
