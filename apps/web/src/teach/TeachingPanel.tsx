/**
 * Teaching mode's side panel: the lesson's text (the picker, the claim and playback sit in the stage header,
 * StageHeader.tsx), what the experiment's chart shows, the narration of the last steps, the calibration in
 * use, and the formula cards.
 */
import { useEffect } from 'react';
import { useStore } from 'zustand';
import { appStore, useApp } from '../store/app-store';
import { LESSONS, lessonById, lessonText } from './lessons';
import { playback, playbackStore } from './playback';
import { FormulaCards } from './FormulaCards';
import { MistakeChecker } from './MistakeChecker';
import { Misconceptions } from './Misconceptions';
import { Interview } from './Interview';
import { narrate } from './narration';
import { S } from '../i18n/strings';
import { LESSON_CALIBRATED_MODELS, calibrationInUse, calibrationStore, hasLiveServer, loadLiveCalibrations, modelsWithoutLive } from './calibrations';
import type { CalibrationPin } from '../store/url-state';
import { bundledCalibration } from '@inferscope/core/sim';

/**
 * One line saying where the lessons' costs come from (the tables shipped with InferScope, pinned by default,
 * or this server's own batches when the teacher chose them: what it measured and when), and the choice.
 */
function CalibrationSource() {
  const { live } = useStore(calibrationStore);
  const pin = useApp((s) => s.cal) ?? 'shipped';
  const inUse = calibrationInUse();
  const models = Object.keys(live);
  const batches = models.reduce((n, m) => n + Object.values(live[m].counts ?? {}).reduce((a, b) => a + b, 0), 0);
  const measuredAt = models.map((m) => live[m].measured_at).sort().at(-1) ?? '';
  const c = S.calibrationPin;
  return (
    <div className="space-y-1">
      <p className="text-xs text-muted" data-testid="calibration-source" data-source={inUse} data-pin={pin}>
        {inUse === 'live' ? S.calibrationLive(models.join(', '), batches, measuredAt) : S.calibrationBundled(bundledCalibration('mlp_classifier')?.measured_at ?? '')}
        {pin === 'server' && inUse === 'bundled' ? ` ${c.noServerYet(modelsWithoutLive().join(', '))}` : ''}
      </p>
      <label className="flex flex-wrap items-center gap-2 text-xs">
        <span>{c.label}</span>
        <select className="input" value={pin} onChange={(e) => appStore.setState({ cal: e.target.value === 'server' ? 'server' : undefined })} data-testid="calibration-pin">
          <option value="shipped">{c.shipped}</option>
          <option value="server">{c.server}</option>
        </select>
      </label>
    </div>
  );
}

/** Whether the page was opened with an explicit ?view= (read once, before the app rewrites the URL). */
let linkNamesView = typeof location !== 'undefined' && new URLSearchParams(location.search).has('view');


export function TeachingPanel() {
  const lessonId = useApp((s) => s.lesson) || LESSONS[0].id;
  const seed = useApp((s) => s.seed);
  const lesson = lessonById(lessonId) ?? LESSONS[0];
  const text = lessonText(lesson);
  const pb = useStore(playbackStore);
  const ex = useApp((s) => s.ex);
  // a page served by a live server that has run traffic simulates with that server's own calibration
  useEffect(() => {
    if (hasLiveServer()) void loadLiveCalibrations(LESSON_CALIBRATED_MODELS);
  }, [lesson.id]);

  useEffect(() => {
    if (playback.isLoaded(lesson, seed)) return; // re-rendered (e.g. the language changed): keep the run
    const st = appStore.getState();
    const fromLink = st.lesson === lesson.id;
    // a link that names its view keeps it; otherwise the lesson opens on its own view
    const linkedView = fromLink && linkNamesView;
    linkNamesView = false;
    appStore.setState({ view: linkedView ? st.view : lesson.view, lesson: lesson.id, latencyBudgetUs: lesson.latencyBudgetUs, model: 'all', inspect: undefined, connection: { status: 'offline', attempts: 0 }, server: undefined });
    void playback.load(lesson, seed, fromLink ? st : {}, fromLink ? { t: st.t, speed: st.speed } : undefined);
  }, [lesson.id, seed]);

  const recent = pb.ready ? playback.recent() : [];
  return (
    <section className="card" data-testid="teaching-panel" data-lesson={lesson.id}>
      <h2 className="card-title">{S.lessons}{S.colon}{lesson.chapter}. {text.title}</h2>
      <div className="p-3 space-y-3">
        <div className="lesson-text text-sm">
          {text.intro.map((p, i) => <p key={i}>{p}</p>)}
        </div>
        <div>
          <h3 className="text-xs uppercase tracking-wide text-muted">{S.whatToWatch}</h3>
          <ul className="list-disc pl-5 text-sm">{text.watch.map((w, i) => <li key={i}>{w}</li>)}</ul>
        </div>
        {text.caption && <p className="text-sm" data-testid="lesson-caption"><span className="font-semibold">{S.lookAt}{S.colon}</span>{text.caption}</p>}
        <div>
          <h3 className="text-xs uppercase tracking-wide text-muted">{S.narration}</h3>
          <ol className="text-sm narration" data-testid="narration" aria-live="polite">
            {recent.length === 0 && <li className="text-muted">{S.narrationEmpty}</li>}
            {recent.map((e, i) => <li key={`${pb.applied}-${i}`} data-testid="narration-line" className={i === recent.length - 1 ? 'font-semibold' : 'text-muted'}>{narrate(e)}</li>)}
          </ol>
        </div>
        {lesson.id === 'config' && <MistakeChecker key={ex ?? 0} />}
        <CalibrationSource />
        <FormulaCards ids={lesson.formulas} />
        <Misconceptions />
        <Interview />
      </div>
    </section>
  );
}
