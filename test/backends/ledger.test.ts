import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus, type MemoryEvent } from '@inferscope/core';
import { MemoryBudgetError, MemoryLedger, parseBytes, parseMemoryBudget } from '../../apps/server/src/memory/ledger';

const MIB = 1024 * 1024;
const owner = (instance: string, device = 'cpu') => ({ device, model: 'm', version: '1', instance });

test('reservations count against the budget of their device only', () => {
  const bus = new EventBus();
  const events: MemoryEvent[] = [];
  bus.on((e) => e.type === 'memory' && events.push(e));
  let now = 0;
  const ledger = new MemoryLedger({ budgets: { cpu: 100 * MIB }, bus, now: () => (now += 10) });
  const a = ledger.reserve(owner('a'), 60 * MIB);
  ledger.reserve(owner('g', 'gpu0'), 500 * MIB); // no budget on gpu0
  assert.throws(
    () => ledger.reserve(owner('b'), 50 * MIB),
    (e: Error) =>
      e instanceof MemoryBudgetError &&
      e.message === "loading instance b of model 'm' version 1 needs 50.0 MiB on cpu, only 40.0 MiB of the budget 100.0 MiB is free",
  );
  a.update(20 * MIB, 'measured');
  const b = ledger.reserve(owner('b'), 50 * MIB);
  assert.equal(ledger.used('cpu'), 70 * MIB);
  const cpu = ledger.snapshot().find((d) => d.device === 'cpu')!;
  assert.deepEqual(cpu.entries.map((e) => [e.instance, e.source]), [['a', 'measured'], ['b', 'modelled']]);
  b.release();
  b.release(); // twice is harmless
  a.release();
  assert.equal(ledger.used('cpu'), 0);
  assert.equal(events.at(-1)!.used_bytes, 0);
  assert.ok(events.every((e, i) => i === 0 || e.t > events[i - 1].t));
});

test('budget flags parse with units and devices', () => {
  assert.equal(parseBytes('512MiB'), 512 * MIB);
  assert.equal(parseBytes('2g'), 2048 * MIB);
  assert.equal(parseBytes('1048576'), MIB);
  assert.throws(() => parseBytes('lots'), /'lots' is not a size/);
  assert.deepEqual(parseMemoryBudget('256MiB'), { cpu: 256 * MIB });
  assert.deepEqual(parseMemoryBudget('cpu:1GiB, gpu0:8GiB'), { cpu: 1024 * MIB, gpu0: 8192 * MIB });
  assert.throws(() => parseMemoryBudget('tpu:1GiB'), /unknown device 'tpu'/);
});

test('adding instances is checked against the budget using the running instances as the measure', () => {
  const ledger = new MemoryLedger({ budgets: { cpu: 100 * MIB } });
  ledger.checkAddInstances('m', '1', 5); // nothing loaded yet: nothing to size by
  const a = ledger.reserve(owner('a'), 30 * MIB);
  a.update(25 * MIB, 'measured');
  ledger.checkAddInstances('m', '1', 2); // 50 of 75 free
  assert.throws(
    () => ledger.checkAddInstances('m', '1', 4),
    /^MemoryBudgetError: adding 4 instances of model 'm' version 1 needs 100\.0 MiB on cpu, only 75\.0 MiB of the budget 100\.0 MiB is free$/,
  );
});
