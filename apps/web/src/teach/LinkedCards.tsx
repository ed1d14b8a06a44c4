/**
 * A folded list of cards (a misconception and its truth, a question and its answer), each with a button
 * that opens the lesson place showing it. One component for both panels: they differ only in content.
 */
import { openLessonAt, type LessonLink } from './lesson-links';

export interface LinkedCard { id: string; title: string; body: string; link: LessonLink }

export function LinkedCards(props: { testId: string; itemPrefix: string; heading: string; button: string; titleMark?: string; items: LinkedCard[] }) {
  return (
    <details className="border-t pt-2 border-line" data-testid={props.testId}>
      <summary className="text-xs uppercase tracking-wide text-muted cursor-pointer">{props.heading}</summary>
      <ol className="space-y-2 mt-2">
        {props.items.map((c) => (
          <li key={c.id} className="border border-line rounded p-2 text-sm" data-testid={`${props.itemPrefix}-${c.id}`}>
            <div className="font-semibold">{props.titleMark ?? ''}{c.title}</div>
            <div>{c.body}</div>
            <button type="button" className="btn btn-sm mt-1" onClick={() => openLessonAt(c.link)} data-testid={`${props.itemPrefix}-${c.id}-show`}>{props.button}</button>
          </li>
        ))}
      </ol>
    </details>
  );
}
