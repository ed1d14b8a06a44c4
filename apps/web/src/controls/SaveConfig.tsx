/**
 * Save the live config to config.pbtxt: a dry run first shows the diff against the file as it is on disk
 * now (hunks only), what the server noticed (the file edited since load, comments it updates) and which
 * versions the one file governs — with what each other version will run after a restart — then "Write to
 * disk" writes it and says where the user's previous file is (or that nothing needed writing).
 */
import { useState } from 'react';
import type { SaveConfigAck, SharedConfigFile } from '@inferscope/core';
import { sendControl } from '../live/control';
import { S } from '../i18n/strings';

function SharedNote(props: { versions: SharedConfigFile }) {
  const v = props.versions;
  return (
    <div className="text-xs mt-1" data-testid="save-versions">
      <p>{S.governs(v.governs.join(', '), v.saved)}</p>
      {v.differences.length === 0 ? (
        v.governs.length > 1 && <p className="text-muted">{S.sameForAll}</p>
      ) : (
        <ul className="list-disc pl-4 text-warn">
          {v.differences.map((d) => (
            <li key={`${d.version}/${d.path}`} data-verbatim>{S.afterRestart(d.version, d.path, JSON.stringify(d.live), JSON.stringify(d.written))}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Notes(props: { notes: string[] }) {
  if (props.notes.length === 0) return null;
  return (
    <ul className="list-disc pl-4 text-xs text-warn mt-1" data-testid="save-notes">
      {props.notes.map((n) => <li key={n} data-verbatim>{n}</li>)}
    </ul>
  );
}

/** What a written save says: nothing written, or the file and where the user's previous file is. */
function savedMessage(ack: SaveConfigAck): string {
  if (!ack.written) return S.savedNothing;
  if (ack.backup === null) return ack.path;
  return ack.backupKept ? S.savedBackupKept(ack.path, ack.backup) : S.savedBackup(ack.path, ack.backup);
}

/** `version`: the one whose live values are written (the one the controls show), not always the latest. */
export function SaveConfig(props: { model: string; version: string; disabled: boolean }) {
  const [diff, setDiff] = useState<string | null>(null);
  const [versions, setVersions] = useState<SharedConfigFile | null>(null);
  const [written, setWritten] = useState<string | null>(null);
  // what the server says about the file: edited since load (kept), a hand-set value overwritten, comments updated
  const [notes, setNotes] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const preview = async () => {
    setBusy(true);
    const ack = await sendControl({ action: 'saveConfig', model: props.model, version: props.version, dryRun: true });
    setBusy(false);
    if (ack.ok) {
      setDiff(ack.diff);
      setVersions(ack.versions);
      setNotes(ack.notes);
      setWritten(null);
    }
  };
  const write = async () => {
    setBusy(true);
    const ack = await sendControl({ action: 'saveConfig', model: props.model, version: props.version, dryRun: false });
    setBusy(false);
    if (ack.ok) {
      setDiff(null);
      setNotes(ack.notes);
      setWritten(savedMessage(ack));
    }
  };
  return (
    <div>
      <button type="button" className="btn w-full" disabled={props.disabled || busy} onClick={() => void preview()} data-testid="save-preview">{S.save}</button>
      {diff !== null && (
        <div className="mt-2" data-testid="save-diff">
          <h3 className="text-xs uppercase tracking-wide text-muted">{S.diffTitle}</h3>
          {versions && <SharedNote versions={versions} />}
          <Notes notes={notes} />
          {diff.trim() === '' ? (
            <p className="text-sm text-muted">{S.noDiff}</p>
          ) : (
            <pre className="pbtxt text-xs">
              {diff.split('\n').map((l, i) => (
                <div key={i} className={l.startsWith('@@') || l.startsWith('---') || l.startsWith('+++') ? 'text-muted' : l.startsWith('+') ? 'diff-add' : l.startsWith('-') ? 'diff-del' : ''}>{l}</div>
              ))}
            </pre>
          )}
          <div className="flex gap-2 mt-2">
            <button type="button" className="btn btn-primary" disabled={busy || diff.trim() === ''} onClick={() => void write()}>{S.saveConfirm}</button>
            <button type="button" className="btn" onClick={() => setDiff(null)}>{S.cancel}</button>
          </div>
        </div>
      )}
      {written && <p className="text-xs text-muted mt-1 break-all" data-testid="save-written" data-verbatim>{written}</p>}
      {written && <Notes notes={notes} />}
    </div>
  );
}
