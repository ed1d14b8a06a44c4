/** Save the live config to config.pbtxt: a dry run first shows the diff, then "Write to disk" writes it. */
import { useState } from 'react';
import { sendControl } from '../live/control';
import { S } from '../strings';

/** `version`: the one whose live values are written (the one the controls show), not always the latest. */
export function SaveConfig(props: { model: string; version: string; disabled: boolean }) {
  const [diff, setDiff] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const preview = async () => {
    setBusy(true);
    const ack = await sendControl({ action: 'saveConfig', model: props.model, version: props.version, dryRun: true });
    setBusy(false);
    if (ack.ok) setDiff(typeof ack.diff === 'string' ? ack.diff : '');
  };
  const write = async () => {
    setBusy(true);
    const ack = await sendControl({ action: 'saveConfig', model: props.model, version: props.version, dryRun: false });
    setBusy(false);
    if (ack.ok) setDiff(null);
  };
  return (
    <div>
      <button type="button" className="btn w-full" disabled={props.disabled || busy} onClick={() => void preview()} data-testid="save-preview">{S.save}</button>
      {diff !== null && (
        <div className="mt-2" data-testid="save-diff">
          <h3 className="text-xs uppercase tracking-wide text-muted">{S.diffTitle}</h3>
          {diff.trim() === '' ? (
            <p className="text-sm text-muted">{S.noDiff}</p>
          ) : (
            <pre className="pbtxt text-xs">
              {diff.split('\n').map((l, i) => (
                <div key={i} className={l.startsWith('+') ? 'diff-add' : l.startsWith('-') ? 'diff-del' : ''}>{l}</div>
              ))}
            </pre>
          )}
          <div className="flex gap-2 mt-2">
            <button type="button" className="btn btn-primary" disabled={busy || diff.trim() === ''} onClick={() => void write()}>{S.saveConfirm}</button>
            <button type="button" className="btn" onClick={() => setDiff(null)}>{S.cancel}</button>
          </div>
        </div>
      )}
    </div>
  );
}
