#!/usr/bin/env node
// Entry point for `npx inferscope`. The sources are TypeScript run through tsx, so there is no build
// step between editing and running. We re-exec node with `--import tsx` (instead of tsx's in-process
// register API) because worker threads inherit execArgv: each onnxruntime instance worker then loads
// TypeScript the same way the main thread does.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

if (process.execArgv.some((a) => a.includes('tsx'))) {
  await import(cli);
} else {
  const tsxLoader = require.resolve('tsx');
  const child = spawn(process.execPath, ['--import', new URL('file://' + tsxLoader).href, cli, ...process.argv.slice(2)], {
    stdio: 'inherit',
    // The server watches this pid and shuts down if the launcher dies without forwarding a signal
    // (SIGKILL), so it never lingers holding the port (apps/server/src/child-process/parent-watch.ts).
    env: { ...process.env, INFERSCOPE_PARENT_PID: String(process.pid) },
  });
  const forward = (sig) => () => child.kill(sig);
  process.on('SIGINT', forward('SIGINT'));
  process.on('SIGTERM', forward('SIGTERM'));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
