/** The tuner's status line in Chinese is Chinese: typed fields (limit, what was restored), not core's English words. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setLanguage } from '../src/i18n/strings';
import type { AutotuneReport } from '@inferscope/core';
import { autotuneStatusLine } from '../src/charts/autotune-marks';

test('not met and restored read in the page language', () => {
  const notMet: AutotuneReport = { enabled: true, target_us: 3000, text: '', status: { state: 'not_met', target_us: 3000, delay_us: 500, best_p99_us: 40_000, limit: 'compute', advice: 'limited by compute: add an instance or raise the target' } };
  const restored: AutotuneReport = { enabled: false, target_us: 3000, text: '', status: { state: 'restored', target_us: 3000, text: 'restored delay 17 ms, preferred sizes [8,16,32]', restored: { max_queue_delay_microseconds: 17_000, preferred_batch_size: [8, 16, 32], instances_removed: 1 } } };
  setLanguage('zh');
  try {
    for (const report of [notMet, restored]) {
      const line = autotuneStatusLine(report);
      assert.deepEqual(line.match(/[A-Za-z]{3,}/g) ?? [], [], line);
    }
    assert.match(autotuneStatusLine(restored), /\[8,16,32\].*1 个实例/);
  } finally {
    setLanguage('en');
  }
  assert.match(autotuneStatusLine(notMet), /limited by compute: add an instance or raise the target/);
});
