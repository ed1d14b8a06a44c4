/**
 * Teaching-mode playback: owns the TeachingEngine, feeds its events into the same LiveModel the live
 * socket feeds (so every view works unchanged), and drives play / pause / single step / speed / scrub.
 * Scrubbing back replays the recorded event log into a fresh LiveModel; the scheduler only moves forward.
 */
import { createStore } from 'zustand/vanilla';
import { appStore, live, syncStructure } from '../store/app-store';
import { setDataClock } from '../live/clock';
import { CALIBRATION_CORES } from './models';
import { setControlSender } from '../live/control';
import { registerDrawer } from '../charts/frame-loop';
import { TeachingEngine } from './engine';
import { SimStats } from './sim-stats';
import { GenReplay } from './gen-replay';
import { SIM_VERSION } from './sim-types';
import { modelKey } from '../store/live-types';
import type { Lesson } from './lessons';
import { applyKnobs, knobsFromControl, type DemoKnobs } from './knobs';
import type { SchedulerEvent } from '@inferscope/core';
import { nextMarkAfter } from './gen-reveal';

/** Events kept for the narration (the last few applied). */
const NARRATED = 8;

/**
 * Aggregates every 100 ms of watching, over the last second of watching (scaled by the speed), but never
 * over less than 50 ms of simulated time: a window of a dozen requests makes every figure noise, and the
 * formula cards (Little's law: time-averaged in-flight vs rate × latency) would disagree by the window's
 * edges (measured: ±30% over 10 ms windows, ±3% over 100 ms at the batching lesson's load).
 */
const statsEveryUs = () => Math.max(50, playbackStore.getState().speed * 100);
const statsWindowUs = () => Math.max(50_000, playbackStore.getState().speed * 1000);

/** How much of a lesson's run is already played when it opens, in wall-clock ms at the lesson's speed. */
export const OPENING_WALL_MS = 2000;

/** The teaching charts' window: everything simulated so far (time 0 to now), at least one stats window. */
export const chartSpanUs = (nowUs: number, speed: number): number => Math.max(nowUs, 50_000, speed * 1000);

export interface PlaybackState {
  lessonId: string;
  playing: boolean;
  /** simulated µs per wall-clock ms */
  speed: number;
  /** the time the views show, µs */
  t: number;
  applied: number;
  total: number;
  ready: boolean;
  /** when the stage's picture has a run of its own (lessons 15-17), its last step's end: the timeline spans that run */
  pictureEndUs?: number;
}

export const playbackStore = createStore<PlaybackState>(() => ({ lessonId: '', playing: false, speed: 100, t: 0, applied: 0, total: 0, ready: false }));

class Playback {
  engine: TeachingEngine | null = null;
  private cursor = 0;
  private stats = new SimStats(1_000_000);
  /** the generative model's `generation` messages (gen-replay.ts), when the lesson serves one */
  private gen: GenReplay | null = null;
  private nextStats = 0;
  private lastWall = 0;
  private stopLoop: (() => void) | null = null;
  private lesson: Lesson | null = null;
  private loadedKey = '';
  /**
   * Times at which the stage's picture changes without an event of the engine's (a generative lesson's
   * step ends, gen-reveal.ts): while there is one ahead, step moves to it (the engine's events up to it
   * applied on the way), so one press shows one more step of the picture on the stage, never none (the
   * engine's light traffic behind it has several events per picture step) or several.
   */
  private marks: readonly number[] = [];

  /** The lesson and seed now loaded (re-rendering the page, e.g. for a language switch, keeps them). */
  isLoaded(lesson: Lesson, seed: number): boolean {
    return this.engine !== null && this.loadedKey === `${lesson.id}:${seed}`;
  }

  /** The last applied events, oldest first, for the narration. */
  recent(): SchedulerEvent[] {
    const e = this.engine;
    if (!e) return [];
    return e.events.slice(Math.max(0, this.cursor - NARRATED), this.cursor);
  }

  /** `knobs` and `start` come from a shared link: the demo's settings and the time to open at. */
  async load(lesson: Lesson, seed: number, knobs: DemoKnobs = {}, start?: { t?: number; speed?: number }): Promise<void> {
    this.lesson = lesson;
    this.loadedKey = `${lesson.id}:${seed}`;
    this.engine = new TeachingEngine(applyKnobs(lesson.scenario(seed), knobs));
    const engine = this.engine;
    const first = engine.scenario.models[0].name;
    playbackStore.setState({ lessonId: lesson.id, playing: false, speed: start?.speed ?? lesson.speed, t: 0, applied: 0, total: 0, ready: false });
    setDataClock({
      nowUs: () => playbackStore.getState().t,
      // Paused: moves land at once. Playing: a move takes ~300 ms of wall time whatever the speed.
      animUs: () => (playbackStore.getState().playing ? Math.max(1, 300 * playbackStore.getState().speed) : 1),
      // from the run's start to now, never narrower than the stats' own window (a second of watching)
      spanUs: () => chartSpanUs(playbackStore.getState().t, playbackStore.getState().speed),
    });
    // the generative lessons' Live Controls open on the model they are about (the picked one stays picked elsewhere)
    if (engine.gen) appStore.setState({ target: modelKey(engine.gen.model, SIM_VERSION) });
    setControlSender(async (msg) => {
      const ack = await engine.control(msg);
      this.applyUpTo(engine.now());
      if (ack.ok) appStore.setState(knobsFromControl(msg, first));
      return ack;
    });
    await engine.whenReady();
    if (engine !== this.engine) return; // another lesson was picked meanwhile
    this.rebuild(0);
    playbackStore.setState({ ready: true });
    if (start?.t) this.seek(start.t);
    else {
      // a lesson opens on a run already played (never on empty charts): at its own moment where it names one
      // (lesson 16: the first preemption), else what two seconds of watching at its speed would have shown;
      // the link keeps no time until the class moves it
      const opening = lesson.openAtUs?.() ?? OPENING_WALL_MS * playbackStore.getState().speed;
      engine.advanceTo(opening);
      this.applyUpTo(opening);
    }
    this.stopLoop ??= registerDrawer({ minIntervalMs: 0, dirty: () => true, draw: (ms) => this.frame(ms) });
  }

