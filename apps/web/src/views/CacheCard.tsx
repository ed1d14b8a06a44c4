/**
 * The response cache on the Performance view: each selected model's hits, misses and hit rate (the
 * aggregates' running `cache` counts, sent only for a version that enables the cache) and the one shared
 * buffer's fill (the stats message's `response_cache`). Both come from the per-second stats, never
 * sampled, so they are exact under load.
 */
import { FlagText } from '../charts/FlagText';
import { useEffect, useState } from 'react';
import type { ModelAggregate, ResponseCacheFigures } from '@inferscope/core';
import { appStore, live } from '../store/app-store';
import { selectedModels, versionLabel } from '../store/select';
import { formatBytes } from '../charts/format';
import { S } from '../i18n/strings';
import { FigureTableHead } from './FigureTable';

type Row = { key: string; label: string; cache: ModelAggregate['cache'] };

/** hits / (hits + misses), or undefined before the first lookup (a rate of nothing is not 0%) */
export function hitRate(c: { hits: number; misses: number }): number | undefined {
  const n = c.hits + c.misses;
  return n === 0 ? undefined : c.hits / n;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function read(): { rows: Row[]; fill: ResponseCacheFigures | undefined } {
  const rows = selectedModels(live, appStore.getState().model).map((m) => ({ key: m.key, label: versionLabel(m), cache: live.latestAggregate(m.key)?.cache }));
  return { rows, fill: live.stats.last()?.response_cache };
}

export function CacheCard() {
  const [shown, setShown] = useState(read);
  useEffect(() => {
    // stats arrive once a second: 2 Hz keeps React out of the event hot path (as ProtocolCard)
    const id = setInterval(() => setShown(read()), 500);
    return () => clearInterval(id);
  }, []);
  const T = S.cacheLimiter;
  const { rows, fill } = shown;
  return (
    <section className="card" data-testid="cache-card">
      <h3 className="card-title">{T.cacheTitle}</h3>
      {fill ? (
        <p className="px-3 pt-2 text-sm font-mono" data-testid="cache-fill" data-bytes={fill.bytes} data-capacity={fill.capacity} data-entries={fill.entries}>
          {T.cacheFill(formatBytes(fill.bytes), formatBytes(fill.capacity), pct(fill.utilization), fill.entries, fill.evictions)}
        </p>
      ) : (
        <p className="px-3 pt-2 text-sm text-muted" data-testid="cache-none"><FlagText text={T.cacheNone} flag="--cache-config local,size=N" /></p>
      )}
      <table className="m-3 text-sm font-mono">
        <FigureTableHead columns={[T.cacheModelColumn, T.cacheHitsColumn, T.cacheMissesColumn, T.cacheHitRateColumn]} />
        <tbody>
          {rows.map((r) => {
            const rate = r.cache ? hitRate(r.cache) : undefined;
            return (
              <tr key={r.key} data-testid={`cache-row-${r.key}`} data-hits={r.cache?.hits} data-misses={r.cache?.misses}>
                <td className="pr-6">{r.label}</td>
                {r.cache ? (
                  <>
                    <td className="pr-6">{r.cache.hits}</td>
                    <td className="pr-6">{r.cache.misses}</td>
                    <td className="pr-6" data-testid={`cache-hit-rate-${r.key}`}>{rate === undefined ? T.none : pct(rate)}</td>
                  </>
                ) : (
                  <td className="pr-6 text-muted" colSpan={3}>{T.cacheNotEnabled}</td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="px-3 pb-3 text-sm text-muted max-w-5xl">{T.cacheCaption}</p>
    </section>
  );
}
