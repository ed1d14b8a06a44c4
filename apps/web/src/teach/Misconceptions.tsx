/**
 * Common misconceptions, each with a one-click experiment that disproves it: the button opens the lesson
 * whose table (or config example) shows the opposite, and points at that table once it has run.
 */
import { appStore } from '../store/app-store';
import { S } from '../strings';
import { lessonById } from './lessons';
import { requestFocus, takeFocus } from './focus';
import { LESSON_KNOBS_CLEARED } from './knobs';
import type { LessonId } from '../i18n/lessons-en';

type MythId = keyof ReturnType<typeof cardsOf>;
const cardsOf = () => S.myths.cards;

/** where each misconception is disproved: a lesson, and the experiment table or config example to look at */
const DISPROOF: Record<MythId, { lesson: LessonId; table?: string; ex?: number }> = {
  biggerBatch: { lesson: 'batching', table: 'bound' },
  moreInstances: { lesson: 'concurrency', table: 'instances' },
  dimsBatch: { lesson: 'config', ex: 0 },
  backendPlatform: { lesson: 'config', ex: 4 },
  delayZero: { lesson: 'batching', table: 'overload' },
};


export function Misconceptions() {
  const show = (id: MythId) => {
    const d = DISPROOF[id];
    const lesson = lessonById(d.lesson)!;
    if (d.table) requestFocus(`exp-${d.table}`);
    else requestFocus('mistake-checker');
    const same = appStore.getState().lesson === lesson.id;
    appStore.setState({ ...LESSON_KNOBS_CLEARED, lesson: lesson.id, view: lesson.view, ex: d.ex });
    // the same lesson is not reloaded: its table (or the re-keyed checker) is already there
    if (same) setTimeout(takeFocus, 50);
  };
  const cards = cardsOf();
  return (
    <details className="border-t pt-2 border-line" data-testid="misconceptions">
      <summary className="text-xs uppercase tracking-wide text-muted cursor-pointer">{S.myths.heading}</summary>
      <ul className="space-y-2 mt-2">
        {(Object.keys(cards) as MythId[]).map((id) => (
          <li key={id} className="border border-line rounded p-2 text-sm" data-testid={`myth-${id}`}>
            <div className="font-semibold">✗ {cards[id].myth}</div>
            <div>{cards[id].truth}</div>
            <button type="button" className="btn btn-sm mt-1" onClick={() => show(id)} data-testid={`myth-${id}-show`}>{S.myths.showMe}</button>
          </li>
        ))}
      </ul>
    </details>
  );
}
