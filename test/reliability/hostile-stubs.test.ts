// Hostile model.py code cannot take the server down (issue 28), one test per class of attack, each on a
// real server (port 0) with a real python stub: endless output lines, a stub that forks a child holding
// its pipes and then dies, an execute() that never returns (execute_timeout_ms), SIGTERM of a real
// `inferscope serve` while execute() hangs, and execute() growing past the stub's memory share. In every
// case each accepted request gets exactly one answer and the model keeps serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MAX_LINE_BYTES } from '../../apps/server/src/child-process/bounded-lines';
import { ROOT, startTestServer, type TestServer } from '../support/server.ts';
import { ADD_SUB_PY, NO_NUMPY, addSubConfig, inferJson, modelIndex, tempRepo, type TempRepo } from '../backends/stub-fixtures.ts';
import { waitFor as waitUntil } from '../support/wait.ts';

/**
 * add_sub whose execute() first prints "begin <INPUT0[0]>" and then runs `hostile` (python, indented
 * for the body of execute; `v` is INPUT0's first value): requests with other values are served normally.
 */
const hostileAddSub = (hostile: string, autoComplete = '') =>
  ADD_SUB_PY.replace('class TritonPythonModel:\n', `class TritonPythonModel:\n${autoComplete}`).replace(
    '        responses = []\n',
    `        responses = []
        import os, sys, time
        v = float(pb_utils.get_input_tensor_by_name(requests[0], "INPUT0").as_numpy().flat[0])
        print("begin", v, flush=True)
${hostile}
`,
  );

const body = (v: number) => [
  { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [v, v, v, v] },
  { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [1, 1, 1, 1] },
];

const waitFor = (check: () => boolean, what: string, ms = 60_000) => waitUntil(check, what, ms);

