/**
 * Sweep: Model Analyzer without reloads, from the dashboard. The server runs the same analysis as
 * `inferscope analyze` on the model the controls target (configs applied live, identical closed-loop
 * traffic, measured until stable, leaders re-measured), streams progress in the stats, and this panel
 * plots the throughput-vs-p99 frontier with the Pareto set, ranks the configs against the latency budget,
 * and applies or saves the best one (through saveConfig for that version, with its diff).
 */
import { useEffect, useState } from 'react';
import type { SweepConfig, SweepProgress } from '@inferscope/core';
import { recommend } from '@inferscope/core/load';
import { live, useApp } from '../store/app-store';
import { versionLabel } from '../store/select';
import { controlTarget } from '../controls/target';
import { sendControl } from '../live/control';
import { ChartCard } from '../charts/ChartCard';
import { SaveConfig } from '../controls/SaveConfig';
import { formatBytes, formatRate, formatUs } from '../charts/format';
import { S } from '../i18n/strings';
import { drawFrontier } from './frontier-chart';
import { DEFAULT_FORM, shortConfig, toRequest, type SweepForm } from './sweep-form';

const currentSweep = (): SweepProgress | undefined => live.stats.last()?.sweep;

function useSweep(): SweepProgress | undefined {
  const [sweep, setSweep] = useState(currentSweep);
  useEffect(() => {
    const t = setInterval(() => setSweep(currentSweep()), 500);
    return () => clearInterval(t);
  }, []);
  return sweep;
}

async function applyConfig(model: string, version: string | undefined, c: SweepConfig): Promise<boolean> {
  const a = await sendControl({ action: 'setDynamicBatching', model, version, max_batch_size: c.max_batch_size, preferred_batch_size: c.preferred_batch_size, max_queue_delay_microseconds: c.max_queue_delay_microseconds });
  if (!a.ok) return false;
  return (await sendControl({ action: 'setInstanceCount', model, version, count: c.instances })).ok;
}

