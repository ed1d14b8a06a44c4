import { test } from 'node:test';
import { connect } from 'node:net';
import { startTestServer, tempRepository } from '../support/server.ts';
import { writeFloodModel } from './stream-fixtures.ts';
test('m', { timeout: 300_000 }, async () => {
  const repo = await tempRepository([]);
  writeFloodModel(repo.dir, 'flood');
  const server = await startTestServer({ modelRepositories: [repo.dir], live: false, gpuCount: 0 });
  for (let k = 0; k < 3; k++) {
    const t0 = Date.now();
    const text = JSON.stringify({ COUNT: 5000, SIZE: 8 });
    const socket = connect(server.port, '127.0.0.1');
    socket.write(`POST /v2/models/flood/generate_stream HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${text.length}\r\nconnection: close\r\n\r\n${text}`);
    let n = 0;
    await new Promise<void>((r) => { socket.on('data', (c: Buffer) => { n += c.length; }); socket.on('end', () => r()); });
    console.log('5000 small responses ms', Date.now() - t0, 'bytes', n);
  }
  await server.close(); await repo.remove();
});
