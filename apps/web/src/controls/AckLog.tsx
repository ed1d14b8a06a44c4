/** The server's answers to our control messages, newest first: applied, or refused with the reason. */
import { useApp } from '../store/app-store';
import { S } from '../i18n/strings';
import { refusalGloss } from '../i18n/server-text';

export function AckLog() {
  const acks = useApp((s) => s.acks);
  if (acks.length === 0) return null;
  return (
    <div aria-live="polite">
      <h3 className="text-xs uppercase tracking-wide text-muted mb-1">{S.acks}</h3>
      <ul className="space-y-1 text-sm max-h-48 overflow-auto" data-testid="ack-log">
        {acks.slice(0, 8).map((a) => (
          <li key={a.id} className={`ack ack-${a.state}`} data-testid={`ack-${a.state}`}>
            <span className="font-semibold">{a.state === 'applied' ? `✓ ${S.applied}` : a.state === 'refused' ? `✗ ${S.refused}` : `… ${S.pending}`}</span>{' '}
            {S.ackActions[a.action] && S.ackActions[a.action] !== a.action && <span>{S.ackActions[a.action]} </span>}
            <span className="font-mono text-xs" data-verbatim>{a.action} {a.summary}</span>
            {a.error && refusalGloss(a.error) && <div className="text-danger" data-testid="ack-gloss">{refusalGloss(a.error)}</div>}
            {a.error && <div className="text-danger" data-verbatim>{a.error}</div>}
            {a.detail && detailLine(a.detail) && <div className="text-xs text-muted break-all">{detailLine(a.detail)}</div>}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The useful part of a success answer: where a recording or config went, which load run started. */
export function detailLine(d: Record<string, unknown>): string {
  const keys = ['id', 'path', 'file', 'recording', 'stopped', 'backup'];
  return keys.filter((k) => d[k] !== undefined && d[k] !== null).map((k) => `${k}: ${Array.isArray(d[k]) ? (d[k] as unknown[]).map(asText).join(', ') : asText(d[k])}`).join(' · ');
}

/** A value of an answer as a person reads it: a run or recording by its id (or name), never `[object Object]`. */
function asText(v: unknown): string {
  if (v === null || typeof v !== 'object') return String(v);
  const o = v as Record<string, unknown>;
  for (const k of ['id', 'name', 'path', 'file']) if (typeof o[k] === 'string' || typeof o[k] === 'number') return String(o[k]);
  return JSON.stringify(v);
}
