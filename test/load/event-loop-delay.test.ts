import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { EventBus } from '@inferscope/core';
import { EventLoopDelay } from '../../apps/server/src/metrics/event-loop.ts';
import { createMetrics } from '../../apps/server/src/metrics/index.ts';
import { checkExposition } from '../metrics/format-check.ts';

/** yields to the loop until the monitor has recorded more than `than` samples (it wakes every 10 ms) */
const samplesAbove = async (loop: EventLoopDelay, than: number) => {
  for (let i = 0; loop.samplesInWindow() <= than; i++) {
    assert.ok(i < 10_000, `the monitor recorded no sample after ${than}`);
    await new Promise((r) => setTimeout(r, 1));
  }
};

test("a stall of the server's event loop shows in inferscope_event_loop_delay_seconds and in the live figures", async () => {
  const loop = new EventLoopDelay();
  const metrics = createMetrics(new EventBus(), { cpu: false, collectors: [() => loop.families()] });
  try {
    // the monitor must be running (a first sample recorded) before the stall, or the stall is its start
    await samplesAbove(loop, 0);
    // block the loop for 60 ms, as a CPU-heavy client on the same thread would
    const until = performance.now() + 60;
    while (performance.now() < until) {
      /* stall */
    }
    await samplesAbove(loop, loop.samplesInWindow()); // its next sample records how late it ran
    loop.closeWindow();
    const f = loop.figures();
    assert.ok(f, "figures once a window closed");
    assert.ok(f.max_ms >= 40, `max ${f.max_ms} ms after a 60 ms stall`);
    assert.ok(f.p99_ms <= f.max_ms && f.p50_ms <= f.p99_ms);
    const text = metrics.render();
    checkExposition(text);
    assert.match(text, /^# TYPE inferscope_event_loop_delay_seconds summary$/m);
    const max = Number(/^inferscope_event_loop_delay_seconds\{quantile="1"\} (\S+)$/m.exec(text)?.[1]);
    assert.ok(Math.abs(max - f.max_ms / 1000) < 1e-9, text);
    assert.match(text, /^inferscope_event_loop_delay_seconds\{quantile="0.99"\} \S+$/m);
    assert.match(text, /^inferscope_event_loop_delay_seconds_count [1-9]\d*$/m);
    assert.match(text, /^inferscope_event_loop_delay_seconds_sum \S+$/m);
    const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    if (!promtool.error) assert.equal(promtool.status, 0, promtool.stdout + promtool.stderr);
  } finally {
    metrics.close();
    loop.close();
  }
});
