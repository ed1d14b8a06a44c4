/**
 * What the autotuner tells the user, as one typed value computed here (policy.ts, restore.ts) and carried
 * unchanged to every place that reports it: the model's snapshot and the dashboard's panel, the HTTP
 * statistics' `autotune` entry, the control acknowledgement and the simulate CLI. The issue's panel only
 * ever said "autotuned: p99 target 10 ms" while the target was missed by 4x: the state names whether the
 * target is met, and when it is not, the best p99 and what limits it, with the advice to act on.
 */
import type { AutotuneChangeReason, AutotuneLimit, AutotuneOrigin, AutotuneReport, AutotuneStatus } from '../events';

// the types live with the event vocabulary (the live wire carries them, and live must not import the tuner)
export type { AutotuneLimit, AutotuneOrigin, AutotuneProposal, AutotuneReport, AutotuneStatus } from '../events';

/** a duration in the tuner's words (the status, the reasons): µs below a millisecond, else ms */
export const ms = (us: number) => (us >= 1000 ? `${+(us / 1000).toFixed(us >= 100_000 ? 0 : 2)} ms` : `${Math.round(us)} µs`);

/** The advice for a limit, in the words the user reads (also the README's). */
export function limitAdvice(limit: AutotuneLimit, canAddInstance: boolean): string {
  if (limit === 'compute') return canAddInstance ? 'limited by compute: add an instance or raise the target' : 'limited by compute: add an instance (the host has no spare core for one) or raise the target';
  if (limit === 'latency') return 'limited by the model\'s own latency: one request alone takes about the target; raise the target';
  return 'limited by the host\'s latency spread at low load: raise the target';
}

/** What was restored, as one line ("restored delay 17 ms, preferred sizes [8,16,32]"). */
export function restoredText(r: AutotuneOrigin & { instances_removed: number }): string {
  const removed = r.instances_removed > 0 ? `, removed the ${r.instances_removed === 1 ? 'instance' : `${r.instances_removed} instances`} it added` : '';
  return `restored delay ${ms(r.max_queue_delay_microseconds)}, preferred sizes [${r.preferred_batch_size.join(',')}]${removed}`;
}

/** The status as one line: the CLI prints it, the HTTP entry carries it as `text` next to the typed value. */
export function describeAutotune(s: AutotuneStatus): string {
  const proposal = 'proposal' in s && s.proposal ? `; proposed: ${s.proposal.why}` : '';
  switch (s.state) {
    case 'measuring': return `autotune: measuring at delay ${ms(s.delay_us)} (target p99 ${ms(s.target_us)})${proposal}`;
    case 'met': return `autotune: target met: p99 ${ms(s.p99_us)} ≤ ${ms(s.target_us)} at delay ${ms(s.delay_us)}${proposal}`;
    case 'holding': return `autotune: holding delay ${ms(s.delay_us)}: ${s.why}${s.p99_us !== undefined ? ` (p99 ${ms(s.p99_us)}, target ${ms(s.target_us)})` : ''}${proposal}`;
    case 'not_met': return `autotune: target not met: best p99 ≈ ${ms(s.best_p99_us)} (target ${ms(s.target_us)}) at delay ${ms(s.delay_us)}, ${s.advice}${proposal}`;
    case 'restored': return `autotune: off, ${s.text}`;
    case 'off': return 'autotune: off (it had changed nothing)';
  }
}

export function autotuneReport(enabled: boolean, status: AutotuneStatus, last?: AutotuneChangeReason): AutotuneReport {
  return { enabled, target_us: status.target_us, ...(last ? { last } : {}), status, text: describeAutotune(status) };
}