/** Whether `pid` runs (a zombie does not: its parent may be a PID 1 that does not reap). */
function running(pid: number): boolean {
  try {
    const state = /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
    return state !== undefined && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

interface Rig {
  server: TestServer;
  repo: TempRepo;
  logs: string[];
  /** resolves once the stub has logged "begin <v>" for the n-th time (1-based) */
  begun(v: number, n?: number): Promise<void>;
}

/**
 * `autoComplete`: a static auto_complete_config (python, class-level indent) run before the load;
 * REPO in it and in `hostile` stands for the repository's folder.
 */
async function rig(model: string, hostile: string, opts: { extraConfig?: string; memoryBudget?: Record<string, number>; autoComplete?: string; maxInflightBytes?: number } = {}): Promise<Rig> {
  const repo = tempRepo('is-hostile-');
  // no batching delay: each request is its own batch, so the request behind a hostile one is not in its batch
  repo.add(model, addSubConfig(model, opts.extraConfig).replace('max_queue_delay_microseconds: 20000', 'max_queue_delay_microseconds: 0'), {
    'model.py': hostileAddSub(hostile, opts.autoComplete).replaceAll('REPO', repo.dir),
  });
  const logs: string[] = [];
  const server = await startTestServer({ modelRepositories: [repo.dir], log: (m) => logs.push(m), memoryBudget: opts.memoryBudget, maxInflightBytes: opts.maxInflightBytes });
  const begun = (v: number, n = 1) =>
    waitFor(() => logs.filter((l) => l.endsWith(`] begin ${v.toFixed(1)}`)).length >= n, `execute() to begin on ${v}`);
  return { server, repo, logs, begun };
}

async function teardown(r: Rig): Promise<void> {
  await r.server.close();
  r.repo.remove();
}

/** Every accepted request of `model` completed exactly once (one terminal event per request id). */
function assertExactlyOnce(server: TestServer, model: string, accepted: number): void {
  const completed = server.events.filter((e) => e.type === 'request.completed' && e.model === model);
  assert.equal(completed.length, accepted, 'one request.completed per accepted request');
  assert.equal(new Set(completed.map((e) => (e as { request_id: string }).request_id)).size, accepted);
}

test('endless output lines (16 MiB on stdout and stderr) are cut to the line cap; the server serves on', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  const r = await rig('chatty', `        if v == 7:
            sys.stdout.write("o" * (16 << 20) + "\\n")
            sys.stderr.write("e" * (16 << 20) + "\\n")
            print("after the long lines", flush=True)
`);
  try {
    const rssBefore = process.memoryUsage().rss;
    const res = await inferJson(r.server.url, 'chatty', body(7));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await waitFor(() => r.logs.some((l) => l.endsWith('] after the long lines')), 'the line after the long ones');
    const total = 16 << 20;
    for (const ch of ['o', 'e']) {
      const line = r.logs.find((l) => l.includes(ch.repeat(100)));
      assert.ok(line, `the ${ch} line was logged`);
      assert.ok(line.endsWith(`${ch.repeat(MAX_LINE_BYTES)} [line truncated: ${total - MAX_LINE_BYTES} of ${total} bytes left out]`), line.slice(-120));
    }
    assert.ok(r.logs.every((l) => l.length < MAX_LINE_BYTES + 200), 'no log line past the cap');
    assert.equal((await inferJson(r.server.url, 'chatty', body(1))).status, 200);
    const grownMiB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    console.log(`hostile-stubs: 2 x 16 MiB lines logged as ${MAX_LINE_BYTES} B + note each; server RSS +${grownMiB.toFixed(1)} MiB`);
  } finally {
    await teardown(r);
  }
});

/** python, at `indent`: fork a child that keeps every inherited fd (stdout, stderr, fd 3) and sleeps */
const forkHolder = (indent: string) =>
  ['pid = os.fork()', 'if pid == 0:', '    import ctypes', '    ctypes.CDLL("libc.so.6").prctl(1, 0)  # no parent-death signal: only a group kill ends it', '    time.sleep(600)', '    os._exit(0)']
    .map((l) => indent + l)
    .join('\n');

test('a model that forks a child holding its pipes and fd 3, then _exits: replaced, requests answered, the child killed', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  const r = await rig('forker', `        if v == 2:
${forkHolder('            ')}
            print("forked", pid, flush=True)
            os._exit(3)
`, {
    // auto_complete_config runs in a child of its own before the load: its fork must not stall the load
    autoComplete: `    @staticmethod
    def auto_complete_config(auto_complete_model_config):
        import os, time
${forkHolder('        ')}
        open("REPO/autocomplete-forked", "w").write(str(pid))
        return auto_complete_model_config

`,
  });
  try {
    const dying = inferJson(r.server.url, 'forker', body(2));
    await r.begun(2);
    const behind = inferJson(r.server.url, 'forker', body(1)); // queued behind the batch that kills the stub
    const [d, b] = await Promise.all([dying, behind]);
    assert.equal(d.status, 500);
    assert.match(d.body.error, /stub process of instance forker_0_0 of model 'forker' exited with code 3/);
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.deepEqual(b.body.outputs[0].data, [2, 2, 2, 2]);
    assert.ok(r.logs.some((l) => /restarting instance forker_0_0 \(restart 1\)/.test(l)), r.logs.join('\n'));
    const forked = Number(/\] forked (\d+)$/m.exec(r.logs.join('\n'))?.[1]);
    assert.ok(forked > 0, 'the model said whom it forked');
    await waitFor(() => !running(forked), `the forked child ${forked} to be killed`, 10_000);
    assert.equal((await inferJson(r.server.url, 'forker', body(3))).status, 200, 'the replacement serves');
    const acForked = Number(readFileSync(`${r.repo.dir}/autocomplete-forked`, 'utf8'));
    assert.ok(acForked > 0 && !running(acForked), "auto_complete_config's forked child was killed with it");
    assertExactlyOnce(r.server, 'forker', 3);
    console.log(`hostile-stubs: fork + _exit(3): 1 failed (its batch), 2 answered by the replacement, forked child ${forked} gone`);
  } finally {
    await teardown(r);
  }
});

