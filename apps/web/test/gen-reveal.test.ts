// Lessons 15-17's pictures follow the stage header's playback (teach/gen-reveal.ts, GenDemoParts.tsx
// useGenReveal): a run's steps are shown once they have ended by the header's simulated time. Driven here
// through the real playback (teach/playback.ts, its frames fed by hand instead of the browser's
// requestAnimationFrame): play moves the picture, pause freezes it, step shows exactly one more step,
// restart and the scrubber move it back; lesson 16 opens on its first preemption.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// the frame loop asks for animation frames: the test hands them out itself, at the wall times it picks
let pending: ((ms: number) => void) | null = null;
(globalThis as { requestAnimationFrame?: (f: (ms: number) => void) => number }).requestAnimationFrame = (f) => {
  pending = f;
  return 1;
};
/** One animation frame `afterMs` of wall time after now. */
const frame = (afterMs: number) => {
  const f = pending;
  pending = null;
  f?.(performance.now() + afterMs);
};

const { playback, playbackStore } = await import('../src/teach/playback');
const { lessonById } = await import('../src/teach/lessons');
const { revealRun, stepEnds, stepsShownAt, nextMarkAfter } = await import('../src/teach/gen-reveal');
const { runRebuild } = await import('../src/teach/rebuild-run');
const { KV_OPENING, openingStep, runKv } = await import('../src/teach/kv-limit-run');
const { blockMapShown, BASE_KNOBS } = await import('../src/teach/gen-run');

test('the mapping: a step is shown once it has ended by the time; the picture keeps the whole run\'s width', () => {
  const run = runRebuild('continuous');
  const ends = stepEnds(run);
  assert.equal(ends.length, run.steps);
  for (let i = 1; i < ends.length; i++) assert.ok(ends[i] > ends[i - 1], `step ${i + 1} ends after step ${i}`);
  assert.equal(stepsShownAt(ends, 0), 0);
  assert.equal(stepsShownAt(ends, ends[0] - 1), 0);
  assert.equal(stepsShownAt(ends, ends[0]), 1);
  assert.equal(stepsShownAt(ends, ends[41]), 42);
  assert.equal(stepsShownAt(ends, (ends[41] + ends[42]) / 2), 42);
  assert.equal(stepsShownAt(ends, Infinity), run.steps);
  assert.equal(nextMarkAfter(ends, ends[41]), ends[42]);
  assert.equal(nextMarkAfter(ends, ends.at(-1)!), undefined);

  const none = revealRun(run, ends, 0);
  assert.deepEqual([none.step, none.cells.length, none.atUs, none.whole], [0, 0, 0, false]);
  const part = revealRun(run, ends, 42);
  assert.ok(part.cells.length > 0 && part.cells.length < run.cells.length);
  assert.ok(part.cells.every((c) => c.step <= 42));
  assert.equal(part.cells.length, run.cells.filter((c) => c.step <= 42).length);
  assert.equal(part.atUs, ends[41]);
  assert.deepEqual(part.window, { from: 1, to: run.steps }, 'the whole run\'s steps: the picture fills from the left');
  const all = revealRun(run, ends, run.steps);
  assert.ok(all.whole);
  assert.equal(all.cells, run.cells);
  assert.equal(all.spanUs, ends.at(-1));
});

test('through the playback: the lesson opens on a run already played; play moves it, pause keeps it, step shows one more step, restart and the scrubber go back', async () => {
  const run = runRebuild('static');
  const ends = stepEnds(run);
  const shown = () => revealRun(run, ends, stepsShownAt(ends, playbackStore.getState().t));
  await playback.load(lessonById('rebuild')!, 1);
  playback.setStepMarks(ends); // what the demo's hook does while it is on the stage
  try {
    const opened = shown();
    assert.ok(opened.step > 0 && opened.cells.length > 0, `the picture opens on ${opened.step} steps, not empty`);

    playback.seek(0); // restart
    assert.equal(shown().step, 0);
    assert.equal(shown().cells.length, 0);

    playback.play();
    frame(0);
    frame(50); // 50 ms of watching at 100 µs per ms: 5 ms of the run
    frame(50);
    const playing = shown().step;
    assert.ok(playing > 0 && playing < run.steps, `playing shows ${playing} steps`);

    playback.pause();
    const t = playbackStore.getState().t;
    frame(100);
    frame(100);
    assert.equal(playbackStore.getState().t, t, 'paused: the time stands');
    assert.equal(shown().step, playing, 'paused: the picture stands');

    for (let i = 1; i <= 3; i++) {
      playback.step();
      assert.equal(shown().step, playing + i, `step ${i}: one more step of the run`);
      assert.equal(playbackStore.getState().t, ends[playing + i - 1], 'the time is that step\'s end');
    }
    assert.equal(playbackStore.getState().playing, false);

    assert.equal(playbackStore.getState().pictureEndUs, ends.at(-1), 'the header\'s timeline spans the picture\'s run');
    playback.seek(ends[9]); // the scrubber, back
    assert.equal(shown().step, 10);
    playback.seek(0);
    assert.equal(shown().step, 0, 'restart: back to the start');
  } finally {
    playback.setStepMarks(null);
    playback.dispose();
  }
  assert.equal(playbackStore.getState().pictureEndUs, undefined, 'off the stage, the timeline spans the engine\'s run again');
});

test('lesson 16 opens on its run\'s first preemption; before the first step its block map is the whole budget free', async () => {
  const run = runKv([KV_OPENING.policy, KV_OPENING.blocks]);
  const ends = stepEnds(run);
  await playback.load(lessonById('kvlimit')!, 1);
  try {
    const step = stepsShownAt(ends, playbackStore.getState().t);
    assert.equal(step, openingStep(run));
    assert.ok(run.events.some((e) => e.type === 'seq_preempted' && e.step === step), 'a sequence is preempted at the opening step');
    const budget = { totalBlocks: KV_OPENING.blocks, blockTokens: BASE_KNOBS.blockTokens, policy: KV_OPENING.policy };
    const map = blockMapShown(run.events, budget, step)!;
    assert.ok(map.usage.usedBlocks > 0);
    const empty = blockMapShown(run.events, budget, 0)!;
    assert.deepEqual([empty.usage.usedBlocks, empty.usage.totalBlocks, empty.blocks.length], [0, KV_OPENING.blocks, KV_OPENING.blocks]);
    // a link's time wins over the lesson's opening
    await playback.load(lessonById('kvlimit')!, 1, {}, { t: ends[2] });
    assert.equal(stepsShownAt(ends, playbackStore.getState().t), 3);
  } finally {
    playback.dispose();
  }
});
