// Cost of one poll of an unchanged repository (what poll mode pays every --repository-poll-secs),
// against a bare concurrent readdir of the same version folders as the baseline, in the same run.
// Run: node --import tsx bench/repository/run.ts [models=200]
import { mkdtemp, mkdir, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '@inferscope/core';
import { ModelManager } from '../../apps/server/src/models/model-manager.ts';
import { fakeRuntime } from '../../test/repository/fakes.ts';

const n = Number(process.argv[2] ?? 200);
const repo = await mkdtemp(join(tmpdir(), 'inferscope-bench-repo-'));
for (let i = 0; i < n; i++) {
  await mkdir(join(repo, `m${i}`, '1'), { recursive: true });
  await writeFile(join(repo, `m${i}`, 'config.pbtxt'), JSON.stringify({ platform: 'onnxruntime_onnx', max_batch_size: 8 }));
  await writeFile(join(repo, `m${i}`, '1', 'model.onnx'), 'x');
}
const m = new ModelManager({ repositories: [repo], controlMode: 'poll', gpuCount: 0, bus: new EventBus(), runtime: fakeRuntime() });
await m.start();

async function time(fn: () => Promise<unknown>, reps = 20): Promise<number> {
  await fn();
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) await fn();
  return (performance.now() - t0) / reps;
}
const bare = await time(async () => {
  await Promise.all((await readdir(repo)).map((d) => readdir(join(repo, d, '1'))));
});
const poll = await time(async () => {
  const diff = await m.poll();
  if (diff.unchanged.length !== n) throw new Error('the repository changed during the bench');
});
console.log('| models | bare readdir (ms) | unchanged poll (ms) | ratio |');
console.log('|---|---|---|---|');
console.log(`| ${n} | ${bare.toFixed(2)} | ${poll.toFixed(2)} | ${(poll / bare).toFixed(1)}x |`);
await m.close();
