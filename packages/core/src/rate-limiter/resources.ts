/**
 * The rate limiter's resources: what each instance needs, how many of each exist, how many are held.
 *
 * A resource lives in a scope: one device (an instance's need is checked against its own device's copies)
 * or GLOBAL (one pool for the whole server). How many exist is derived, never stored, so adding or removing
 * an instance cannot leave a stale count: by default the largest need any instance declares; with resources
 * on the command line, the largest count given for that name on that device (or on every device; a global
 * resource takes any device's), and a need above it fails the load (Triton's ResourceManager, whose words
 * the errors keep). Scopes are visited as Triton's ordered map does (GLOBAL first, then devices ascending,
 * names sorted) so the first error named is the one Triton names.
 */
import { InferError } from '../errors';
import type { ExplicitResource } from './flags';

export const GLOBAL = 'GLOBAL' as const;
export type Scope = typeof GLOBAL | number;

export interface ResourceNeed {
  name: string;
  /** Triton's `global: true`: one pool shared by every device */
  global?: boolean;
  count: number;
}

/** `scope name` -> count */
export type ResourceCounts = Map<string, { scope: Scope; name: string; count: number }>;

const idOf = (scope: Scope, name: string) => `${scope}\u0000${name}`;
const scopeOrder = (s: Scope) => (s === GLOBAL ? -2 : s);
const invalid = (message: string) => new InferError('INVALID_ARG', message);

export function scopedNeeds(needs: readonly ResourceNeed[], device: number): { scope: Scope; name: string; count: number }[] {
  return needs.map((n) => ({ scope: n.global ? GLOBAL : device, name: n.name, count: n.count }));
}

/** Every resource's count given the instances' needs and the command line's resources; throws Triton's load errors. */
export function resourceCounts(
  instances: Iterable<{ scoped: readonly { scope: Scope; name: string; count: number }[] }>,
  explicit: readonly ExplicitResource[],
): ResourceCounts {
  const largest: ResourceCounts = new Map();
  for (const inst of instances) {
    for (const need of inst.scoped) {
      const id = idOf(need.scope, need.name);
      const had = largest.get(id);
      if (!had || had.count < need.count) largest.set(id, { ...need });
    }
  }
  const ordered = [...largest.values()].sort((a, b) => scopeOrder(a.scope) - scopeOrder(b.scope) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const counts: ResourceCounts = new Map();
  if (explicit.length > 0) {
    for (const need of ordered) {
      // a resource the command line does not name is not available at all once it names any
      const given = explicit.filter((e) => e.name === need.name && (need.scope === GLOBAL || e.device === null || e.device === need.scope));
      const count = Math.max(0, ...given.map((e) => e.count));
      if (count < need.count) {
        throw invalid(`Resource count for "${need.name}" is limited to ${count} which will prevent scheduling of one or more model instances, the minimum required count is ${need.count}`);
      }
      counts.set(idOf(need.scope, need.name), { ...need, count });
    }
  } else {
    for (const need of ordered) counts.set(idOf(need.scope, need.name), need);
  }
  for (const g of ordered.filter((r) => r.scope === GLOBAL)) {
    if (ordered.some((r) => r.scope !== GLOBAL && r.name === g.name)) {
      throw invalid(`Resource "${g.name}" is present as both global and device-specific resource in the model configuration.`);
    }
  }
  return counts;
}

/** What is held now, against the counts: allocation is all of an instance's needs or none of them. */
export class ResourceLedger {
  private readonly held = new Map<string, number>();

  fits(counts: ResourceCounts, scoped: readonly { scope: Scope; name: string; count: number }[]): boolean {
    return scoped.every((n) => (this.held.get(idOf(n.scope, n.name)) ?? 0) + n.count <= (counts.get(idOf(n.scope, n.name))?.count ?? 0));
  }

  take(scoped: readonly { scope: Scope; name: string; count: number }[]): void {
    for (const n of scoped) this.held.set(idOf(n.scope, n.name), (this.held.get(idOf(n.scope, n.name)) ?? 0) + n.count);
  }

  give(scoped: readonly { scope: Scope; name: string; count: number }[]): void {
    for (const n of scoped) {
      const id = idOf(n.scope, n.name);
      const left = (this.held.get(id) ?? 0) - n.count;
      if (left > 0) this.held.set(id, left);
      else this.held.delete(id);
    }
  }

  heldOf(scope: Scope, name: string): number {
    return this.held.get(idOf(scope, name)) ?? 0;
  }
}
