/** One sentence per scheduler event, in the current language, for single-stepping in teaching mode. */
import type { SchedulerEvent } from '@inferscope/core';
import { formatBytes, formatUs } from '../charts/format';
import { S } from '../i18n/strings';

export function narrate(e: SchedulerEvent): string {
  const n = S.narrate;
  switch (e.type) {
    case 'request.queued':
      return n.queued(e.request_id, e.priority, e.queue_depth);
    case 'batch.formed':
      return n.formed(e.size, S.triggers[e.trigger] ?? e.trigger);
    case 'batch.started':
      return n.started(e.instance, e.size);
    case 'batch.completed':
      return n.completed(e.instance, e.size, formatUs(e.compute_us));
    case 'request.completed':
      return e.ok ? n.answered(e.request_id, formatUs(e.total_us), formatUs(e.queue_us)) : n.failed(e.request_id);
    case 'request.rejected':
      return n.rejected(e.request_id, n.rejectReasons[e.reason] ?? e.reason);
    case 'memory':
      return n.memory(formatBytes(e.used_bytes), e.budget_bytes ? formatBytes(e.budget_bytes) : S.noBudget);
    case 'instance.state':
      return n.instance(e.instance, S.instanceStates[e.state] ?? e.state);
    case 'model.state':
      return n.model(e.model, e.state);
    case 'config.changed':
      return n.config(e.model, e.changes.map((c) => c.path).join(', '));
    default:
      return (e as { type: string }).type;
  }
}
