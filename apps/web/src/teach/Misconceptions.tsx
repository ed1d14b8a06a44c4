/**
 * Common misconceptions, each with a one-click experiment that disproves it: the button opens the lesson
 * whose table (or config example) shows the opposite, and points at that table once it has run.
 */
import { S } from '../strings';
import { openLessonAt, type LessonLink } from './lesson-links';

type MythId = keyof typeof S.myths.cards;

/** where each misconception is disproved */
const DISPROOF: Record<MythId, LessonLink> = {
  biggerBatch: { lesson: 'batching', target: 'exp-bound' },
  moreInstances: { lesson: 'concurrency', target: 'exp-instances' },
  dimsBatch: { lesson: 'config', target: 'mistake-checker', ex: 0 },
  backendPlatform: { lesson: 'config', target: 'mistake-checker', ex: 4 },
  delayZero: { lesson: 'batching', target: 'exp-overload' },
};

export function Misconceptions() {
  const cards = S.myths.cards;
  return (
    <details className="border-t pt-2 border-line" data-testid="misconceptions">
      <summary className="text-xs uppercase tracking-wide text-muted cursor-pointer">{S.myths.heading}</summary>
      <ul className="space-y-2 mt-2">
        {(Object.keys(cards) as MythId[]).map((id) => (
          <li key={id} className="border border-line rounded p-2 text-sm" data-testid={`myth-${id}`}>
            <div className="font-semibold">✗ {cards[id].myth}</div>
            <div>{cards[id].truth}</div>
            <button type="button" className="btn btn-sm mt-1" onClick={() => openLessonAt(DISPROOF[id])} data-testid={`myth-${id}-show`}>{S.myths.showMe}</button>
          </li>
        ))}
      </ul>
    </details>
  );
}
