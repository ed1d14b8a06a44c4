/** A model's config as pbtxt with validation messages, its version policy and its files. */
import { useEffect, useRef } from 'react';
import { appStore, useApp } from '../store/app-store';
import type { ModelLive } from '../store/live-types';
import { versionLabel } from '../store/select';
import { configAsPbtxt, validateConfig } from './config-text';
import { formatBytes, formatUs } from '../charts/format';
import { autotuneStatusLine, autotuneTip } from '../charts/autotune-marks';
import { S } from '../i18n/strings';

export function ConfigDrawer(props: { m: ModelLive }) {
  const { m } = props;
  useApp((s) => s.structureRev);
  const gpus = useApp((s) => s.server?.gpu_count ?? 0);
  const close = () => appStore.setState({ inspect: undefined });
  const ref = useRef<HTMLButtonElement | null>(null);
  // focus without scrolling: a lesson that opens the drawer keeps its stage (claim, playback) in sight
  useEffect(() => ref.current?.focus({ preventScroll: true }), [m.key]);
  let text: string;
  let issues: { message: string }[];
  try {
    text = configAsPbtxt(m.config);
    issues = validateConfig(m.config, m.name, gpus);
  } catch (err) {
    text = JSON.stringify(m.config, null, 2);
    issues = [{ message: err instanceof Error ? err.message : String(err) }];
  }
  const policy = m.config.version_policy ?? { latest: { num_versions: 1 } };
  const total = m.files.reduce((n, f) => n + f.bytes, 0);
  return (
    <div className="drawer" role="region" aria-label={S.configTitle(versionLabel(m))} data-testid="config-drawer" onKeyDown={(e) => e.key === 'Escape' && close()}>
      <div className="flex items-center justify-between mb-2">
        <h2 className="text-lg font-semibold">{S.configTitle(versionLabel(m))}</h2>
        <button ref={ref} type="button" className="btn" onClick={close}>{S.close}</button>
      </div>
      <h3 className="card-title px-0">{S.validation}</h3>
      {issues.length === 0 ? (
        <p className="text-ok text-sm mb-2">{S.valid}</p>
      ) : (
        <ul className="text-danger text-sm mb-2 list-disc pl-5">{issues.map((i, k) => <li key={k}>{i.message}</li>)}</ul>
      )}
      {m.autotune && (
        <p className="text-sm mb-2" data-testid="config-autotune">
          {autotuneStatusLine(m.autotune)}
          {m.autotune.last ? ` · ${autotuneTip(m.autotune.last)}` : ''}
        </p>
      )}
      <pre className="pbtxt" data-testid="config-pbtxt">{text}</pre>
      <h3 className="card-title px-0 mt-3">{S.versionPolicy}</h3>
      <pre className="pbtxt">{JSON.stringify(policy)}</pre>
      <h3 className="card-title px-0 mt-3">{S.files} ({formatBytes(total)})</h3>
      <ul className="text-sm font-mono">
        {m.files.map((f) => (
          <li key={f.path} className="flex justify-between gap-4"><span className="break-all">{f.path}</span><span>{formatBytes(f.bytes)}</span></li>
        ))}
        {m.files.length === 0 && <li className="text-muted">–</li>}
      </ul>
    </div>
  );
}
