/** Teaching-mode A/B: two delays, the same simulated traffic, results side by side. */
import { useState } from 'react';
import { playback } from './playback';
import { simulateAb } from './sim-ab';
import { AbTable } from '../controls/AbTable';
import type { AbSide } from '../controls/ab-compare';
import { S } from '../strings';

export function SimAbPanel() {
  const [ab, setAb] = useState({ a: 0, b: 2000 });
  const [result, setResult] = useState<[AbSide, AbSide] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = () => {
    const scenario = playback.engine?.scenario;
    if (!scenario) return;
    try {
      setError(null);
      setResult(simulateAb(scenario, ab.a, ab.b));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <fieldset className="border-t pt-2 border-line" data-testid="sim-ab">
      <legend className="text-xs uppercase tracking-wide text-muted">{S.abCompare}</legend>
      <div className="grid grid-cols-2 gap-2">
        <label className="field"><span>{S.abA}</span><input type="number" className="input" min={0} value={ab.a} onChange={(e) => setAb({ ...ab, a: Number(e.target.value) })} /></label>
        <label className="field"><span>{S.abB}</span><input type="number" className="input" min={0} value={ab.b} onChange={(e) => setAb({ ...ab, b: Number(e.target.value) })} /></label>
      </div>
      <button type="button" className="btn w-full mt-2" onClick={run} data-testid="sim-ab-run">{S.abRun}</button>
      {error && <p className="text-danger text-sm" role="alert">{error}</p>}
      {result && <AbTable sides={result} />}
    </fieldset>
  );
}
