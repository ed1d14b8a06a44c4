/**
 * Architecture: repositories -> models (versions, backend, state with reason) -> scheduler queues per
 * priority -> instances (busy/idle, current batch) -> devices with memory bars against the budget.
 * The structure renders with React (it changes rarely); counts and busy states follow live data through
 * the frame loop. Clicking a model opens its config.
 */
import { appStore, live, useApp } from '../store/app-store';
import { selectedModels, versionLabel } from '../store/select';
import { Identifier } from '../charts/Identifier';
import { refusalGloss } from '../i18n/server-text';
import type { InstanceLive, ModelLive } from '../store/live-types';
import { useLiveElement, useLiveText } from '../charts/use-live-text';
import { modelColour, priorityColour } from '../charts/theme';
import { formatBytes, formatUs } from '../charts/format';
import { batchingOf, formatDelay } from '../store/config-paths';
import { S } from '../i18n/strings';
import { ConfigDrawer } from './ConfigDrawer';
import { autotuneStatusLine } from '../charts/autotune-marks';
import { pipelineOf } from '../store/pipeline';
import { PipelineCells } from './ArchitecturePipeline';
import { SequenceSlots } from './SequenceSlots';

export function ArchitectureView() {
  useApp((s) => s.structureRev);
  const pick = useApp((s) => s.model);
  const inspect = useApp((s) => s.inspect);
  const models = selectedModels(live, pick);
  if (live.models.size === 0) return <p className="card p-6 text-muted" data-testid="view-architecture">{S.noModels}</p>;
  const repoBytes = (repo: string) => [...live.models.values()].filter((m) => m.repository === repo).reduce((n, m) => n + m.files.reduce((a, f) => a + f.bytes, 0), 0);
  return (
    <div data-testid="view-architecture" className="space-y-3">
      <div className="arch-grid">
        <div className="arch-head">{S.repositories}</div>
        <div className="arch-head">{S.models}</div>
        <div className="arch-head">{S.scheduler}</div>
        <div className="arch-head">{S.instances}</div>
        {models.map((m, i) => (
          <ArchRow key={m.key} m={m} first={i === 0} repoBytes={repoBytes(m.repository)} />
        ))}
      </div>
      <section className="card">
        <h3 className="card-title">{S.devices}</h3>
        <div className="p-3 grid gap-3 md:grid-cols-2">
          {[...live.devices.keys()].map((d) => (
            <DeviceBar key={d} device={d} />
          ))}
          {live.devices.size === 0 && <p className="text-muted">–</p>}
        </div>
      </section>
      <p className="text-sm text-muted">{S.clickModel}</p>
      {inspect && live.models.get(inspect) && <ConfigDrawer m={live.models.get(inspect)!} />}
    </div>
  );
}

function ArchRow(props: { m: ModelLive; first: boolean; repoBytes: number }) {
  const { m } = props;
  const b = batchingOf(m.config, m.instances.size);
  const levels = Math.max(1, b.priorityLevels);
  const pipeline = pipelineOf(m.config);
  return (
    <>
      <div className="arch-cell text-sm">
        <div className="font-mono">{m.repository ? <Identifier text={m.repository} /> : '–'}</div>
        <div className="text-muted">{S.repoSize}{S.colon}{formatBytes(props.repoBytes)}</div>
      </div>
      <button
        type="button"
        className="arch-cell text-left model-card"
        style={{ borderLeftColor: modelColour(m.colour) }}
        onClick={() => appStore.setState({ inspect: m.key })}
        data-testid={`model-${m.name}`}
        aria-label={`${m.name} ${S.versions} ${m.version}: ${S.modelStates[m.state] ?? m.state}`}
      >
        <div className="flex items-center gap-2">
          <span className="font-semibold min-w-0"><Identifier text={versionLabel(m)} /></span>
          <span className={`badge state-${m.state.toLowerCase()}`}>{S.modelStates[m.state] ?? m.state}</span>
        </div>
        <div className="text-sm text-muted">
          {S.versions} {m.version} · {S.backend} {m.backend ? <Identifier text={m.backend} /> : '–'} · {S.platform} {m.platform ? <Identifier text={m.platform} /> : '–'}
        </div>
        {m.reason && refusalGloss(m.reason) && <div className="text-sm text-danger">{refusalGloss(m.reason)}</div>}
        {m.reason && <div className="text-sm text-danger" data-verbatim>{m.reason}</div>}
        {m.autotune?.enabled && (
          <div className={`text-sm ${m.autotune.status.state === 'not_met' ? 'text-warn' : 'text-ok'}`} data-testid={`autotuned-${m.name}`}>{autotuneStatusLine(m.autotune)}</div>
        )}
        <div className="text-sm">
          max_batch_size {b.maxBatchSize} · {pipeline ? S.pipeline.steps(pipeline.steps.length) : b.dynamic ? `${S.configSummary.delay(formatDelay(b.maxQueueDelayUs))}${b.preferred.length ? ` · ${S.configSummary.preferred(b.preferred.join(', '))}` : ''}` : S.configSummary.none}
        </div>
      </button>
      {pipeline ? <PipelineCells m={m} pipeline={pipeline} /> : <QueuesAndInstances m={m} levels={levels} />}
    </>
  );
}

