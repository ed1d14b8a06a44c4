/**
 * Live Controls for the response cache and the rate limiter (issue 54): the selected version's cache on or
 * off (`setResponseCache`), its model's rate-limiter priority (`setRateLimitPriority`) and each resource's
 * count (`setResourceCount`). The server validates and applies them; a refusal (no cache on this server, a
 * sequence model, a count below a need) is written in the acknowledgement log in the server's words.
 * The cache's switch follows the model's live config; the limiter's figures follow the latest stats.
 */
import { FlagText } from '../charts/FlagText';
import { useEffect, useState } from 'react';
import type { RateLimiterSnapshot } from '@inferscope/core';
import { live } from '../store/app-store';
import type { ModelLive } from '../store/live-types';
import { sendControl } from '../live/control';
import { latestLimiter } from '../store/rate-limiter-rows';
import { S } from '../i18n/strings';

export function CacheLimiterControls(props: { model: ModelLive; disabled: boolean }) {
  const m = props.model;
  const T = S.cacheLimiter;
  const cacheOn = m.config.response_cache?.enable === true;
  const [limiter, setLimiter] = useState<RateLimiterSnapshot | undefined>(() => latestLimiter(live));
  useEffect(() => {
    const id = setInterval(() => setLimiter(latestLimiter(live)), 1000);
    return () => clearInterval(id);
  }, []);
  const mine = limiter?.instances.find((i) => i.model === m.name);
  const [priority, setPriority] = useState('');
  const [counts, setCounts] = useState<Record<string, string>>({});
  useEffect(() => setPriority(mine ? String(mine.priority) : ''), [m.key, mine?.priority]);
  const hasCache = live.stats.last()?.response_cache !== undefined;

  return (
    <div className="field" data-testid="cache-limiter-controls">
      <label className="flex items-center gap-1 text-sm">
        <input
          type="checkbox" checked={cacheOn} disabled={props.disabled || !hasCache} data-testid="cache-toggle"
          onChange={(e) => void sendControl({ action: 'setResponseCache', model: m.name, version: m.version, enabled: e.target.checked })}
        />
        {T.cacheToggle}
      </label>
      {!hasCache && <p className="text-xs text-muted"><FlagText text={T.cacheNone} flag="--cache-config local,size=N" /></p>}
      {limiter && mine && (
        <span className="flex items-center gap-2">
          <span className="font-mono text-xs">{T.priorityLabel}</span>
          <input type="number" className="input flex-1" min={1} step={1} value={priority} disabled={props.disabled} data-testid="limiter-priority"
            onChange={(e) => setPriority(e.target.value)} aria-label={T.priorityLabel} />
          <button type="button" className="btn" disabled={props.disabled} data-testid="limiter-priority-apply"
            onClick={() => void sendControl({ action: 'setRateLimitPriority', model: m.name, priority: Number(priority) })}>{S.apply}</button>
        </span>
      )}
      {limiter?.resources.map((r) => {
        const key = `${String(r.scope)}/${r.name}`;
        const device = r.scope === 'GLOBAL' ? undefined : r.scope;
        return (
          <span key={key} className="flex items-center gap-2">
            <span className="font-mono text-xs">{T.countLabel(r.name, r.scope === 'GLOBAL' ? T.global : T.device(String(r.scope)))}</span>
            <input type="number" className="input flex-1" min={0} step={1} value={counts[key] ?? String(r.count)} disabled={props.disabled} data-testid={`resource-count-${r.name}`}
              onChange={(e) => setCounts({ ...counts, [key]: e.target.value })} aria-label={r.name} />
            <button type="button" className="btn" disabled={props.disabled} data-testid={`resource-count-apply-${r.name}`}
              onClick={() => void sendControl({ action: 'setResourceCount', resource: r.name, count: Number(counts[key] ?? r.count), ...(device === undefined ? {} : { device }) })}>{S.apply}</button>
          </span>
        );
      })}
    </div>
  );
}
