/**
 * The fleet view (`/?fleet=1` on the balancer of `inferscope fleet`): per-replica throughput, queue depth,
 * batch size, p99 and memory with the fleet's totals, and per-replica charts of throughput and p99; a replica's own four views one click away
 * (`/?replica=NAME`, whose live socket goes to that replica); a live control applied to one replica or all.
 */
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { formatBytes, formatRate, formatUs } from '../charts/format';
import { S } from '../i18n/strings';
import { connectFleet, fleetStore, type FleetConnections, type FleetDescription } from './fleet-connections';
import { fleetTotals, replicaRow, type FleetRow } from './fleet-rows';
import { FleetCharts } from './FleetCharts';

export function FleetPage() {
  const [error, setError] = useState<string | null>(null);
  const [token, setToken] = useState('');
  const conn = useRef<FleetConnections | null>(null);
  const replicas = useStore(fleetStore, (s) => s.replicas);

  useEffect(() => {
    let closed = false;
    fetch('/fleet.json')
      .then((r) => (r.ok ? (r.json() as Promise<FleetDescription>) : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then((d) => {
        if (!closed) conn.current = connectFleet(d, token || undefined);
      })
      .catch((e: Error) => setError(e.message));
    return () => {
      closed = true;
      conn.current?.close();
    };
  }, [token]);

  const rows = replicas.map(replicaRow);
  const totals = fleetTotals(rows);
  const peak = Math.max(1, ...rows.map((r) => r.inferencesPerS));
  const F = S.fleet;
  return (
    <div className="app p-4 space-y-3" data-testid="fleet-page">
      <h1 className="text-lg font-semibold">{S.appName} · {F.title} <span className="text-sm text-muted font-normal">{F.subtitle}</span></h1>
      {error && <div className="note">{F.notAFleet} {error}</div>}
      <div className="card overflow-auto">
        <table className="w-full text-sm" data-testid="fleet-table">
          <thead>
            <tr className="text-left text-muted">
              {[F.replica, F.status, F.inferencesPerS, F.requestsPerS, F.queue, F.avgBatch, F.p99, F.memory, ''].map((h, i) => (
                <th key={i} className="px-3 py-2 font-medium">{h}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => <ReplicaRow key={r.name} row={r} peak={peak} />)}
            <tr className="font-semibold border-t" data-testid="fleet-total">
              <td className="px-3 py-2">{F.total(totals.up, totals.replicas)}</td>
              <td />
              <td className="px-3 py-2 tabular-nums">{formatRate(totals.inferencesPerS)}</td>
              <td className="px-3 py-2 tabular-nums">{formatRate(totals.requestsPerS)}</td>
              <td className="px-3 py-2 tabular-nums">{totals.queueDepth}</td>
              <td className="px-3 py-2 tabular-nums">{totals.avgBatch.toFixed(1)}</td>
              <td className="px-3 py-2 tabular-nums">{formatUs(totals.p99Us)}</td>
              <td className="px-3 py-2 tabular-nums">{formatBytes(totals.memoryBytes)}</td>
              <td />
            </tr>
          </tbody>
        </table>
      </div>
      <FleetCharts />
      <FleetControl rows={rows} models={[...new Set(replicas.flatMap((r) => r.models.map((m) => m.model)))].sort()}
        send={(names, msg) => conn.current?.control(names, msg) ?? Promise.resolve([])} token={token} onToken={setToken} />
    </div>
  );
}

function ReplicaRow({ row, peak }: { row: FleetRow; peak: number }) {
  return (
    <tr data-testid={`fleet-row-${row.name}`} data-status={row.status}>
      <td className="px-3 py-2 font-mono">{row.name}</td>
      <td className="px-3 py-2"><span className={`dot dot-${row.status}`} /> {S.fleet.statuses[row.status]}</td>
      <td className="px-3 py-2 tabular-nums" data-testid="fleet-inferences">
        <div className="queue-bar" style={{ minWidth: '8rem' }}>
          <div className="queue-fill" style={{ width: `${(100 * row.inferencesPerS) / peak}%`, background: 'var(--c-accent)' }} />
          <span className="queue-label">{formatRate(row.inferencesPerS)}</span>
        </div>
      </td>
      <td className="px-3 py-2 tabular-nums">{formatRate(row.requestsPerS)}</td>
      <td className="px-3 py-2 tabular-nums">{row.queueDepth}</td>
      <td className="px-3 py-2 tabular-nums">{row.avgBatch.toFixed(1)}</td>
      <td className="px-3 py-2 tabular-nums">{formatUs(row.p99Us)}</td>
      <td className="px-3 py-2 tabular-nums">{formatBytes(row.memoryBytes)}</td>
      <td className="px-3 py-2"><a className="btn btn-sm" href={`/?replica=${encodeURIComponent(row.name)}`}>{S.fleet.open}</a></td>
    </tr>
  );
}

type Send = (names: string[], msg: Parameters<FleetConnections['control']>[1]) => ReturnType<FleetConnections['control']>;

function FleetControl({ rows, models, send, token, onToken }: { rows: FleetRow[]; models: string[]; send: Send; token: string; onToken(t: string): void }) {
  const F = S.fleet;
  const [model, setModel] = useState('');
  const [target, setTarget] = useState('*');
  const [delay, setDelay] = useState('2000');
  const [answers, setAnswers] = useState<string[]>([]);
  const chosen = model || models[0] || '';
  const apply = async () => {
    const names = target === '*' ? rows.map((r) => r.name) : [target];
    const res = await send(names, { action: 'setDynamicBatching', model: chosen, max_queue_delay_microseconds: Number(delay) });
    setAnswers(res.map((r) => (r.ack.ok ? F.applied(r.name) : F.refused(r.name, r.ack.error))));
  };
  return (
    <div className="card p-3 space-y-2 max-w-3xl">
      <div className="card-title px-0">{F.controlTitle}</div>
      <div className="flex flex-wrap gap-2 items-end">
        <select className="input" aria-label={S.model} value={chosen} onChange={(e) => setModel(e.target.value)}>
          {models.map((m) => <option key={m} value={m}>{m}</option>)}
        </select>
        <input className="input w-28" aria-label="max_queue_delay_microseconds" inputMode="numeric" value={delay} onChange={(e) => setDelay(e.target.value)} />
        <label className="field">{F.target}
          <select className="input" value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="*">{F.allReplicas}</option>
            {rows.map((r) => <option key={r.name} value={r.name}>{r.name}</option>)}
          </select>
        </label>
        <input className="input w-40" type="password" placeholder={F.token} aria-label={F.token} defaultValue={token} onBlur={(e) => onToken(e.target.value)} />
        <button className="btn btn-primary" onClick={apply} disabled={!chosen} data-testid="fleet-apply">{F.apply}</button>
      </div>
      <ul className="text-sm" data-testid="fleet-answers">{answers.map((a, i) => <li key={i}>{a}</li>)}</ul>
    </div>
  );
}
