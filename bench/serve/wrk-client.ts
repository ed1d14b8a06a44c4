/**
 * wrk (C, /usr/bin/wrk: `apt-get install -y wrk`) as a child process POSTing one KServe binary body
 * (wrk-post.lua), run asynchronously so a server under test on this process's event loop keeps serving.
 * Shared by wrk.ts and h2load.ts.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WrkResult { req_per_s: number; p50_ms: number; p99_ms: number; non2xx: number }

const here = fileURLToPath(new URL('.', import.meta.url));

export async function runWrk(url: string, bodyFile: string, headerLength: number, o: { c: number; seconds: number }): Promise<WrkResult> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('wrk', ['-t1', `-c${o.c}`, `-d${o.seconds}s`, '--latency', '-s', join(here, 'wrk-post.lua'), url], {
      env: { ...process.env, BODY_FILE: bodyFile, HEADER_LENGTH: String(headerLength) }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.on('error', (err) => reject(new Error(`wrk did not run (${err.message}); install it with: apt-get install -y wrk`)));
    child.on('exit', () => resolve(text));
  });
  const num = (re: RegExp) => Number(out.match(re)?.[1] ?? NaN);
  const ms = (re: RegExp) => {
    const m = out.match(re);
    if (!m) return NaN;
    const v = Number(m[1]);
    return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
  };
  return {
    req_per_s: num(/Requests\/sec:\s+([\d.]+)/),
    p50_ms: ms(/50%\s+([\d.]+)(us|ms|s)/),
    p99_ms: ms(/99%\s+([\d.]+)(us|ms|s)/),
    non2xx: num(/Non-2xx or 3xx responses:\s+(\d+)/) || 0,
  };
}
