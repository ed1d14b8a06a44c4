/**
 * Shareable state lives in the URL query (tensorflow/playground style): view, model, time window,
 * lesson, scenario, seed, mode, theme, large type, language, and the knobs that shape a teaching demo
 * (delay, preferred and max batch sizes, instances, playback speed and time), so a prepared link opens
 * the exact demo. Parsing is forgiving: a bad value falls back to
 * the default instead of breaking the page, because people paste and edit these links by hand.
 */
import { KNOBS, formatKnobValue, knobValuesFromQuery, type KnobValues } from '@inferscope/core/live-config';
import { LANGUAGES, type Lang } from '../i18n/strings';

export const VIEWS = ['architecture', 'data', 'state', 'performance'] as const;
export type ViewName = (typeof VIEWS)[number];
export type Mode = 'live' | 'teach';
export type Theme = 'light' | 'dark';

export interface UrlState extends KnobValues {
  mode: Mode;
  view: ViewName;
  /** model key `name:version`, a bare model name, or 'all' */
  model: string;
  /** seconds of history the charts show */
  window: number;
  lesson: string;
  scenario: string;
  seed: number;
  theme: Theme;
  large: boolean;
  colour: 'model' | 'priority';
  lang: Lang;
  // the teaching demo knobs (delay, pbs, mbs, inst: core's knob table); undefined = the lesson's own value
  /** playback speed (simulated µs per wall ms) */
  speed?: number;
  /** playback time, µs of simulated time */
  t?: number;
  /** the course demo's mean arrival gap, µs */
  gap?: number;
  /** the config lesson's mistake example */
  ex?: number;
  /**
   * The calibration the lessons simulate with, pinned by the teacher: the one shipped with InferScope or
   * this server's own; undefined = this server's when it has one, else the shipped one.
   */
  cal?: CalibrationPin;
}

export const CALIBRATION_PINS = ['shipped', 'server'] as const;
export type CalibrationPin = (typeof CALIBRATION_PINS)[number];

export const WINDOWS = [10, 30, 60, 300] as const;

export const DEFAULT_URL_STATE: UrlState = {
  mode: 'live', view: 'architecture', model: 'all', window: 30, lesson: '', scenario: 'poisson', seed: 1,
  theme: 'light', large: false, colour: 'model', lang: 'en',
};

export function parseUrlState(search: string, prefersDark = false): UrlState {
  const q = new URLSearchParams(search);
  const d = { ...DEFAULT_URL_STATE, theme: prefersDark ? ('dark' as const) : ('light' as const) };
  const pick = <T extends string>(v: string | null, allowed: readonly T[], def: T): T => (v !== null && (allowed as readonly string[]).includes(v) ? (v as T) : def);
  const int = (v: string | null, def: number, ok: (n: number) => boolean): number => {
    if (v === null || v.trim() === '') return def;
    const n = Number(v);
    return Number.isInteger(n) && ok(n) ? n : def;
  };
  return {
    mode: pick(q.get('mode'), ['live', 'teach'] as const, d.mode),
    view: pick(q.get('view'), VIEWS, d.view),
    model: (q.get('model') ?? '').trim() || d.model,
    window: int(q.get('window'), d.window, (n) => n >= 5 && n <= 3600),
    lesson: q.get('lesson') ?? d.lesson,
    scenario: (q.get('scenario') ?? '').trim() || d.scenario,
    seed: int(q.get('seed'), d.seed, (n) => n >= 0 && n <= 2 ** 32 - 1),
    theme: pick(q.get('theme'), ['light', 'dark'] as const, d.theme),
    large: q.get('large') === '1',
    colour: pick(q.get('colour'), ['model', 'priority'] as const, d.colour),
    lang: pick(q.get('lang'), LANGUAGES, d.lang),
    ...demoKnobs(q, int),
    ...(q.get('cal') !== null && (CALIBRATION_PINS as readonly string[]).includes(q.get('cal')!) ? { cal: q.get('cal') as CalibrationPin } : {}),
  };
}

/** The teaching knobs: present only when the link sets them (and they make sense). */
function demoKnobs(q: URLSearchParams, int: (v: string | null, def: number, ok: (n: number) => boolean) => number): Partial<UrlState> {
  // The knobs that are live config fields are read from core's knob table, within the server's bounds
  // (LIVE_LIMITS): a link cannot set a value the live control would refuse.
  const out: Partial<UrlState> = { ...knobValuesFromQuery((key) => q.get(key)) };
  const opt = (key: string, ok: (n: number) => boolean) => {
    const n = int(q.get(key), -1, ok);
    return n >= 0 ? n : undefined;
  };
  const set = <K extends keyof UrlState>(k: K, v: UrlState[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set('speed', opt('speed', (n) => n >= 1 && n <= 100_000));
  set('t', opt('t', (n) => n >= 0 && n <= 3_600_000_000));
  set('gap', opt('gap', (n) => n >= 1000 && n <= 10_000_000));
  set('ex', opt('ex', (n) => n >= 0 && n <= 100));
  return out;
}

/** Only values that differ from the defaults are written, so shared links stay short. */
export function serializeUrlState(s: UrlState): string {
  const q = new URLSearchParams();
  const d = DEFAULT_URL_STATE;
  if (s.mode !== d.mode) q.set('mode', s.mode);
  if (s.view !== d.view) q.set('view', s.view);
  if (s.model !== d.model) q.set('model', s.model);
  if (s.window !== d.window) q.set('window', String(s.window));
  if (s.lesson) q.set('lesson', s.lesson);
  if (s.scenario !== d.scenario) q.set('scenario', s.scenario);
  if (s.seed !== d.seed) q.set('seed', String(s.seed));
  q.set('theme', s.theme);
  if (s.large) q.set('large', '1');
  if (s.colour !== d.colour) q.set('colour', s.colour);
  if (s.lang !== d.lang) q.set('lang', s.lang);
  for (const knob of KNOBS) {
    const v = s[knob.urlKey];
    if (v !== undefined) q.set(knob.urlKey, formatKnobValue(v));
  }
  for (const k of ['speed', 't', 'gap', 'ex'] as const) if (s[k] !== undefined) q.set(k, String(s[k]));
  if (s.cal !== undefined) q.set('cal', s.cal);
  const text = q.toString();
  return text ? `?${text}` : '';
}
