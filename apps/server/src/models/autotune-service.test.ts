/**
 * The server's tuner switched on and off through its control path, against a fake host that applies the
 * patches to a config (no timers waited on: the first step is taken at switch-on, the restore at
 * switch-off). The issue: unticking left [64] and 10 ms live; it must put back what it found and say so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus, type DynamicBatchingPatch } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import { AutotuneService } from './autotune-service';

function host(delayUs: number) {
  const config = {
    name: 'mlp_classifier', max_batch_size: 64,
    dynamic_batching: { preferred_batch_size: [8, 16, 32], max_queue_delay_microseconds: delayUs },
    instance_group: [{ count: 1, kind: 'KIND_CPU' }],
  } as unknown as ModelConfig;
  const applied: DynamicBatchingPatch[] = [];
  const service = new AutotuneService({
    bus: new EventBus(), now: () => 0, log: () => undefined,
    config: () => config,
    apply: async (_m, _v, patch) => {
      applied.push(patch);
      Object.assign(config.dynamic_batching as object, patch);
    },
  });
  return { service, config, applied };
}

test('untick restores the delay the tuner found and the status says what it restored', async () => {
  const h = host(17_000);
  try {
    const on = await h.service.set('mlp_classifier', '2', true, 10);
    assert.equal(on.enabled, true);
    assert.equal(on.status.state, 'measuring');
    // the shipped 17 ms is at or above the 10 ms target: the first step takes it under (never a delay >= target)
    assert.equal(h.config.dynamic_batching?.max_queue_delay_microseconds, 5000);
    assert.deepEqual(h.config.dynamic_batching?.preferred_batch_size, [8, 16, 32], 'preferred sizes are not changed unannounced');
    const off = await h.service.set('mlp_classifier', '2', false);
    assert.equal(off.enabled, false);
    assert.equal(off.status.state, 'restored');
    assert.match(off.text, /restored delay 17 ms, preferred sizes \[8,16,32\]/);
    assert.equal(h.config.dynamic_batching?.max_queue_delay_microseconds, 17_000);
    assert.deepEqual(h.applied.at(-1), { max_queue_delay_microseconds: 17_000 });
    // the statistics and snapshot read the same report
    assert.deepEqual(h.service.status('mlp_classifier', '2'), off);
    assert.equal(h.service.reports()[0].status.state, 'restored');
  } finally {
    h.service.close();
  }
});

test('untick after it changed nothing says so and changes nothing', async () => {
  const h = host(2000);
  try {
    await h.service.set('mlp_classifier', '2', true, 10);
    const off = await h.service.set('mlp_classifier', '2', false);
    assert.equal(off.status.state, 'off');
    assert.equal(h.applied.length, 0);
  } finally {
    h.service.close();
  }
});