export function SweepPanel() {
  const pick = useApp((s) => s.model);
  useApp((s) => s.structureRev);
  const connected = useApp((s) => s.connection.status === 'connected');
  const canControl = useApp((s) => connected && s.server?.can_control === true);
  const target = controlTarget(pick);
  const sweep = useSweep();
  const [form, setForm] = useState<SweepForm>(DEFAULT_FORM);
  const [error, setError] = useState<string>();
  const [applied, setApplied] = useState<string>();
  const running = sweep?.state === 'running';
  const set = (k: keyof SweepForm) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: typeof DEFAULT_FORM[k] === 'number' ? Number(e.target.value) : e.target.value });

  const start = async () => {
    if (!target) return;
    setError(undefined);
    setApplied(undefined);
    try {
      const ack = await sendControl({ action: 'startSweep', ...toRequest(target.name, target.version, form) });
      if (!ack.ok) setError(ack.error);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  // core's rule, as `inferscope analyze` recommends: the best in budget, else the closest to it and by how much it misses
  const recommendation = sweep?.state === 'done' ? recommend(sweep.results, { latencyBudgetUs: sweep.latency_budget_us }) : undefined;
  const recommended = recommendation?.result;
  const applyRecommended = async () => {
    if (!recommended || !sweep) return;
    if (await applyConfig(sweep.model, sweep.version, recommended.config)) setApplied(shortConfig(recommended.config));
  };
  const field = (label: string, k: keyof SweepForm, testId: string) => (
    <label className="field"><span>{label}</span><input className="input" value={String(form[k])} onChange={set(k)} disabled={running} data-testid={testId} /></label>
  );

  return (
    <section className="card" data-testid="sweep-panel">
      <h3 className="card-title">{S.sweep.title}{target ? ` · ${versionLabel(target)}` : ''}</h3>
      <div className="grid gap-2 md:grid-cols-4">
        {field(S.sweep.instances, 'instances', 'sweep-instances')}
        {field(S.sweep.maxBatch, 'maxBatch', 'sweep-maxbatch')}
        {field(S.sweep.delay, 'delayUs', 'sweep-delay')}
        {field(S.sweep.preferred, 'preferred', 'sweep-preferred')}
        {field(S.sweep.concurrency, 'concurrency', 'sweep-concurrency')}
        {field(S.sweep.budget, 'budgetMs', 'sweep-budget')}
        {field(S.sweep.interval, 'intervalMs', 'sweep-interval')}
        <div className="flex items-end gap-2">
          <button type="button" className="btn btn-primary" disabled={!canControl || !target || running} onClick={() => void start()} data-testid="sweep-start">{S.sweep.start}</button>
          <button type="button" className="btn" disabled={!canControl || !running} onClick={() => void sendControl({ action: 'stopSweep' })} data-testid="sweep-stop">{S.sweep.stop}</button>
        </div>
      </div>
      {error && <p className="text-sm text-danger" role="alert" data-testid="sweep-error">{error}</p>}
      {sweep && (
        <p className="text-sm text-muted" data-testid="sweep-status" data-state={sweep.state}>
          {S.sweep.status(sweep.state, sweep.done, sweep.total, sweep.skipped)}{sweep.current ? ` · ${shortConfig(sweep.current)}` : ''}{sweep.error ? ` · ${sweep.error}` : ''}
        </p>
      )}
      {/* the frontier, then every row at the stage's full width (a 280 px box beside the chart hid most rows) */}
      <div className="grid gap-3 mt-2">
        <ChartCard title={S.sweep.frontier} draw={(ctx, w, h) => drawFrontier(ctx, w, h, currentSweep())} height={240} testId="sweep-frontier" />
        <div className="overflow-x-auto">
          <table className="w-full text-xs" style={{ borderCollapse: 'separate', borderSpacing: '10px 2px' }} data-testid="sweep-table">
            <thead><tr>{S.sweep.columns.map((c) => <th key={c} className="text-left">{c}</th>)}</tr></thead>
            <tbody>
              {(sweep?.results ?? []).map((r) => (
                <tr key={shortConfig(r.config)} data-rank={r.rank ?? ''} data-pareto={r.pareto ? 'yes' : 'no'}>
                  <td>{r.rank ?? '–'}{r.pareto ? ' ◆' : ''}</td>
                  <td>{shortConfig(r.config)}</td>
                  <td>{formatRate(r.throughput_per_s)}</td>
                  <td>{formatUs(r.latency_us.p50)} / {formatUs(r.latency_us.p99)}</td>
                  <td>{r.avg_batch.toFixed(1)}</td>
                  <td>{formatUs(r.queue_us)} / {formatUs(r.compute_us)}</td>
                  <td>{formatBytes(r.memory_bytes)}</td>
                  <td>{r.excluded ?? (r.stable ? '' : S.sweep.unstable)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      {recommendation && recommended && sweep && !recommendation.meets && sweep.latency_budget_us !== undefined && (
        <p className="text-sm mt-2" data-testid="sweep-closest">
          {S.sweep.closest(formatUs(sweep.latency_budget_us), shortConfig(recommended.config), formatUs(recommended.latency_us.p99), formatUs(recommended.latency_us.p99 - sweep.latency_budget_us))}
        </p>
      )}
      {recommendation && recommended && sweep && (
        <div className="mt-2 flex flex-wrap items-start gap-2">
          {recommendation.meets
            ? <button type="button" className="btn" disabled={!canControl} onClick={() => void applyRecommended()} data-testid="sweep-apply-best">{S.sweep.applyBest(shortConfig(recommended.config))}</button>
            : <button type="button" className="btn" disabled={!canControl} onClick={() => void applyRecommended()} data-testid="sweep-apply-closest">{S.sweep.applyClosest(shortConfig(recommended.config))}</button>}
          {applied && <span className="text-sm" data-testid="sweep-applied">{S.sweep.applied(applied)}</span>}
          {applied && sweep.version && <div className="min-w-[16rem]"><SaveConfig model={sweep.model} version={sweep.version} disabled={!canControl} /></div>}
        </div>
      )}
    </section>
  );
}
