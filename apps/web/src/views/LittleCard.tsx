/** Little's law with live numbers: L = λ × W, next to the in-flight count the server measures. */
import { useEffect, useState } from 'react';
import { appStore, live } from '../store/app-store';
import { statsKey } from '../store/select';
import { combine, littlesLaw } from '../charts/scales';
import { formatRate, formatUs } from '../charts/format';
import { S } from '../i18n/strings';

export function LittleCard() {
  const [text, setText] = useState<{ line: string; ratio: number } | null>(null);
  useEffect(() => {
    // Stats arrive once a second: polling at 2 Hz keeps React out of the event hot path.
    const id = setInterval(() => {
      // The latest aggregate that saw traffic (a quiet second says nothing about Little's law).
      const key = statsKey(live, appStore.getState().model);
      let p;
      for (let i = live.stats.length - 1; i >= Math.max(0, live.stats.length - 3) && !p?.requestsPerS; i--) p = combine(live.stats.at(i)!, key);
      if (!p || p.requestsPerS === 0) return setText(null);
      const l = littlesLaw(p);
      setText({ line: S.littleExplain(formatRate(p.requestsPerS), formatUs(p.meanUs), l.predicted.toFixed(2), l.measured.toFixed(2)), ratio: l.ratio });
    }, 500);
    return () => clearInterval(id);
  }, []);
  return (
    <section className="card" data-testid="little-card">
      <h3 className="card-title">{S.littlesLaw}</h3>
      {text ? (
        <div className="p-3">
          <p className="font-mono text-lg">L = λ × W</p>
          <p className="mt-2">{text.line}</p>
        </div>
      ) : (
        <p className="p-3 text-muted">{S.waitingForStats}</p>
      )}
    </section>
  );
}
