/** Interview questions with worked answers, each linking to the view or experiment that shows the answer. */
import { S } from '../i18n/strings';
import type { LessonLink } from './lesson-links';
import { LinkedCards } from './LinkedCards';

type QuestionId = keyof typeof S.interview.questions;

export const SHOWN_BY: Record<QuestionId, LessonLink> = {
  whenSend: { lesson: 'batching', target: 'narration', view: 'data' },
  preferred: { lesson: 'batching', target: 'chart-dataflow', view: 'data' },
  delayCost: { lesson: 'batching', target: 'exp-delay' },
  instances: { lesson: 'concurrency', target: 'exp-instances' },
  queueCompute: { lesson: 'operations', target: 'chart-queue-compute', view: 'performance' },
  perfSweep: { lesson: 'operations', target: 'exp-sweep' },
  ensemble: { lesson: 'repository', target: 'view-architecture', view: 'architecture' },
  outOfMemory: { lesson: 'concurrency', target: 'lesson-knob' },
};

export function Interview() {
  const qs = S.interview.questions;
  const items = (Object.keys(qs) as QuestionId[]).map((id) => ({ id, title: qs[id].q, body: qs[id].a, link: SHOWN_BY[id] }));
  return <LinkedCards testId="interview" itemPrefix="question" heading={S.interview.heading} button={S.interview.showAnswer} items={items} />;
}
