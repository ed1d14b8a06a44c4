// The "a conversation keeps its seat" lesson (teach/seats-run.ts, SeatsDemo.tsx): core's simulator with the
// server's sequence batcher, two slots, eight conversations, conversation 1 abandoned. Each id keeps one
// slot, the quiet seat costs the backlog until the idle timeout, direct pads it with null requests and
// oldest does not; the verdict is computed from the rows (claims.ts 'seats').
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claimHolds } from '../src/teach/claims';
import { IDLE_CHOICES_US, runSeats, seatsFigures, SEATS_TRAFFIC, simulateSeats, STRATEGIES } from '../src/teach/seats-run';
import { SEATS_DEMO_EN, SEATS_DEMO_ZH } from '../src/i18n/lesson-seats';
import { LESSONS, lessonById } from '../src/teach/lessons';
import { LESSONS_EN } from '../src/i18n/lessons-en';
import { LESSONS_ZH } from '../src/i18n/lessons-zh';

const rows = STRATEGIES.flatMap((s) => IDLE_CHOICES_US.map((i) => runSeats(s, i)));

test('the lesson is registered (13th, state view, its own knob) with text in both languages', () => {
  const l = lessonById('seats')!;
  assert.equal(l.knob, 'seats');
  assert.equal(l.chapter, 13);
  assert.ok(LESSONS.includes(l));
  assert.match(LESSONS_EN.seats.title, /keeps its seat/);
  assert.match(LESSONS_ZH.seats.title, /座位/);
});

test('every run answers every conversation, and each id holds one slot only', () => {
  for (const r of rows) {
    assert.equal(r.answered, r.sent, `${r.strategy}/${r.idleUs}: every request answered`);
    assert.equal(r.sent, 32);
    const seated = new Map<string, string>();
    for (const s of r.slots) for (const h of s.holds) {
      assert.ok(!seated.has(h.id) || seated.get(h.id) === s.name, `${r.strategy}/${r.idleUs}: ${h.id} in two slots`);
      seated.set(h.id, s.name);
      assert.ok(h.to >= h.from);
    }
    assert.equal(seated.size, SEATS_TRAFFIC.count, 'all eight conversations got a seat');
    assert.equal(r.slots.length, 2);
    // two slots, eight conversations: six waited (they STARTed while both slots were held)
    assert.equal(r.backlog.length, 6);
  }
});

test('the quiet conversation keeps its seat until the idle timeout, and a longer timeout makes the backlog wait longer', () => {
  for (const s of STRATEGIES) {
    const [short, , long] = IDLE_CHOICES_US.map((i) => runSeats(s, i));
    for (const r of [short!, long!]) assert.ok(Math.abs(r.idleHeldUs - r.idleUs) <= 1000, `${s}: held ${r.idleHeldUs} for timeout ${r.idleUs}`);
    assert.ok(long!.backlogWaitUs > short!.backlogWaitUs * 1.2, `${s}: ${long!.backlogWaitUs} vs ${short!.backlogWaitUs}`);
    assert.ok(long!.endUs > short!.endUs);
  }
});

test('direct pads the quiet slot with null requests; oldest pads nothing', () => {
  for (const i of IDLE_CHOICES_US) {
    assert.ok(runSeats('direct', i).nulls > 0);
    assert.equal(runSeats('oldest', i).nulls, 0);
  }
});

test('the verdict comes from the rows: the claim holds on these runs, and the plain account when rows do not bear it out', () => {
  for (const s of STRATEGIES) for (const i of IDLE_CHOICES_US) {
    const f = seatsFigures(rows, s, i);
    assert.ok(claimHolds('seats', f.figures), `${s}/${i}`);
    assert.equal(f.now.strategy, s);
    assert.equal(f.now.idleUs, i);
  }
  // rows where the longest timeout costs nothing and oldest pads too: the claim fails, and the text says so
  const flat = rows.map((r) => ({ ...r, backlogWaitUs: 1000, nulls: 3 }));
  const f = seatsFigures(flat, 'direct', IDLE_CHOICES_US[0]!);
  assert.equal(claimHolds('seats', f.figures), false);
  const v = { idle: '5 ms', strategy: 'direct', held: '5 ms', wait: '1 ms', waitShort: '1 ms', waitLong: '1 ms', short: '5 ms', nullsDirect: 3, nullsOldest: 3 };
  assert.match(SEATS_DEMO_EN.verdict(v, false), /do not show/);
  assert.match(SEATS_DEMO_ZH.verdict(v, false), /没有显示/);
  assert.match(SEATS_DEMO_EN.verdict(v, true), /kept its seat 5 ms after its last request; the backlog waited 1 ms/);
});

test('deterministic on the virtual clock: two fresh runs give the same picture and figures', () => {
  for (const s of STRATEGIES) assert.deepEqual(simulateSeats(s, IDLE_CHOICES_US[1]!), simulateSeats(s, IDLE_CHOICES_US[1]!));
});
