/** Teaching mode: lesson picker, lesson text, playback (play, pause, step, speed, timeline) and formulas. */
import { useEffect } from 'react';
import { useStore } from 'zustand';
import { appStore, useApp } from '../store/app-store';
import { LESSONS, SPEEDS, lessonById } from './lessons';
import { playback, playbackStore } from './playback';
import { FormulaCards } from './FormulaCards';
import { MistakeChecker } from './MistakeChecker';
import { SimAbPanel } from './SimAbPanel';
import { formatUs } from '../charts/format';
import { S } from '../strings';


export function TeachingPanel() {
  const lessonId = useApp((s) => s.lesson) || LESSONS[0].id;
  const seed = useApp((s) => s.seed);
  const lesson = lessonById(lessonId) ?? LESSONS[0];
  const pb = useStore(playbackStore);

  useEffect(() => {
    appStore.setState({ view: lesson.view, lesson: lesson.id, model: 'all', inspect: undefined, connection: { status: 'offline', attempts: 0 }, server: undefined });
    void playback.load(lesson, seed);
  }, [lesson.id, seed]);
  useEffect(() => () => playback.dispose(), []);

  const maxT = Math.max(pb.t, playback.engine?.now() ?? 0, 1);
  return (
    <section className="card" data-testid="teaching-panel">
      <h2 className="card-title">{S.lessons}</h2>
      <div className="p-3 space-y-3">
        <select className="input w-full" value={lesson.id} onChange={(e) => appStore.setState({ lesson: e.target.value })} data-testid="lesson-select" aria-label={S.lessons}>
          {LESSONS.map((l) => <option key={l.id} value={l.id}>{l.chapter}. {l.title}</option>)}
        </select>
        <div className="lesson-text text-sm">
          {lesson.intro.map((p, i) => <p key={i}>{p}</p>)}
        </div>
        <div>
          <h3 className="text-xs uppercase tracking-wide text-muted">{S.whatToWatch}</h3>
          <ul className="list-disc pl-5 text-sm">{lesson.watch.map((w, i) => <li key={i}>{w}</li>)}</ul>
        </div>
        <div className="flex flex-wrap gap-2 items-center">
          {pb.playing ? (
            <button type="button" className="btn btn-primary" onClick={() => playback.pause()} data-testid="teach-pause">❚❚ {S.pause}</button>
          ) : (
            <button type="button" className="btn btn-primary" onClick={() => playback.play()} disabled={!pb.ready} data-testid="teach-play">▶ {S.play}</button>
          )}
          <button type="button" className="btn" onClick={() => playback.step()} disabled={!pb.ready} data-testid="teach-step">{S.step} ›</button>
          <button type="button" className="btn" onClick={() => playback.seek(0)} disabled={!pb.ready}>⟲ {S.restart}</button>
          <label className="flex items-center gap-1 text-sm">
            {S.speed}
            <select className="input" value={pb.speed} onChange={(e) => playback.setSpeed(Number(e.target.value))} data-testid="teach-speed">
              {SPEEDS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
            </select>
          </label>
        </div>
        <label className="field">
          <span className="flex justify-between"><span>{S.timeline}</span><span className="font-mono" data-testid="teach-time">{S.simTime(formatUs(pb.t))}</span></span>
          <input type="range" min={0} max={maxT} step={1} value={pb.t} onChange={(e) => playback.seek(Number(e.target.value))} aria-label={S.timeline} data-testid="teach-scrub" />
          <span className="text-xs text-muted" data-testid="teach-events">{S.eventsSoFar(pb.applied, pb.total)}</span>
        </label>
        <FormulaCards ids={lesson.formulas} />
        {lesson.id === 'config' && <MistakeChecker />}
        {(lesson.id === 'batching' || lesson.id === 'operations') && <SimAbPanel />}
      </div>
    </section>
  );
}
