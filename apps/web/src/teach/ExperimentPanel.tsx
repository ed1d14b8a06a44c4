/**
 * A lesson's experiment on the main stage: the claim's result as a chart (one table at a time, its rows as
 * bars on one scale, paired rows side by side), the metric as the knob, the row the lesson knob is set to
 * marked, and the verdict built from the same rows. The tables stay below, folded. Runs by itself once the
 * lesson opens (after the first paint) and again on demand. Where the lesson knob stands between the rows
 * (a delay of 1 ms between 0 and 2 ms), a row at its value joins the tables it belongs to.
 */
import { useEffect, useRef, useState } from 'react';
import { onFocusRequest, takeFocus } from './focus';
import { formatRate, formatUs } from '../charts/format';
import { S } from '../i18n/strings';
import { knobRows, runExperiment, type ExperimentId, type ExperimentRow, type ExperimentTable } from './experiments';
import { ExperimentChart } from './ExperimentChart';

export function ExperimentPanel(props: { id: ExperimentId; seed: number; current?: number }) {
  const [ran, setTables] = useState<ExperimentTable[] | null>(null);
  const tables = useKnobRows(props.id, props.seed, ran, props.current);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState(0);
  const start = () => {
    setTables(null);
    setError(null);
    // let the page paint first: the experiment is synchronous and takes a moment
    setTimeout(() => {
      try {
        setTables(runExperiment(props.id, props.seed));
      } catch (err) {
        setError((err as Error).message);
      }
    }, 30);
  };
  useEffect(start, [props.id, props.seed]);
  useEffect(() => setShown(0), [props.id]);
  // "Show me" names a table (exp-<id>): the chart switches to it and comes into view
  const box = useRef<HTMLElement>(null);
  useEffect(() => onFocusRequest((target) => {
    const i = ran?.findIndex((t) => `exp-${t.id}` === target) ?? -1;
    if (i < 0) return false;
    setShown(i);
    box.current?.scrollIntoView({ block: 'start' });
    box.current?.setAttribute('data-focused', target);
    return true;
  }), [ran]);
  useEffect(() => {
    if (ran) takeFocus();
  }, [ran]);
  const table = tables?.[Math.min(shown, tables.length - 1)];
  return (
    <section ref={box} className="card p-2 mb-2 space-y-1 scroll-mt-16" data-testid="experiment" data-experiment={props.id} data-state={tables ? 'done' : 'running'}>
      {!table && <h3 className="text-sm font-semibold">{S.experiment}{S.colon}{S.pending}</h3>}
      {error && <p className="text-danger text-sm" role="alert">{error}</p>}
      {table && tables && (
        <ExperimentChart key={table.id} table={table} current={props.current}>
          {tables.length > 1 && (
            <div className="seg shrink-0" role="tablist" aria-label={S.experiment} data-testid="experiment-tabs">
              {tables.map((t, i) => (
                <button key={t.id} type="button" role="tab" aria-selected={i === shown} className={i === shown ? 'on' : ''} onClick={() => setShown(i)} data-testid={`experiment-tab-${t.id}`}>{i + 1}</button>
              ))}
            </div>
          )}
          <button type="button" className="btn btn-sm shrink-0" onClick={start} data-testid="experiment-run">{S.rerunExperiment}</button>
        </ExperimentChart>
      )}
      {tables && (
        <details className="text-sm" data-testid="experiment-tables">
          <summary className="cursor-pointer text-muted">{S.exp.chart.table}</summary>
          {tables.map((t) => <Table key={t.id} table={t} />)}
        </details>
      )}
    </section>
  );
}

function Table({ table }: { table: ExperimentTable }) {
  const c = S.exp.cols;
  return (
    <div data-testid={`exp-${table.id}`} className="overflow-x-auto">
      <table className="w-full text-xs exp-table">
        <caption className="text-left text-sm font-semibold">{table.title}</caption>
        <thead>
          <tr><th className="text-left">{c.setting}</th><th>{c.throughput}</th><th>{c.batch}</th><th>{c.p50}</th><th>{c.p99}</th><th>{c.busy}</th></tr>
        </thead>
        <tbody>
          {table.rows.map((r, i) => (
            <tr key={i} data-testid={`exp-${table.id}-row`}>
              <td className="text-left">{r.label}{r.source === 'modelled' ? ' *' : ''}</td>
              <td data-col="throughput">{formatRate(r.summary.throughput_per_s)}</td>
              <td data-col="batch">{r.summary.avg_batch_size.toFixed(2)}</td>
              <td data-col="p50">{formatUs(r.summary.latency_us.p50)}</td>
              <td data-col="p99">{formatUs(r.summary.latency_us.p99)}</td>
              <td data-col="busy">{formatUs(r.summary.busy_us_per_request)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="text-sm mt-1" data-testid={`exp-${table.id}-verdict`} data-holds={String(table.holds)}>{table.verdict}</p>
    </div>
  );
}

/**
 * The tables with a row at the lesson knob's value where none has it (experiments.ts knobRows), simulated
 * once per value, a moment after the knob stops (dragging the slider does not run one per step).
 */
function useKnobRows(id: ExperimentId, seed: number, tables: ExperimentTable[] | null, current: number | undefined): ExperimentTable[] | null {
  const cache = useRef(new Map<number, Record<string, ExperimentRow>>());
  const [, setRev] = useState(0);
  useEffect(() => cache.current.clear(), [tables]);
  useEffect(() => {
    if (!tables || current === undefined || cache.current.has(current)) return;
    const h = setTimeout(() => {
      cache.current.set(current, knobRows(id, seed, current));
      setRev((r) => r + 1);
    }, 250);
    return () => clearTimeout(h);
  }, [tables, current, id, seed]);
  if (!tables || current === undefined) return tables;
  const extra = cache.current.get(current) ?? {};
  return tables.map((t) => (extra[t.id] && !t.rows.some((r) => r.setting === current)
    ? { ...t, rows: [...t.rows, extra[t.id]].sort((a, b) => (a.setting ?? 0) - (b.setting ?? 0)) }
    : t));
}
