/**
 * What the cache and rate-limiter views read (issue 54): a hit is born answered at the door (no queue
 * count moves), a miss adds nothing beyond its request.completed; an instance waits only when the
 * limiter's latest snapshot says so for that model version and instance (a reloaded version included).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RateLimiterSnapshot, SchedulerEvent, StatsMessage } from '@inferscope/core';
import { LiveModel } from '../src/store/live-model';
import { latestLimiter, limitedIdOf, limitedLabel, waitsForResources } from '../src/store/rate-limiter-rows';
import { hitRate } from '../src/views/CacheCard';

const cache = (id: string, t: number, outcome: 'hit' | 'miss'): SchedulerEvent => ({
  type: 'request.cache', model: 'm', version: '1', t, request_id: id, outcome, cache_us: 5, total_us: 40, queue_us: 10, batch_size: 1,
});

test('a cache hit is a finished request answered at the door; a miss is not drawn twice', () => {
  const live = new LiveModel();
  live.apply(cache('r1', 1000, 'hit'));
  live.apply(cache('r2', 2000, 'miss'));
  assert.equal(live.finished.length, 1);
  const r = live.finished.at(0)!;
  assert.deepEqual({ id: r.id, cached: r.cached, phase: r.phase, ok: r.ok, tQueued: r.tQueued, tDone: r.tDone }, { id: 'm:1/r1', cached: true, phase: 'done', ok: true, tQueued: 960, tDone: 1000 });
  assert.equal(live.requests.size, 0);
});

const limiter: RateLimiterSnapshot = {
  mode: 'execution_count',
  resources: [{ scope: 'GLOBAL', name: 'acc', count: 1, held: 1, holders: ['a:1:a_0_0'], waiting: ['b:2~3:b_0_0'] }],
  instances: [
    { id: 'a:1:a_0_0', model: 'a', device: 0, priority: 1, executions: 4, state: 'running' },
    { id: 'b:2~3:b_0_0', model: 'b', device: 0, priority: 2, executions: 1, state: 'waiting' },
  ],
  queue: ['b:2~3:b_0_0'],
};

test('an instance is drawn waiting only where the limiter says that version\'s instance waits', () => {
  assert.equal(waitsForResources(limiter, 'b', '2', 'b_0_0'), true, 'a reloaded version (~3) is still version 2');
  assert.equal(waitsForResources(limiter, 'a', '1', 'a_0_0'), false, 'running is not waiting');
  assert.equal(waitsForResources(limiter, 'b', '2', 'b_0_1'), false);
  assert.equal(waitsForResources(limiter, 'b', '22', 'b_0_0'), false, 'version 22 is not version 2');
  assert.equal(waitsForResources(undefined, 'b', '2', 'b_0_0'), false);
  assert.equal(limitedIdOf('b:2~3:b_0_0', 'b', '2', '0_0'), false, 'the instance name is whole, not a suffix');
  assert.equal(limitedLabel('b:2~3:b_0_0'), 'b v2~3 · b_0_0');
});

test('the views read the latest stats message\'s limiter; a hit rate of no lookups is none, not 0%', () => {
  const live = new LiveModel();
  assert.equal(latestLimiter(live), undefined);
  const stats: StatsMessage = { t: 5, wall_ms: 0, models: [], rate_limiter: limiter };
  live.applyStats(stats);
  assert.equal(latestLimiter(live), limiter);
  assert.equal(hitRate({ hits: 0, misses: 0 }), undefined);
  assert.equal(hitRate({ hits: 3, misses: 1 }), 0.75);
});
