/**
 * What a lesson puts on the main stage above the view: the stage header (lesson, playback, claim), its knob (the delay slider, the instance buttons,
 * or the course demo's lanes and sliders) and its experiment as a chart, the row the knob is set to marked.
 */
import { useStore } from 'zustand';
import { live, useApp } from '../store/app-store';
import { activeInstances, batchingOf } from '../store/config-paths';
import { LESSONS, lessonById, type Lesson } from './lessons';
import { LessonKnob } from './LessonKnob';
import { CourseDemo } from './CourseDemo';
import { StreamingDemo } from './StreamingDemo';
import { AutotuneDemo } from './AutotuneDemo';
import { SeatsDemo } from './SeatsDemo';
import { AcceleratorDemo } from './AcceleratorDemo';
import { RebuildDemo } from './RebuildDemo';
import { KvLimitDemo } from './KvLimitDemo';
import { ChunkDemo } from './ChunkDemo';
import { ExperimentPanel } from './ExperimentPanel';
import { calibrationStore } from './calibrations';
import { StageHeader } from './StageHeader';

export function TeachStage() {
  const id = useApp((s) => s.lesson);
  const seed = useApp((s) => s.seed);
  const calVersion = useStore(calibrationStore, (c) => c.version);
  const lesson = lessonById(id) ?? LESSONS[0];
  const current = useKnobValue(lesson);
  return (
    <>
      <StageHeader />
      {lesson.knob === 'course' && <CourseDemo />}
      {lesson.knob === 'stream' && <StreamingDemo />}
      {lesson.knob === 'autotune' && <AutotuneDemo />}
      {lesson.knob === 'seats' && <SeatsDemo />}
      {lesson.knob === 'accelerator' && <AcceleratorDemo />}
      {lesson.knob === 'rebuild' && <RebuildDemo />}
      {lesson.knob === 'kvlimit' && <KvLimitDemo />}
      {lesson.knob === 'chunked' && <ChunkDemo />}
      {(lesson.knob === 'delay' || lesson.knob === 'instances') && <LessonKnob knob={lesson.knob} />}
      {lesson.experiment && <ExperimentPanel key={`${lesson.id}-${calVersion}`} id={lesson.experiment} seed={seed} current={current} />}
    </>
  );
}

/** The lesson knob's value now, in the unit the experiment rows record (delay µs, instance count). */
function useKnobValue(lesson: Lesson): number | undefined {
  useApp((s) => s.structureRev);
  const m = [...live.models.values()][0];
  if (!m || (lesson.knob !== 'delay' && lesson.knob !== 'instances')) return undefined;
  return lesson.knob === 'delay' ? batchingOf(m.config, activeInstances(m)).maxQueueDelayUs : activeInstances(m);
}
