/**
 * Shutdown that ends whatever the models do. First the server drains (stops accepting, answers what it
 * accepted, unloads: each stub gets its grace to finalize, then is killed). A model whose execute() never
 * returns would hold that drain for ever, so after the exit timeout (Triton's --exit-timeout-secs) every
 * stub still owing work is stopped (its process group killed): its requests are answered with that cause,
 * no stub restarts, and the drain completes; idle stubs still finalize within their grace. Should anything else still hold it, the process exits FINAL_GRACE_MS later regardless (the
 * 'exit' hook of child-process/process-group.ts kills what is left). Each step says on stderr what it
 * waits for.
 */
import { liveGroups, stopBusyGroups } from '../child-process/process-group';
import { timerDelayMs } from '@inferscope/core/clock';

/** After the stubs were stopped: what else may still finish (HTTP replies, gRPC's own 10 s, unloads). */
export const FINAL_GRACE_MS = 15_000;

export interface ShutdownOptions {
  exitTimeoutSecs: number;
  /** the graceful close (drain, unload, close servers) */
  close(): Promise<void>;
  /** stderr by default */
  say?(line: string): void;
  /** process.exit by default */
  exit?(code: number): void;
}

function busyList(): string {
  const busy = liveGroups().filter((g) => g.busy !== '');
  return busy.length === 0 ? 'no model instance is busy' : busy.map((g) => `${g.label} (${g.busy})`).join(', ');
}

/** Resolves with the exit code once the server has closed (0) or its close failed (1). */
export function boundedShutdown(signal: string, o: ShutdownOptions): Promise<number> {
  const say = o.say ?? ((line: string) => console.error(`[inferscope] ${line}`));
  const exit = o.exit ?? ((code: number) => process.exit(code));
  say(`${signal}: waiting up to ${o.exitTimeoutSecs} s (--exit-timeout-secs) for in-flight requests; busy now: ${busyList()}`);
  let last: ReturnType<typeof setTimeout> | undefined;
  const expire = setTimeout(() => {
    const busy = busyList();
    const n = stopBusyGroups(`the server is shutting down and its exit timeout (${o.exitTimeoutSecs} s) passed`);
    say(`exit timeout passed: stopped ${n} model stub process${n === 1 ? '' : 'es'} (busy: ${busy}); waiting up to ${FINAL_GRACE_MS / 1000} s more for the rest`);
    last = setTimeout(() => {
      say('shutdown did not finish in time: exiting now');
      exit(1);
    }, FINAL_GRACE_MS);
    last.unref();
  }, timerDelayMs(o.exitTimeoutSecs * 1000));
  expire.unref();
  const settle = (code: number): number => {
    clearTimeout(expire);
    clearTimeout(last);
    return code;
  };
  return o.close().then(
    () => settle(0),
    (err: unknown) => {
      say(`shutdown failed: ${(err as Error).message}`);
      return settle(1);
    },
  );
}
