// Process RSS growth vs the memory ledger for N CNN instances (the figure behind memory/estimate.ts).
// node --import tsx bench/memory/memexp.mts 24
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, tempRepository } from '../../test/support/server.ts';
const n = Number(process.argv[2] ?? 16);
const repo = await tempRepository(['cnn_classifier'], 'memexp-');
const p = join(repo.dir, 'cnn_classifier/config.pbtxt');
await writeFile(p, (await readFile(p, 'utf8')).replace(/count: \d+/, `count: ${n}`));
const rss0 = process.memoryUsage().rss;
const s = await startTestServer({ modelRepositories: [repo.dir], gpuCount: 0 });
const rss1 = process.memoryUsage().rss;
const snap = s.built.memory.snapshot();
console.log(JSON.stringify({ n, rssGrowthMiB: (rss1 - rss0) / 1048576, ledgerMiB: snap.map((d) => d.used_bytes / 1048576), perEntry: snap[0]?.entries.slice(0, 3).map((e) => [e.bytes / 1048576, e.source]) }));
await s.close(); await repo.remove();
