/** Interview questions with worked answers, each linking to the view or experiment that shows the answer. */
import { S } from '../strings';
import { openLessonAt, type LessonLink } from './lesson-links';

type QuestionId = keyof typeof S.interview.questions;

const SHOWN_BY: Record<QuestionId, LessonLink> = {
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
  return (
    <details className="border-t pt-2 border-line" data-testid="interview">
      <summary className="text-xs uppercase tracking-wide text-muted cursor-pointer">{S.interview.heading}</summary>
      <ol className="space-y-2 mt-2 list-decimal pl-5">
        {(Object.keys(qs) as QuestionId[]).map((id) => (
          <li key={id} className="text-sm" data-testid={`question-${id}`}>
            <div className="font-semibold">{qs[id].q}</div>
            <div>{qs[id].a}</div>
            <button type="button" className="btn btn-sm mt-1" onClick={() => openLessonAt(SHOWN_BY[id])} data-testid={`question-${id}-show`}>{S.interview.showAnswer}</button>
          </li>
        ))}
      </ol>
    </details>
  );
}
