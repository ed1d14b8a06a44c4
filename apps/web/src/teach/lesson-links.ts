/**
 * A link from a card (misconception, interview answer) to the place in a lesson that shows it: opens the
 * lesson (its knobs cleared, an optional view and config example) and brings the target element into view
 * once it is on the page (an experiment table after it has run, a chart, the config checker).
 */
import { appStore } from '../store/app-store';
import type { ViewName } from '../store/url-state';
import type { LessonId } from '../i18n/lessons-en';
import { lessonById } from './lessons';
import { requestFocus, takeFocus } from './focus';
import { LESSON_KNOBS_CLEARED } from './knobs';

export interface LessonLink {
  lesson: LessonId;
  /** data-testid of the element to bring into view */
  target: string;
  view?: ViewName;
  /** the config lesson's mistake example */
  ex?: number;
}

export function openLessonAt(link: LessonLink): void {
  const lesson = lessonById(link.lesson)!;
  requestFocus(link.target);
  const same = appStore.getState().lesson === lesson.id;
  appStore.setState({ ...LESSON_KNOBS_CLEARED, lesson: lesson.id, view: link.view ?? lesson.view, ex: link.ex });
  // a lesson already open is not reloaded: its element is there, or appears with the view just chosen
  if (same || !link.target.startsWith('exp-')) setTimeout(takeFocus, 300);
}
