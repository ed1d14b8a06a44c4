/** Recent model/instance state changes and config changes, refreshed twice a second. */
import { useEffect, useState } from 'react';
import { live } from '../store/app-store';
import { formatUs } from '../charts/format';
import { S } from '../i18n/strings';
import type { ConfigLogEntry, StateChange } from '../store/live-types';

export function ChangeLog() {
  const [rows, setRows] = useState<{ states: StateChange[]; configs: ConfigLogEntry[]; now: number }>({ states: [], configs: [], now: 0 });
  useEffect(() => {
    const id = setInterval(() => setRows({ states: live.stateLog.toArray().slice(-12).reverse(), configs: live.configLog.toArray().slice(-12).reverse(), now: live.now }), 500);
    return () => clearInterval(id);
  }, []);
  const ago = (t: number) => S.ago(formatUs(Math.max(0, rows.now - t)));
  return (
    <>
      <section className="card" data-testid="state-log">
        <h3 className="card-title">{S.stateChanges}</h3>
        <ul className="px-3 pb-3 text-sm space-y-1">
          {rows.states.length === 0 && <li className="text-muted">{S.noStateChanges}</li>}
          {rows.states.map((r, i) => (
            <li key={i} className="flex flex-wrap gap-x-2">
              <span className="text-muted w-24 shrink-0">{ago(r.t)}</span>
              <span className="font-mono">{r.instance ?? r.modelKey}</span>
              <span className={`badge state-${r.state.toLowerCase()}`}>{S.instanceStates[r.state] ?? r.state}</span>
              {r.reason && <span className="text-muted truncate">{r.reason}</span>}
            </li>
          ))}
        </ul>
      </section>
      <section className="card" data-testid="config-log">
        <h3 className="card-title">{S.configChanges}</h3>
        <ul className="px-3 pb-3 text-sm space-y-1">
          {rows.configs.length === 0 && <li className="text-muted">{S.noConfigChanges}</li>}
          {rows.configs.map((r, i) => (
            <li key={i}>
              <span className="text-muted mr-2">{ago(r.t)}</span>
              <span className="font-mono">{r.modelKey}</span> <span className="text-muted">{S.changedBy} <span className="font-mono" data-verbatim>{r.by}</span></span>
              {r.changes.map((c) => (
                <div key={c.path} className="font-mono pl-4">
                  {c.path}: <span className="line-through text-muted">{JSON.stringify(c.old)}</span> → <b>{JSON.stringify(c.new)}</b>
                </div>
              ))}
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