function QueuesAndInstances(props: { m: ModelLive; levels: number }) {
  const { m, levels } = props;
  return (
    <>
      <div className="arch-cell space-y-1">
        {Array.from({ length: levels }, (_, k) => (
          <QueueBar key={k} m={m} level={k + 1} />
        ))}
      </div>
      <div className="arch-cell flex flex-wrap gap-2 content-start">
        {[...m.instances.values()].map((inst) => (
          <InstanceChip key={inst.name} m={m} inst={inst} />
        ))}
        {m.instances.size === 0 && <span className="text-muted text-sm">–</span>}
        {m.sequence && <div className="w-full"><SequenceSlots modelKey={m.key} /></div>}
      </div>
    </>
  );
}

function QueueBar(props: { m: ModelLive; level: number }) {
  const ref = useLiveElement<HTMLDivElement>((el) => {
    const n = props.m.queued.get(props.level) ?? 0;
    const fill = el.firstElementChild as HTMLElement;
    const label = el.lastElementChild as HTMLElement;
    fill.style.width = `${Math.min(100, n * 4)}%`;
    const t = `P${props.level}: ${n} ${S.waiting}`;
    if (label.textContent !== t) label.textContent = t;
  });
  return (
    <div ref={ref} className="queue-bar" data-testid={`queue-${props.m.name}-${props.level}`}>
      <div className="queue-fill" style={{ background: priorityColour(props.level) }} />
      <span className="queue-label">P{props.level}</span>
    </div>
  );
}

function InstanceChip(props: { m: ModelLive; inst: InstanceLive }) {
  const ref = useLiveElement<HTMLDivElement>((el) => {
    const inst = props.m.instances.get(props.inst.name) ?? props.inst;
    const cls = `inst-chip inst-${inst.state}`;
    if (el.className !== cls) el.className = cls;
    const t = inst.state === 'busy' ? S.busyWith(inst.batchSize ?? 0, inst.nextSize) : inst.state === 'idle' ? S.idle : (S.instanceStates[inst.state] ?? inst.state);
    const status = el.querySelector('.inst-status');
    if (status && status.textContent !== t) status.textContent = t;
  }, 100);
  return (
    <div ref={ref} className={`inst-chip inst-${props.inst.state}`} title={props.inst.reason} data-testid={`instance-${props.inst.name}`}>
      <div className="font-mono text-xs"><Identifier text={props.inst.name} /></div>
      <div className="text-xs text-muted">{props.inst.kind} · {props.inst.device}</div>
      <div className="inst-status text-sm font-semibold">{S.instanceStates[props.inst.state] ?? props.inst.state}</div>
    </div>
  );
}

function DeviceBar(props: { device: string }) {
  const ref = useLiveElement<HTMLDivElement>((el) => {
    const d = live.devices.get(props.device);
    if (!d) return;
    const bar = el.querySelector('.mem-fill') as HTMLElement;
    const label = el.querySelector('.mem-label') as HTMLElement;
    const pct = d.budget_bytes > 0 ? (100 * d.used_bytes) / d.budget_bytes : 0;
    bar.style.width = `${d.budget_bytes > 0 ? Math.min(100, pct) : 100}%`;
    bar.className = `mem-fill ${pct > 90 ? 'bg-danger' : pct > 70 ? 'bg-warn' : 'bg-accent'}`;
    const measured = d.entries.some((e) => e.source === 'measured');
    const t = `${formatBytes(d.used_bytes)} / ${d.budget_bytes > 0 ? `${formatBytes(d.budget_bytes)} ${S.budget}` : S.noBudget} · ${measured ? S.measured : S.modelled}`;
    if (label.textContent !== t) label.textContent = t;
  }, 250);
  const entries = useLiveText<HTMLDivElement>(() =>
    (live.devices.get(props.device)?.entries ?? []).map((e) => `${e.instance || e.model} ${formatBytes(e.bytes)}${e.source === 'measured' ? '' : '*'}`).join(' · '),
  );
  return (
    <div ref={ref} data-testid={`device-${props.device}`}>
      <div className="flex justify-between text-sm">
        <span className="font-semibold">{props.device}</span>
        <span className="mem-label text-muted" />
      </div>
      <div className="mem-track">
        <div className="mem-fill bg-accent" />
      </div>
      <div ref={entries} className="text-xs text-muted mt-1" />
    </div>
  );
}
