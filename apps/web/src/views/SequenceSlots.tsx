/**
 * A stateful model's seats: per instance, each slot with the correlation id holding it (or free), the
 * backlog of ids waiting beside them, and the implicit state live sequences hold. The view comes with the
 * snapshot and then with every `sequence.slots` event (live-model.ts keeps it on the model); the frame
 * loop looks at it a few times a second and React re-renders only when it changed, so a busy server costs
 * nothing here between a sequence's START and END.
 */
import { useState } from 'react';
import { sequenceViewKey, type SequenceView } from '@inferscope/core';
import { live } from '../store/app-store';
import type { ModelLive } from '../store/live-types';
import { useLiveElement } from '../charts/use-live-text';
import { formatBytes } from '../charts/format';
import { S } from '../i18n/strings';

/** the selected models that run the sequence batcher (they have a view) */
export function sequenceModels(models: ModelLive[]): ModelLive[] {
  return models.filter((m) => m.sequence !== undefined);
}

/** A card with every selected stateful model's slots; nothing when none is selected. */
export function SequenceSlotsCard(props: { models: ModelLive[] }) {
  const models = sequenceModels(props.models);
  if (models.length === 0) return null;
  return (
    <section className="card lg:col-span-2" data-testid="sequence-slots">
      <h3 className="card-title">{S.seqSlotsTitle}</h3>
      <div className="p-3 space-y-3">
        {models.map((m) => (
          <SequenceSlots key={m.key} modelKey={m.key} />
        ))}
      </div>
    </section>
  );
}

/** One model's slots, kept live. Also used inside the architecture view's instance cell. */
export function SequenceSlots(props: { modelKey: string; compact?: boolean }) {
  const [view, setView] = useState<SequenceView | undefined>(() => live.models.get(props.modelKey)?.sequence);
  const [key, setKey] = useState(() => (view ? sequenceViewKey(view) : ''));
  const ref = useLiveElement<HTMLDivElement>(() => {
    const now = live.models.get(props.modelKey)?.sequence;
    const k = now ? sequenceViewKey(now) : '';
    if (k !== key) {
      setKey(k);
      setView(now);
    }
  }, 200);
  const m = live.models.get(props.modelKey);
  return (
    <div ref={ref} data-testid="sequence-model" data-model={m?.name} className="text-sm">
      {view && <SlotsBody name={m?.name ?? props.modelKey} view={view} compact={props.compact} />}
    </div>
  );
}

function SlotsBody(props: { name: string; view: SequenceView; compact?: boolean }) {
  const { view } = props;
  return (
    <div className="space-y-1">
      {!props.compact && (
        <p className="font-mono">
          {props.name} · {S.seqStrategy(view.strategy)} ·{' '}
          <span data-testid="sequence-state-memory" data-bytes={view.state_memory.bytes} data-sequences={view.state_memory.sequences}>
            {S.seqStateMemory(view.state_memory.sequences, formatBytes(view.state_memory.bytes))}
          </span>
        </p>
      )}
      {view.instances.map((inst) => (
        <div key={inst.instance} className="flex flex-wrap items-center gap-1" data-testid="sequence-instance" data-instance={inst.instance}>
          {!props.compact && <span className="font-mono text-muted mr-2">{inst.instance}</span>}
          {inst.slots.map((s) => (
            <span
              key={s.slot}
              data-testid="sequence-slot"
              data-instance={inst.instance}
              data-slot={s.slot}
              data-holder={s.sequence ? s.sequence.id : ''}
              data-holder-type={s.sequence?.type ?? ''}
              className={`rounded border px-1.5 py-0.5 font-mono ${s.sequence ? '' : 'text-muted'}`}
              title={s.sequence ? `${s.sequence.type} ${s.sequence.id}` : S.seqFree}
            >
              #{s.slot} {s.sequence ? (s.sequence.type === 'STRING' ? `"${s.sequence.id}"` : s.sequence.id) : S.seqFree}
            </span>
          ))}
        </div>
      ))}
      <div className="flex flex-wrap items-center gap-1" data-testid="sequence-backlog">
        <span className="text-muted mr-2">{S.seqBacklog}:</span>
        {view.backlog.length === 0 && <span className="text-muted">{S.seqBacklogEmpty}</span>}
        {view.backlog.map((b) => (
          <span key={`${b.sequence.type}${b.sequence.id}`} className="rounded border px-1.5 py-0.5 font-mono" data-testid="sequence-waiting" data-holder={b.sequence.id} data-requests={b.requests}>
            {b.sequence.type === 'STRING' ? `"${b.sequence.id}"` : b.sequence.id} ({S.seqWaiting(b.requests)})
          </span>
        ))}
        {view.backlog_total > view.backlog.length && <span className="text-muted" data-testid="sequence-waiting-more">{S.seqMore(view.backlog_total - view.backlog.length)}</span>}
      </div>
    </div>
  );
}
