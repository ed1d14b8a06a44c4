// A stub's execute timeout (parameter execute_timeout_ms) longer than a host timer holds: the clock must
// not fire at once (Node fires a setTimeout past 2^31-1 ms after 1 ms), killing the stub on every batch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExecuteDeadline } from '../../apps/server/src/backends/stub/execute-deadline';

test('an execute timeout of weeks does not expire at once; a short one still does', async () => {
  const expired: number[] = [];
  const far = new ExecuteDeadline(30 * 24 * 3600 * 1000, (id) => expired.push(id));
  far.running(1);
  const near = new ExecuteDeadline(5, (id) => expired.push(id));
  near.running(2);
  // the near deadline's expiry is the event waited for, so no wall-clock bound decides the test
  while (!expired.includes(2)) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 20));
  far.stop();
  assert.deepEqual(expired, [2]);
});
