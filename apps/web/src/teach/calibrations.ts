/**
 * Which calibration the lessons' simulator uses per model: the live one of the server this page came from
 * (GET /v2/models/{m}/calibration: the server's own batches, fitted like `inferscope calibrate`), when
 * it has run enough batches, else the one shipped with the bundle (core's sim/calibration). A page
 * opened without a server (a static build, tests offline) simply keeps the shipped ones.
 */
import { createStore } from 'zustand/vanilla';
import { bundledCalibration, validateCalibration, type Calibration } from '@inferscope/core/sim/index.ts';

export interface CalibrationSources {
  /** bumps whenever a live calibration arrives or is dropped: what depends on costs re-runs */
  version: number;
  /** model -> the live calibration in use */
  live: Record<string, Calibration>;
}

export const calibrationStore = createStore<CalibrationSources>(() => ({ version: 0, live: {} }));

/** The calibration the simulator uses for `model` now, and where it comes from. */
export function calibrationFor(model: string): { cal: Calibration; source: 'live' | 'bundled' } | undefined {
  const live = calibrationStore.getState().live[model];
  if (live) return { cal: live, source: 'live' };
  const cal = bundledCalibration(model);
  return cal ? { cal, source: 'bundled' } : undefined;
}

type Fetch = (url: string) => Promise<{ status: number; json(): Promise<unknown> }>;

/**
 * Asks this page's server for live calibrations of `models` (version 1, the shipped calibrations' version).
 * A model without one (409: too few batches; 404: not served; no server at all) keeps its shipped one.
 * Returns the models now on a live calibration.
 */
export async function loadLiveCalibrations(models: readonly string[], get: Fetch = (u) => fetch(u)): Promise<string[]> {
  const found: Record<string, Calibration> = {};
  await Promise.all(models.map(async (m) => {
    try {
      const r = await get(`/v2/models/${encodeURIComponent(m)}/versions/1/calibration`);
      if (r.status !== 200) return;
      const cal = validateCalibration(await r.json(), `live calibration of ${m}`);
      if (cal.model === m && cal.source === 'live') found[m] = cal;
    } catch {
      // no server behind this page, or a reply that is not a calibration: the shipped figures stay
    }
  }));
  const before = calibrationStore.getState().live;
  const same = Object.keys(found).length === Object.keys(before).length && Object.keys(found).every((m) => before[m]?.measured_at === found[m].measured_at);
  if (!same) calibrationStore.setState((s) => ({ version: s.version + 1, live: found }));
  return Object.keys(found);
}

/** Back to the shipped calibrations (the lesson's "use shipped figures" choice, tests). */
export function dropLiveCalibrations(): void {
  if (Object.keys(calibrationStore.getState().live).length > 0) calibrationStore.setState((s) => ({ version: s.version + 1, live: {} }));
}