test('an execute() that never returns: execute_timeout_ms answers it with an error, restarts the stub, serves the one behind', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  const r = await rig('hung', `        if v == 3:
            time.sleep(3600)
`, { extraConfig: 'parameters { key: "execute_timeout_ms" value: { string_value: "1500" } }' });
  try {
    const hung = inferJson(r.server.url, 'hung', body(3));
    await r.begun(3);
    const behind = inferJson(r.server.url, 'hung', body(1));
    const [h, b] = await Promise.all([hung, behind]);
    assert.equal(h.status, 500);
    assert.match(h.body.error, /execute\(\) of instance hung_0_0 of model 'hung' did not return within 1500 ms \(parameter execute_timeout_ms\); its stub was killed/);
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.deepEqual(b.body.outputs[0].data, [2, 2, 2, 2]);
    assert.ok(r.logs.some((l) => /restarting instance hung_0_0 \(restart 1\)/.test(l)));
    // a second hang is caught the same way: the timeout holds on the replacement too
    const again = await inferJson(r.server.url, 'hung', body(3));
    assert.match(again.body.error, /did not return within 1500 ms/);
    assert.equal((await inferJson(r.server.url, 'hung', body(4))).status, 200);
    assertExactlyOnce(r.server, 'hung', 4);
  } finally {
    await teardown(r);
  }
  // the parameter is validated at load: anything but plain digits (not a number, negative, empty, an
  // exponent) refuses the model naming it
  for (const bad of ['soon', '-5', '', '1e3']) {
    const r2 = await rig('hung', '', { extraConfig: `parameters { key: "execute_timeout_ms" value: { string_value: "${bad}" } }` });
    try {
      const row = (await modelIndex(r2.server.url)).find((m) => m.name === 'hung');
      assert.equal(row?.state, 'UNAVAILABLE');
      assert.match(row?.reason ?? '', new RegExp(`parameter 'execute_timeout_ms' of model 'hung' must be an integer >= 0 and <= ${Number.MAX_SAFE_INTEGER} \\(plain digits\\), got '${bad}'`));
    } finally {
      await teardown(r2);
    }
  }
});

