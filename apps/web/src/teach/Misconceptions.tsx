/**
 * Common misconceptions, each with a one-click experiment that disproves it: the button opens the lesson
 * whose table (or config example) shows the opposite, and points at that table once it has run.
 */
import { S } from '../i18n/strings';
import type { LessonLink } from './lesson-links';
import { LinkedCards } from './LinkedCards';

type MythId = keyof typeof S.myths.cards;

/** where each misconception is disproved */
export const DISPROOF: Record<MythId, LessonLink> = {
  biggerBatch: { lesson: 'batching', target: 'exp-bound' },
  moreInstances: { lesson: 'concurrency', target: 'exp-instances' },
  dimsBatch: { lesson: 'config', target: 'mistake-checker', ex: 0 },
  backendPlatform: { lesson: 'config', target: 'mistake-checker', ex: 4 },
  delayZero: { lesson: 'batching', target: 'exp-overload' },
  generationBatch: { lesson: 'rebuild', target: 'rebuild-demo' },
  kvMemory: { lesson: 'kvlimit', target: 'kvlimit-demo' },
  longPrompt: { lesson: 'chunked', target: 'chunked-demo' },
};

export function Misconceptions() {
  const cards = S.myths.cards;
  const items = (Object.keys(cards) as MythId[]).map((id) => ({ id, title: cards[id].myth, body: cards[id].truth, link: DISPROOF[id] }));
  return <LinkedCards testId="misconceptions" itemPrefix="myth" heading={S.myths.heading} button={S.myths.showMe} titleMark="✗ " items={items} />;
}
