/**
 * The call chain of a request a model made (a BLS call, and the ensemble steps of a BLS call to an
 * ensemble): the requests above it, each with the (model, version, instance) that runs it. It is how
 * InferScope refuses two things Triton leaves to hang:
 *
 * - depth: a chain longer than MAX_BLS_DEPTH is refused (bls-calls.ts), whatever path the call came by
 *   (execute(), a decoupled model's response thread, an ensemble in between);
 * - deadlock: a request that could only run on instances its own chain holds would wait for ever (the
 *   holders wait for its answer). ModelManager.infer refuses it at once, naming the chain, and takes it
 *   out of the queue with the same error if a live change leaves it so later (watchChain).
 *
 * A link `held` while its request's execute() has not returned: the instance is busy with it (Triton's
 * python backend runs one execute() at a time per instance). A decoupled model's request whose execute()
 * returned no longer holds its instance, so a BLS call from its response thread is refused only when
 * the chain above still holds every instance the call could use.
 */
import { InferError } from '@inferscope/core';
import type { EventBus, InstanceSnapshot } from '@inferscope/core';
import type { QueueWatch } from './cancellable';

export interface ChainLink {
  model: string;
  version: string;
  /** the instance running the calling request */
  instance: string;
  /** true until the request's execute() returned (it then no longer holds `instance`) */
  held: boolean;
}

export type CallChain = readonly ChainLink[];

/** The payload of a request made inside another: the chain above it (absent for a client's request). */
export interface ChainedPayload {
  callChain?: CallChain;
}

/** Instance states that will never run another request: the rest may take one, now or later. */
const GONE: ReadonlySet<InstanceSnapshot['state']> = new Set(['draining', 'stopped']);

/** `a -> b -> a`: the chain's models and the one it calls now. */
export function describeChain(chain: CallChain, model: string): string {
  return [...chain.map((l) => l.model), model].join(' -> ');
}

/**
 * The error for a request of `chain` to (model, version) whose every instance that could take it is held
 * by that chain, or undefined when some instance is free of it (or the model has none: an ensemble).
 * `instances` is the model's live set, read at the call, so a live instance-count change counts.
 */
export function chainDeadlock(chain: CallChain, model: string, version: string, instances: readonly InstanceSnapshot[]): InferError | undefined {
  if (chain.length === 0) return undefined;
  const usable = instances.filter((i) => !GONE.has(i.state));
  if (usable.length === 0) return undefined;
  const held = new Set<string>();
  for (const l of chain) if (l.held && l.model === model && l.version === version) held.add(l.instance);
  if (!usable.every((i) => held.has(i.name))) return undefined;
  const n = usable.length;
  const whose = n === 1 ? '1 instance and it is' : `${n} instances and all are`;
  return new InferError('UNAVAILABLE', `BLS deadlock: ${describeChain(chain, model)}: model '${model}' has ${whose} held by this call's own chain`);
}

/**
 * While a chained request waits in the queue of (model, version): when an instance of it drains, stops or
 * fails (a live instance-count change, an unload), the check is made again, and a request that could now
 * only run on instances its chain holds is taken out with the deadlock error instead of waiting for ever.
 * The check runs after the event's emission, outside the scheduler's own call.
 */
export function watchChain(bus: EventBus, chain: CallChain, model: string, version: string, instances: () => readonly InstanceSnapshot[]): QueueWatch {
  return (takeOut) =>
    bus.on((e) => {
      if (e.type !== 'instance.state' || e.model !== model || e.version !== version || !GONE.has(e.state)) return;
      queueMicrotask(() => {
        const deadlock = chainDeadlock(chain, model, version, instances());
        if (deadlock) takeOut(deadlock);
      });
    });
}

/**
 * A request entering a model's queue, as its call chain allows: refused now when it could only run on
 * instances its own chain holds (queueing it would hang the chain), else watched while it waits in case the
 * target's instances change under it. A request made outside any model (no chain) is neither.
 */
export function admitChained(
  bus: EventBus, payload: ChainedPayload, model: string, version: string, instances: () => readonly InstanceSnapshot[],
): { refused: InferError } | { watch: QueueWatch | undefined } {
  const chain = payload.callChain;
  if (chain === undefined || chain.length === 0) return { watch: undefined };
  const deadlock = chainDeadlock(chain, model, version, instances());
  return deadlock ? { refused: deadlock } : { watch: watchChain(bus, chain, model, version, instances) };
}
