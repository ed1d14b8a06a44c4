// `inferscope perf` on an ensemble reports its composing models' server figures after its own, as
// perf_analyzer does ("Composing models:", each with its inference and execution counts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { perf } from '../../apps/server/src/cli/commands/perf.ts';
import { startTestServer } from '../support/server.ts';
import { ensembleRepository } from './fixtures.ts';

test('perf on an ensemble: its own server figures, then each composing model\'s', async () => {
  const fx = await ensembleRepository(['scale', 'project', 'negate', 'pipe'], { batching: 'dynamic_batching { max_queue_delay_microseconds: 2000 }' });
  const server = await startTestServer({ modelRepositories: [fx.dir], live: false });
  try {
    const lines: string[] = [];
    const code = await perf(
      ['-m', 'pipe', '-u', server.url, '--shape', '4', '--concurrency-range', '4', '--measurement-interval', '300', '--max-trials', '3'],
      (x) => lines.push(x), () => {},
    );
    const text = lines.join('\n');
    assert.equal(code, 0, text);
    const at = text.indexOf('  Composing models: ');
    assert.ok(at > text.indexOf('  Server: '), text);
    const composing = text.slice(at);
    for (const m of ['scale', 'project', 'negate']) assert.match(composing, new RegExp(`  ${m}, version: 1\\n      Inference count: [1-9]`));
    // each composing model answered every ensemble request of the window once (its inferences = the ensemble's)
    const count = (block: string) => Number(/Inference count: (\d+)/.exec(block)![1]);
    const own = count(text.slice(text.indexOf('  Server: ')));
    const scale = count(composing.slice(composing.indexOf('scale,')));
    // the two statistics reads of a window are a few ms apart: generous bound
    assert.ok(Math.abs(scale - own) <= Math.max(20, own * 0.2), `scale ${scale} vs ensemble ${own}`);
  } finally {
    await server.close();
    await fx.remove();
  }
});
