/**
 * The stage header: the lesson (its picker doubles as the title), playback (play / pause, step, restart,
 * speed, the time and the timeline) and the lesson's claim, above the knob and the picture, so a class sees
 * what is claimed and what drives the picture on one screen (1280x720 with large type) without scrolling
 * the side panel.
 */
import { useStore } from 'zustand';
import { appStore, useApp } from '../store/app-store';
import { LESSONS, SPEEDS, lessonById, lessonText } from './lessons';
import { LESSON_KNOBS_CLEARED } from './knobs';
import { playback, playbackStore } from './playback';
import { formatUs } from '../charts/format';
import { S } from '../i18n/strings';

export function StageHeader() {
  const lessonId = useApp((s) => s.lesson) || LESSONS[0].id;
  const lesson = lessonById(lessonId) ?? LESSONS[0];
  const text = lessonText(lesson);
  const pb = useStore(playbackStore);
  const pick = (id: string) => appStore.setState({ lesson: id, view: lessonById(id)?.view ?? appStore.getState().view, ...LESSON_KNOBS_CLEARED });
  // the timeline spans the whole simulated run (scrubbing ahead simulates on), not only what has played; a
  // lesson whose picture is a run of its own (15-17: a few hundred ms) spans that run, so the scrubber moves it
  const maxT = pb.pictureEndUs !== undefined
    ? Math.max(pb.t, pb.pictureEndUs, 1)
    : Math.max(pb.t, playback.engine?.now() ?? 0, playback.engine?.scenario.traffic.durationUs ?? 0, 1);
  return (
    <section className="card stage-header p-2 mb-2 space-y-1" data-testid="stage-header">
      <div className="flex flex-wrap items-center gap-2">
        <select className="input stage-lesson font-semibold" value={lesson.id} onChange={(e) => pick(e.target.value)} data-testid="lesson-select" aria-label={S.lessons}>
          {LESSONS.map((l) => <option key={l.id} value={l.id}>{l.chapter}. {S.lessonText[l.id].title}</option>)}
        </select>
        {pb.playing ? (
          <button type="button" className="btn btn-primary" onClick={() => playback.pause()} data-testid="teach-pause">❚❚ {S.pause}</button>
        ) : (
          <button type="button" className="btn btn-primary" onClick={() => playback.play()} disabled={!pb.ready} data-testid="teach-play">▶ {S.play}</button>
        )}
        <button type="button" className="btn" onClick={() => playback.step()} disabled={!pb.ready} data-testid="teach-step">{S.step} ›</button>
        <button type="button" className="btn" onClick={() => playback.seek(0)} disabled={!pb.ready} aria-label={S.restart} title={S.restart} data-testid="teach-restart">⟲</button>
        <label className="flex items-center gap-1">
          <span className="sr-only">{S.speed}</span>
          <select className="input" value={pb.speed} onChange={(e) => playback.setSpeed(Number(e.target.value))} data-testid="teach-speed" aria-label={S.speed} title={S.speed}>
            {SPEEDS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </label>
        <span className="font-mono stage-time" data-testid="teach-time">{S.simTime(formatUs(pb.t))}</span>
      </div>
      <div className="flex items-center gap-2">
        <input type="range" className="flex-1 min-w-0" min={0} max={maxT} step={1} value={pb.t} onChange={(e) => playback.seek(Number(e.target.value))} aria-label={S.timeline} data-testid="teach-scrub" />
        <span className="text-xs text-muted shrink-0" data-testid="teach-events">{S.eventsSoFar(pb.applied, pb.total)}</span>
      </div>
      <p className="lesson-claim" data-testid="lesson-claim"><span className="font-semibold">{S.claim}{S.colon}</span>{text.claim}</p>
    </section>
  );
}
