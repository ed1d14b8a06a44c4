/**
 * The rate limiter on the State view: each resource (global or per device) with its count, how much is
 * in use, which instances hold it and which wait for it, from the stats message's `rate_limiter`.
 */
import { FlagText } from '../charts/FlagText';
import { useEffect, useState } from 'react';
import type { RateLimiterSnapshot } from '@inferscope/core';
import type { LimitedState } from '@inferscope/core/rate-limiter';
import { live } from '../store/app-store';
import { latestLimiter, limitedLabel } from '../store/rate-limiter-rows';
import { S } from '../i18n/strings';
import { FigureTableHead } from './FigureTable';

/** the limiter's three states in the words the instance timeline uses (running is the instance's busy) */
const stateWord = (s: LimitedState) => (s === 'waiting' ? S.cacheLimiter.waitingForResources : S.instanceStates[s === 'running' ? 'busy' : 'idle']);

export function RateLimiterCard() {
  const [snap, setSnap] = useState<RateLimiterSnapshot | undefined>(() => latestLimiter(live));
  useEffect(() => {
    // stats arrive once a second: 2 Hz keeps React out of the event hot path
    const id = setInterval(() => setSnap(latestLimiter(live)), 500);
    return () => clearInterval(id);
  }, []);
  const T = S.cacheLimiter;
  const names = (ids: string[]) => (ids.length ? ids.map(limitedLabel).join(', ') : T.none);
  return (
    <section className="card" data-testid="rate-limiter-card">
      <h3 className="card-title">{T.limiterTitle}</h3>
      {!snap ? (
        <p className="p-3 text-sm text-muted" data-testid="rate-limiter-off"><FlagText text={T.limiterOff} flag="--rate-limit execution_count" /></p>
      ) : (
        <table className="m-3 text-sm font-mono">
          <FigureTableHead columns={[T.resourceColumn, T.countColumn, T.heldColumn, T.holdersColumn, T.waitersColumn]} />
          <tbody>
            {snap.resources.map((r) => {
              const scope = r.scope === 'GLOBAL' ? T.global : T.device(String(r.scope));
              return (
                <tr key={`${String(r.scope)}/${r.name}`} data-testid={`resource-${r.name}`} data-count={r.count} data-held={r.held} data-holders={r.holders.join(' ')} data-waiting={r.waiting.join(' ')}>
                  <td className="pr-6">{r.name} <span className="text-muted">({scope})</span></td>
                  <td className="pr-6">{r.count}</td>
                  <td className="pr-6">{r.held}</td>
                  <td className="pr-6">{names(r.holders)}</td>
                  <td className="pr-6" style={r.waiting.length ? { color: 'var(--c-warn)' } : undefined}>{names(r.waiting)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {snap && (
        <ul className="px-3 pb-2 text-sm font-mono flex flex-wrap gap-x-6" data-testid="limited-instances">
          {snap.instances.map((i) => (
            <li key={i.id} data-testid={`limited-${i.id}`} data-state={i.state} style={i.state === 'waiting' ? { color: 'var(--c-warn)' } : undefined}>
              {T.instanceLine(limitedLabel(i.id), stateWord(i.state), i.priority, i.executions)}
            </li>
          ))}
        </ul>
      )}
      <p className="px-3 pb-3 text-sm text-muted max-w-5xl">{T.limiterCaption}</p>
    </section>
  );
}