test('SIGTERM of `inferscope serve` with an execute() that never returns exits within its exit timeout, answering the request', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  const repo = tempRepo('is-hostile-');
  repo.add('hung', addSubConfig('hung'), { 'model.py': hostileAddSub('        if v == 3:\n            time.sleep(3600)\n') });
  repo.add('calm', addSubConfig('calm'), { 'model.py': ADD_SUB_PY }); // idle: finalizes as usual
  const tsx = new URL('file://' + createRequire(import.meta.url).resolve('tsx')).href;
  const child = spawn(process.execPath, ['--import', tsx, `${ROOT}apps/server/src/cli/main.ts`, 'serve', '--model-repository', repo.dir, '--http-port', '0', '--no-metrics', '--no-grpc', '--exit-timeout-secs', '2'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await waitFor(() => stdout.includes('serving KServe v2') || child.exitCode !== null, 'the server to listen');
    const url = /serving KServe v2 and the dashboard on (http:\/\/\S+?)(,|\s|$)/.exec(stdout)?.[1];
    assert.ok(url, stdout + stderr);
    const stubPid = Number(/stub pid (\d+)/.exec(stdout)?.[1]);
    const hung = inferJson(url, 'hung', body(3));
    await waitFor(() => stdout.includes('] begin 3.0'), 'execute() to begin');
    child.kill('SIGTERM');
    const sent = Date.now();
    const reply = await hung;
    let bound: ReturnType<typeof setTimeout> | undefined;
    const code = await Promise.race([exited, new Promise<'late'>((resolve) => (bound = setTimeout(() => resolve('late'), 60_000)))]);
    clearTimeout(bound);
    assert.notEqual(code, 'late', `the server still ran 60 s after SIGTERM:\n${stdout}\n${stderr}`);
    assert.equal(code, 0, stderr);
    assert.equal(reply.status, 500);
    assert.match(reply.body.error, /instance hung_0_0 of model 'hung' was stopped: the server is shutting down and its exit timeout \(2 s\) passed/);
    assert.match(stderr, /SIGTERM: waiting up to 2 s \(--exit-timeout-secs\) for in-flight requests; busy now: instance hung_0_0 of model 'hung' \(1 batch owed\)/);
    assert.match(stderr, /exit timeout passed: stopped 1 model stub process /);
    assert.doesNotMatch(stderr, /calm_0_0 of model 'calm' \(/, 'the idle stub is not listed as busy');
    assert.match(stdout, /\[calm\/1\/calm_0_0\] Cleaning up\.\.\./, "the idle model's finalize() ran");
    assert.ok(!running(stubPid), 'the stub is gone');
    console.log(`hostile-stubs: SIGTERM with a hung execute(): exited ${code} after ${((Date.now() - sent) / 1000).toFixed(1)} s (exit timeout 2 s)`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    repo.remove();
  }
});

test('an execute() growing past its memory share (600 MB vs a 300 MiB budget) is stopped with a clear error; the model serves on', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  const r = await rig('greedy', `        if v == 4:
            import numpy as np
            hog = np.ones(600 * 1000 * 1000 // 8)  # 600 MB, written page by page
            time.sleep(30)
`, { memoryBudget: { cpu: 300 * 1024 * 1024 } });
  try {
    const res = await inferJson(r.server.url, 'greedy', body(4));
    assert.equal(res.status, 500);
    assert.match(res.body.error, /instance greedy_0_0 of model 'greedy' was stopped: its processes held [\d.]+ MiB, more than its share of the cpu memory budget \([\d.]+ MiB of 300\.0 MiB, --memory-budget\)/);
    const ok = await inferJson(r.server.url, 'greedy', body(1));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const row = (await modelIndex(r.server.url)).find((m) => m.name === 'greedy');
    assert.equal(row?.state, 'READY');
    assert.match(row?.reason ?? '', /instance greedy_0_0 of model 'greedy' was stopped: its processes held .* and restarted/);
    const ledger = r.server.built.memory.snapshot().find((d) => d.device === 'cpu')!;
    assert.ok(ledger.used_bytes <= ledger.budget_bytes, 'the ledger is within its budget again');
    assertExactlyOnce(r.server, 'greedy', 2);
    console.log(`hostile-stubs: memory: ${/held ([\d.]+ MiB)/.exec(res.body.error)?.[1]} stopped under a 300 MiB budget; restarted and serving`);
  } finally {
    await teardown(r);
  }
});

test('a frame header claiming 512 MiB on the stub channel fails its request at once (nothing buffered), the stub is restarted, the model serves on', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  const MiB = 1024 * 1024;
  // the header alone, then silence: a server that waited for (or collected) the announced bytes would never
  // answer, as execute() never returns; only the bound checked from the 8-byte prefix can fail the request
  const r = await rig('liar', `        if v == 5:
            import struct
            os.write(3, struct.pack("<II", 8, 512 << 20))
            time.sleep(3600)
`, { maxInflightBytes: 64 * MiB });
  try {
    const res = await inferJson(r.server.url, 'liar', body(5));
    assert.equal(res.status, 500, JSON.stringify(res.body));
    assert.match(res.body.error, new RegExp(`instance liar_0_0 of model 'liar' announced a frame of ${16 + 512 * MiB} bytes, more than the ${64 * MiB} a stub may send \\(--max-inflight-bytes\\); its stub was stopped`));
    const ok = await inferJson(r.server.url, 'liar', body(1));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.deepEqual(ok.body.outputs[0].data, [2, 2, 2, 2]);
    assert.ok(r.logs.some((l) => /restarting instance liar_0_0 \(restart 1\)/.test(l)), r.logs.join('\n'));
    assertExactlyOnce(r.server, 'liar', 2);
  } finally {
    await teardown(r);
  }
});

test('an auto_complete_config that returns a config of megabytes is refused with the cap, not read whole', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  const r = await rig('bloated', '', {
    autoComplete: `    @staticmethod
    def auto_complete_config(auto_complete_model_config):
        auto_complete_model_config.add_input({"name": "x" * (8 << 20), "data_type": "TYPE_FP32", "dims": [4]})
        return auto_complete_model_config

`,
  });
  try {
    const row = (await modelIndex(r.server.url)).find((m) => m.name === 'bloated');
    assert.equal(row?.state, 'UNAVAILABLE');
    assert.match(row?.reason ?? '', /auto_complete_config of model 'bloated' returned too much: more than the 4194304 bytes a config may have/);
  } finally {
    await teardown(r);
  }
});
