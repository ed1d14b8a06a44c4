/**
 * One load run's figures, client and server side by side: what the generator measured (send lag: its own
 * accuracy; latency from send to answer) next to what the server measured for the run's model over the
 * run's window (latency, queue and compute; frozen when the run ends, like perf_analyzer's "Server:"
 * block — never the server's latest second, which reads 0 once the run is over). A warning when the send lag says the generator missed its schedule (the
 * figures are then the client's, not the server's); a label when the generator ran on the server's loop.
 * A replay shows its recording's server figures beside its own (what the traffic met then, and now).
 */
import { SEND_LAG_WARN_US, type LoadProgress } from '@inferscope/core';
import { S } from '../i18n/strings';

const ms = (us: number) => (us / 1000).toFixed(us < 10_000 ? 2 : 1);

export function LoadRunFigures(props: { run: LoadProgress }) {
  const { run } = props;
  const c = run.client;
  const server = run.server !== undefined && run.server.requests > 0 ? run.server : undefined;
  const late = c !== undefined && c.send_lag_us.p99 > SEND_LAG_WARN_US;
  // a replay: the recorded run's server figures beside its own, and their p99 ratio (only when both measured)
  const recorded = run.recorded?.server !== undefined && run.recorded.server.requests > 0 ? run.recorded.server : undefined;
  const cell = (f: typeof server, pick: (f: NonNullable<typeof server>) => string) => (f ? pick(f) : '–');
  return (
    <div className="text-xs" data-testid="load-figures">
      <span className="badge" data-testid="load-generator">{run.generator === 'inprocess' ? S.generatorInProcess : S.generatorWorker}</span>
      {c && (
        <table className="w-full mt-1 tabular-nums">
          <thead>
            <tr className="text-muted"><th /><th className="text-right">{S.clientSide}</th><th className="text-right">{S.serverSide}</th>{recorded && <th className="text-right">{S.recordedSide}</th>}</tr>
          </thead>
          <tbody>
            <tr><td>{S.latencyP50P99}</td><td className="text-right">{ms(c.latency_us.p50)} / {ms(c.latency_us.p99)}</td><td className="text-right">{cell(server, (f) => `${ms(f.latency_us.p50)} / ${ms(f.latency_us.p99)}`)}</td>{recorded && <td className="text-right" data-testid="recorded-latency">{cell(recorded, (f) => `${ms(f.latency_us.p50)} / ${ms(f.latency_us.p99)}`)}</td>}</tr>
            <tr><td>{S.sendLagQueueCompute}</td><td className="text-right" data-testid="send-lag">{ms(c.send_lag_us.p50)} / {ms(c.send_lag_us.p99)}</td><td className="text-right">{cell(server, (f) => `${ms(f.queue_us)} / ${ms(f.compute_us)}`)}</td>{recorded && <td className="text-right">{cell(recorded, (f) => `${ms(f.queue_us)} / ${ms(f.compute_us)}`)}</td>}</tr>
          </tbody>
        </table>
      )}
      {server && recorded && recorded.latency_us.p99 > 0 && (
        <p className="text-muted" data-testid="replay-vs-recorded">{S.replayVsRecorded(`${(server.latency_us.p99 / recorded.latency_us.p99).toFixed(2)}x`)}</p>
      )}
      {server && <p className="text-muted" data-testid="load-server-requests">{S.serverRunRequests(server.requests, server.batches, server.avg_batch_size)}</p>}
      {late && <p className="text-danger" role="alert" data-testid="send-lag-warning">{S.sendLagWarning(ms(c.send_lag_us.p99), ms(SEND_LAG_WARN_US))}</p>}
      {run.reason && <p className="text-muted">{run.reason}</p>}
    </div>
  );
}
