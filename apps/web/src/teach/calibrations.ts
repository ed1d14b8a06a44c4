/**
 * Which calibration the lessons' simulator uses: the one shipped with the bundle (core's sim/calibrations),
 * pinned, unless the teacher opts into this server's own (GET /v2/models/{m}/calibration: the server's own
 * batches, fitted like `inferscope calibrate`). A lesson's claims are checked against the shipped tables;
 * a busy laptop's live costs can turn them around, so live costs are a choice, never a default.
 *
 * One experiment never mixes the two: live costs are used only when every model the lessons simulate has
 * one; until then every lesson keeps the shipped tables and the source line says which model is missing.
 */
import { createStore } from 'zustand/vanilla';
import { bundledCalibration, validateCalibration, type Calibration } from '@inferscope/core/sim';
import { appStore } from '../store/app-store';

export interface CalibrationSources {
  /** bumps whenever a live calibration arrives or is dropped: what depends on costs re-runs */
  version: number;
  /** model -> the live calibration in use */
  live: Record<string, Calibration>;
}

export const calibrationStore = createStore<CalibrationSources>(() => ({ version: 0, live: {} }));

/** The models whose costs the lessons take from a calibration. */
export const LESSON_CALIBRATED_MODELS = ['mlp_classifier', 'cnn_classifier', 'mlp_classifier_torch'] as const;

/** The lessons' models this server has no live calibration for yet. */
export function modelsWithoutLive(): string[] {
  const live = calibrationStore.getState().live;
  return LESSON_CALIBRATED_MODELS.filter((m) => !live[m]);
}

/** What the lessons use now: 'live' only when the teacher chose this server's and it has every model's. */
export function calibrationInUse(): 'live' | 'bundled' {
  return appStore.getState().cal === 'server' && modelsWithoutLive().length === 0 ? 'live' : 'bundled';
}

/** The calibration the simulator uses for `model` now, and where it comes from. */
export function calibrationFor(model: string): { cal: Calibration; source: 'live' | 'bundled' } | undefined {
  const live = calibrationInUse() === 'live' ? calibrationStore.getState().live[model] : undefined;
  if (live) return { cal: live, source: 'live' };
  const cal = bundledCalibration(model);
  return cal ? { cal, source: 'bundled' } : undefined;
}

type Fetch = (url: string) => Promise<{ status: number; json(): Promise<unknown> }>;

/**
 * Whether this page has talked to a live InferScope server (a snapshot came over the socket): only then
 * is there a server to ask. A lesson opened from a static build, or straight into teaching mode, never
 * asks, so it makes no failing request.
 */
let liveServerSeen = false;
appStore.subscribe((s) => {
  if (s.server && s.connection.status === 'connected') liveServerSeen = true;
});
export const hasLiveServer = (): boolean => liveServerSeen;

// a new pin changes the costs every lesson simulates with: what depends on them re-runs
let pin = appStore.getState().cal;
appStore.subscribe((s) => {
  if (s.cal === pin) return;
  pin = s.cal;
  calibrationStore.setState((c) => ({ version: c.version + 1 }));
});

/**
 * Asks this page's server for its live calibrations (GET /v2/calibration: every READY version that has
 * run enough batches) and uses those of `models` (version 1, the shipped calibrations' version, else the
 * newest). A model without one keeps its shipped calibration. Returns the models now on a live one.
 */
export async function loadLiveCalibrations(models: readonly string[], get: Fetch = (u) => fetch(u)): Promise<string[]> {
  const found: Record<string, Calibration> = {};
  try {
    const r = await get('/v2/calibration');
    if (r.status !== 200) return Object.keys(calibrationStore.getState().live);
    const body = (await r.json()) as { calibrations?: unknown[] };
    for (const raw of body.calibrations ?? []) {
      let cal: Calibration;
      try {
        cal = validateCalibration(raw, 'live calibration');
      } catch {
        continue; // one bad entry does not hide the others
      }
      if (!models.includes(cal.model) || cal.source !== 'live') continue;
      const have = found[cal.model];
      if (!have || cal.version === '1' || (have.version !== '1' && Number(cal.version) > Number(have.version))) found[cal.model] = cal;
    }
  } catch {
    return Object.keys(calibrationStore.getState().live); // the server went away: keep what we have
  }
  const before = calibrationStore.getState().live;
  const same = Object.keys(found).length === Object.keys(before).length && Object.keys(found).every((m) => before[m]?.measured_at === found[m].measured_at);
  if (!same) calibrationStore.setState((s) => ({ version: s.version + 1, live: found }));
  return Object.keys(found);
}

/** Back to the shipped calibrations (the lesson's "use shipped figures" choice, tests). */
export function dropLiveCalibrations(): void {
  if (Object.keys(calibrationStore.getState().live).length > 0) calibrationStore.setState((s) => ({ version: s.version + 1, live: {} }));
}