  dispose(): void {
    this.stopLoop?.();
    this.stopLoop = null;
    this.engine = null;
    this.loadedKey = '';
  }

  play(): void {
    this.lastWall = performance.now();
    playbackStore.setState({ playing: true });
  }

  pause(): void {
    playbackStore.setState({ playing: false });
    this.shareTime();
  }

  /** The shared link opens where the class paused, stepped or scrubbed to. */
  private shareTime(): void {
    appStore.setState({ t: Math.round(playbackStore.getState().t) || undefined });
  }

  setSpeed(speed: number): void {
    playbackStore.setState({ speed });
    appStore.setState({ speed });
    this.stats.setWindow(statsWindowUs());
  }

  /** The picture's own step times (sorted, µs), or none; its demo sets them while it is on the stage. */
  setStepMarks(marks: readonly number[] | null): void {
    this.marks = marks ?? [];
    playbackStore.setState({ pictureEndUs: marks?.at(-1) });
  }

  /**
   * To the picture's next step mark while there is one, else one scheduler event forward (simulating
   * further when the log has no unapplied event).
   */
  step(): void {
    const e = this.engine;
    if (!e) return;
    this.pause();
    const mark = nextMarkAfter(this.marks, playbackStore.getState().t);
    if (mark !== undefined) {
      e.advanceTo(mark);
      this.applyUpTo(mark);
    } else {
      if (this.cursor >= e.events.length) e.step();
      if (this.cursor < e.events.length) this.applyUpTo(e.events[this.cursor].t, 1);
    }
    this.shareTime();
  }

  /** Jump to time t (back: replay the log from the start; forward: simulate on). */
  seek(t: number): void {
    const e = this.engine;
    if (!e) return;
    this.pause();
    if (t < playbackStore.getState().t) this.rebuild(t);
    else {
      e.advanceTo(t);
      this.applyUpTo(t);
    }
    this.shareTime();
  }

  private frame(wallMs: number): void {
    const st = playbackStore.getState();
    const e = this.engine;
    if (!e || !st.playing || !st.ready) {
      this.lastWall = wallMs;
      return;
    }
    const dt = Math.min(100, Math.max(0, wallMs - this.lastWall));
    this.lastWall = wallMs;
    const target = st.t + dt * st.speed;
    e.advanceTo(target);
    this.applyUpTo(target);
  }

  private rebuild(t: number): void {
    const e = this.engine!;
    live.reset();
    live.queueSampleUs = Math.max(20, playbackStore.getState().speed * 50);
    live.applySnapshot(e.snapshot());
    this.cursor = 0;
    this.stats = new SimStats(statsWindowUs(), e.scenario.cores ?? CALIBRATION_CORES);
    // a figures point per quarter second of watching (the server's feed: one per second of its time)
    this.gen = e.gen && new GenReplay(e.gen, Math.max(1000, playbackStore.getState().speed * 250));
    this.nextStats = statsEveryUs();
    this.applyUpTo(t);
    if (this.lesson?.inspect) appStore.setState({ inspect: this.lesson.inspect });
  }

  /** Apply logged events with time <= t (or at most `limit` of them), emitting stats on the way. */
  private applyUpTo(t: number, limit = Infinity): void {
    const e = this.engine!;
    let n = 0;
    let shown = playbackStore.getState().t;
    while (this.cursor < e.events.length && e.events[this.cursor].t <= t && n < limit) {
      const ev = e.events[this.cursor++];
      while (ev.t >= this.nextStats) this.emitStats(this.nextStats);
      live.apply(ev);
      this.stats.add(ev);
      shown = ev.t;
      n++;
    }
    if (limit === Infinity) {
      while (t >= this.nextStats) this.emitStats(this.nextStats);
      shown = t;
    }
    this.gen?.upTo(shown);
    live.now = Math.max(live.now, shown);
    live.rev++;
    playbackStore.setState({ t: shown, applied: this.cursor, total: e.events.length });
    syncStructure();
  }

  /** The formula cards' figures: the window of the last aggregate the charts got. */
  windowFigures(key: string) {
    return this.stats.windowFigures(key);
  }

  private emitStats(at: number): void {
    live.applyStats(this.stats.snapshot(at));
    // the generation message goes out at the stats' pace (the server's every 250 ms)
    const g = this.gen?.tick(at);
    if (g) live.applyGeneration(g);
    this.nextStats = at + statsEveryUs();
  }
}

export const playback = new Playback();
