/**
 * Which protocol requests came in on, per model version: HTTP, gRPC, or in process (load generator,
 * ensemble steps). Figures come from the server's per-second aggregates (`arrivals`, never sampled), so
 * they are exact under load. `ProtocolCard` is the Performance panel (totals since the server started, and rates);
 * `ProtocolLine` is the Data view's one-line form beside the shape legend of the request dots.
 */
import { useEffect, useState } from 'react';
import { REQUEST_SOURCES, type ModelAggregate } from '@inferscope/core';
import { appStore, live } from '../store/app-store';
import { selectedModels, versionLabel } from '../store/select';
import { formatRate } from '../charts/format';
import { useLiveText } from '../charts/use-live-text';
import { S } from '../i18n/strings';

type Row = { key: string; label: string; arrivals: ModelAggregate['arrivals'] };

function rows(): Row[] {
  return selectedModels(live, appStore.getState().model).map((m) => ({ key: m.key, label: versionLabel(m), arrivals: live.latestAggregate(m.key)?.arrivals }));
}

export function ProtocolCard() {
  const [shown, setShown] = useState<Row[]>([]);
  useEffect(() => {
    // aggregates arrive once a second: 2 Hz keeps React out of the event hot path (as LittleCard)
    const tick = () => setShown(rows());
    tick();
    const id = setInterval(tick, 500);
    return () => clearInterval(id);
  }, []);
  return (
    <section className="card" data-testid="protocol-card">
      <h3 className="card-title">{S.protocols.title}</h3>
      <table className="m-3 text-sm font-mono">
        <thead>
          <tr className="text-muted text-left">
            <th className="pr-6 font-normal">{S.protocols.modelColumn}</th>
            {/* HTTP and gRPC are protocol names in every language (data-verbatim: not prose to translate) */}
            {REQUEST_SOURCES.map((src) => <th key={src} className="pr-6 font-normal" data-verbatim={src === 'in_process' ? undefined : ''}>{S.protocols.names[src]}</th>)}
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.key} data-testid={`protocol-row-${r.key}`}>
              <td className="pr-6">{r.label}</td>
              {REQUEST_SOURCES.map((src) => {
                const a = r.arrivals?.[src];
                return (
                  <td key={src} className="pr-6" data-testid={`protocol-${r.key}-${src}`} data-total={a?.total ?? 0}>
                    {a ? S.protocols.cell(String(a.total), formatRate(a.per_s)) : '–'}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="px-3 pb-3 text-sm text-muted max-w-5xl">{S.protocols.caption}</p>
    </section>
  );
}

export function ProtocolLine() {
  const ref = useLiveText(() =>
    rows()
      .map((r) => {
        const parts = REQUEST_SOURCES.filter((src) => (r.arrivals?.[src].per_s ?? 0) > 0).map((src) => S.protocols.rate(S.protocols.names[src], formatRate(r.arrivals![src].per_s)));
        return parts.length ? `${r.label}: ${parts.join(' · ')}` : '';
      })
      .filter(Boolean)
      .join('   '),
  );
  return (
    <div className="flex flex-wrap gap-3 text-sm" data-testid="protocol-line">
      <span>{S.protocols.legend}</span>
      <span ref={ref} className="font-mono text-muted" data-testid="protocol-rates" />
    </div>
  );
}
