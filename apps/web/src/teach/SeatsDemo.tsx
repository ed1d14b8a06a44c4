/**
 * The "a conversation keeps its seat" lesson's picture: the slots over time (one lane per slot, a bar per
 * conversation holding it, its id on the bar) and the backlog (a lane per conversation that waited, from
 * its START to its seat), for the strategy and idle timeout the two knobs pick; beside it the verdict
 * computed from the rows of every run (claims.ts 'seats'), whose table stays folded below as on every
 * lesson's stage (claim, knob, picture and verdict fit one 1280x720 screen). Every run is core's simulator
 * with the server's sequence batcher (seats-run.ts), cached per setting. Bars are DOM: their labels follow
 * the page's type scale.
 */
import { useMemo, useState } from 'react';
import { language } from '../i18n/strings';
import { formatUs } from '../charts/format';
import { modelColour } from '../charts/theme';
import { SEATS_DEMO_EN, SEATS_DEMO_ZH } from '../i18n/lesson-seats';
import { claimHolds } from './claims';
import { IDLE_CHOICES_US, runSeats, seatsFigures, STRATEGIES, type Hold, type Strategy } from './seats-run';

const text = () => (language() === 'zh' ? SEATS_DEMO_ZH : SEATS_DEMO_EN);

function Lane(props: { label: string; holds: Hold[]; endUs: number; testid: string; quiet?: { id: string; label: string } }) {
  const pct = (v: number) => `${Math.max(0, Math.min(100, (v / props.endUs) * 100))}%`;
  return (
    <div className="exp-row" data-testid={props.testid}>
      <div className="exp-track" style={{ background: 'var(--c-grid, transparent)' }}>
        {props.holds.map((h, i) => (
          <span key={`${h.id}-${i}`} className="exp-bar text-sm font-mono" data-testid="seats-hold" data-id={h.id} data-from={h.from} data-to={h.to}
            title={`${h.id}: ${formatUs(h.from)} – ${formatUs(h.to)}`}
            style={{ left: pct(h.from), width: `calc(${pct(Math.min(h.to, props.endUs))} - ${pct(h.from)})`, background: modelColour(Number(h.id) - 1), color: 'var(--c-bg)', overflow: 'hidden', paddingLeft: 4 }}>
            {h.id}{props.quiet?.id === h.id ? ` · ${props.quiet.label}` : ''}
          </span>
        ))}
      </div>
      <span className="exp-value text-sm">{props.label}</span>
    </div>
  );
}

export function SeatsDemo() {
  const t = text();
  const [strategy, setStrategy] = useState<Strategy>('direct');
  const [idleUs, setIdle] = useState(IDLE_CHOICES_US[1]!);
  // every row of the table (six small runs, cached): the verdict is computed from them
  const rows = useMemo(() => STRATEGIES.flatMap((s) => IDLE_CHOICES_US.map((i) => runSeats(s, i))), []);
  const { now, short, long, figures } = seatsFigures(rows, strategy, idleUs);
  const holds = claimHolds('seats', figures);
  const endUs = Math.max(...rows.map((r) => r.endUs)) * 1.05;
  const quietHold = now.slots.flatMap((s) => s.holds).find((h) => h.id === '1');
  return (
    <div className="card p-3 mb-2 space-y-3" data-testid="seats-demo" data-strategy={strategy} data-idle={idleUs}
      data-claim={holds ? 'holds' : 'fails'} data-backlog-wait={now.backlogWaitUs} data-nulls={now.nulls}>
      <div className="flex flex-wrap gap-4 items-center text-sm">
        <div role="group" aria-label={t.strategy} className="flex gap-1 items-center">
          <span className="font-semibold mr-1">{t.strategy}</span>
          {STRATEGIES.map((s) => (
            <button key={s} type="button" className="btn" aria-pressed={s === strategy} onClick={() => setStrategy(s)} data-testid={`seats-strategy-${s}`}>{s}</button>
          ))}
        </div>
        <div role="group" aria-label={t.idle} className="flex gap-1 items-center">
          <span className="font-semibold mr-1 font-mono">{t.idle}</span>
          {IDLE_CHOICES_US.map((i) => (
            <button key={i} type="button" className="btn" aria-pressed={i === idleUs} onClick={() => setIdle(i)} data-testid={`seats-idle-${i}`}>{formatUs(i)}</button>
          ))}
        </div>
      </div>
      <div className="grid gap-3 lg:grid-cols-5 items-start">
      <figure className="exp-chart space-y-1 lg:col-span-3" data-testid="seats-picture">
        <div className="exp-bars" role="img" aria-label={`${t.slot('')} / ${t.backlog}`}>
          {now.slots.map((s) => (
            <Lane key={s.name} label={t.slot(s.name.replace(/^.*#/, '#'))} holds={s.holds} endUs={endUs} testid="seats-slot"
              quiet={quietHold && quietHold.to > quietHold.from ? { id: '1', label: t.quiet(formatUs(now.idleHeldUs)) } : undefined} />
          ))}
          {now.backlog.map((h) => (
            <Lane key={`b${h.id}`} label={`${t.backlog} ${h.id}`} holds={[h]} endUs={endUs} testid="seats-backlog" />
          ))}
        </div>
        <figcaption className="text-sm text-muted">{t.axis}: 0 – {formatUs(endUs)}</figcaption>
      </figure>
      <p className="font-semibold lg:col-span-2" data-testid="seats-verdict">
        {t.verdict({
          idle: formatUs(idleUs), strategy, held: formatUs(now.idleHeldUs), wait: formatUs(now.backlogWaitUs),
          waitShort: formatUs(short.backlogWaitUs), waitLong: formatUs(long.backlogWaitUs), short: formatUs(short.idleUs),
          nullsDirect: figures.nullsDirect, nullsOldest: figures.nullsOldest,
        }, holds)}
      </p>
      </div>
      <details data-testid="seats-rows">
        <summary className="text-sm cursor-pointer">{t.rows}</summary>
        <table className="text-sm font-mono" data-testid="seats-table">
          <thead>
            <tr>{[t.table.strategy, t.table.idle, t.table.wait, t.table.done, t.table.nulls, t.table.batches].map((h) => <th key={h} className="text-left pr-4">{h}</th>)}</tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.strategy}${r.idleUs}`} className={r === now ? 'font-bold' : ''} data-testid="seats-row" data-strategy={r.strategy} data-idle={r.idleUs} data-wait={r.backlogWaitUs} data-nulls={r.nulls}>
                <td className="pr-4">{r.strategy}</td><td className="pr-4">{formatUs(r.idleUs)}</td><td className="pr-4">{formatUs(r.backlogWaitUs)}</td>
                <td className="pr-4">{formatUs(r.endUs)}</td><td className="pr-4">{r.nulls}</td><td className="pr-4">{r.batches}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
