/**
 * The experiment chart's picture from its table: every lesson's tables open on the metric their claim
 * is about, every bar fits the scale (the last tick at or past the largest value, ticks in one unit),
 * paired rows (MLP vs CNN, off vs on) share a group with one colour per series, and the row run at the
 * knob's current value is the one marked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runExperiment, type ExperimentId } from '../src/teach/experiments';
import { buildFigure, claimMetric, METRICS, metricValue } from '../src/teach/experiment-figure';

const IDS: ExperimentId[] = ['batching', 'backends', 'concurrency', 'operations'];
const tables = new Map(IDS.map((id) => [id, runExperiment(id, 1)]));

test('every table names its claim metric and every bar fits the scale with a tick at or past it', () => {
  const seen = new Set<string>();
  for (const [, ts] of tables) {
    for (const t of ts) {
      seen.add(claimMetric(t.id));
      for (const m of METRICS) {
        const f = buildFigure(t, m);
        const values = f.groups.flatMap((g) => g.bars.map((b) => b.value));
        assert.equal(values.length, t.rows.length, `${t.id}: one bar per row`);
        assert.ok(Math.max(...values) <= f.max + 1e-9, `${t.id}/${m}: bars within the scale (${Math.max(...values)} > ${f.max})`);
        assert.ok(f.max < 2.5 * Math.max(...values, 1e-9) || Math.max(...values) === 0, `${t.id}/${m}: the data fills the scale (max ${f.max} for ${Math.max(...values)})`);
        assert.equal(f.ticks[0].value, 0, `${t.id}/${m}: scale from 0`);
        assert.ok(f.ticks[f.ticks.length - 1].value >= Math.max(...values), `${t.id}/${m}: a tick at or past the largest bar`);
        if (m === 'p50' || m === 'p99' || m === 'busy') {
          const units = new Set(f.ticks.slice(1).map((x) => x.label.split(' ')[1]));
          assert.equal(units.size, 1, `${t.id}/${m}: one unit on the axis (${[...units]})`);
        }
      }
    }
  }
  assert.ok(seen.has('throughput') && seen.has('batch') && seen.has('p99') && seen.has('busy'));
});

test('the MLP vs CNN table pairs off and on side by side, one colour per series', () => {
  const bound = tables.get('batching')!.find((t) => t.id === 'bound')!;
  const f = buildFigure(bound, 'throughput');
  assert.equal(f.groups.length, 3, 'mlp compute, cnn compute, cnn through the server');
  assert.equal(f.series.length, 2, 'off and on');
  for (const g of f.groups) assert.deepEqual(g.bars.map((b) => b.series), f.series);
  // the claim in the picture: the MLP's "on" bar is far longer than its "off", the CNN's compute pair nearly equal
  const [mlp, cnn] = f.groups;
  assert.ok(mlp.bars[1].value > 3 * mlp.bars[0].value);
  assert.ok(cnn.bars[1].value < 1.3 * cnn.bars[0].value);
});

test('the row run at the knob value is marked, and only it', () => {
  const inst = tables.get('concurrency')!.find((t) => t.id === 'instances')!;
  for (const n of [1, 2, 3, 4]) {
    const marked = buildFigure(inst, 'throughput', n).groups.flatMap((g) => g.bars).filter((b) => b.current);
    assert.deepEqual(marked.map((b) => b.row), [n - 1]);
  }
  assert.equal(buildFigure(inst, 'throughput', 7).groups.flatMap((g) => g.bars).filter((b) => b.current).length, 0);
  const delay = tables.get('batching')!.find((t) => t.id === 'delay')!;
  assert.deepEqual(buildFigure(delay, 'batch', 2000).groups.flatMap((g) => g.bars).filter((b) => b.current).map((b) => b.row), [1]);
  assert.equal(metricValue.batch(delay.rows[1].summary), buildFigure(delay, 'batch').groups[1].bars[0].value);
});
