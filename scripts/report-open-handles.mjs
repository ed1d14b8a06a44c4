// Preloaded into every test file's process by scripts/run-tests.mjs.
//
// The runner passes --test-force-exit: on node 20 the test runner reports a file's end only once the event
// loop is empty, so without the flag a leaked handle would hang its file until the runner's kill timer.
// The flag alone would hide leaks, so this hook fails the file instead: at the exit it lists what still holds
// the event loop open (a listening server, a connected socket, a referenced timer, a child process, a
// worker) and exits with code 1.
//
// Not counted: the process's own stdio, a socket already destroyed or a server already closed (closing
// was asked for and is under way), timers that do not keep the process alive (unref'd or done) and
// timeouts under a second (they end by themselves). process._getActiveHandles() is node's long-standing
// (undocumented) list of handle objects; it has no timers, so setTimeout/setInterval are wrapped to note
// the timers that could keep a process alive.
//
// Worker threads inherit the preload (node passes execArgv on): there it does nothing, since a worker's
// process.exit() ends only that thread, at once, and tests rely on exactly that.
import { isMainThread } from 'node:worker_threads';

const stdio = new Set([process.stdin, process.stdout, process.stderr]);
const longTimers = new Set();
const untrackedSetTimeout = globalThis.setTimeout;
/** where each long timer was created: the first stack frame outside this file and node's internals */
const createdAt = new WeakMap();
const caller = () => (new Error().stack ?? '').split('\n').slice(3).find((l) => !l.includes('node:internal')) ?? '';
const LONG_MS = 1000;

function trackLongTimers() {
  for (const [name, repeats] of [['setTimeout', false], ['setInterval', true]]) {
    const original = globalThis[name];
    globalThis[name] = function trackedTimer(fn, ms, ...args) {
      const timer = original.call(this, fn, ms, ...args);
      if (repeats || Number(ms) >= LONG_MS) {
        longTimers.add(timer);
        createdAt.set(timer, caller().trim());
      }
      return timer;
    };
  }
}

function describe(handle) {
  const kind = handle?.constructor?.name ?? typeof handle;
  if (typeof handle?.address === 'function') {
    try {
      const a = handle.address();
      if (a && typeof a === 'object') return `${kind} ${a.address}:${a.port}${handle.remotePort ? ` -> ${handle.remotePort}` : ''}`;
    } catch { /* not bound */ }
  }
  if (typeof handle?.pid === 'number') return `${kind} pid ${handle.pid} (${handle.spawnfile ?? ''})`;
  if (typeof handle?._onTimeout === 'function') return `${handle._repeat ? 'setInterval' : 'setTimeout'} ${handle._idleTimeout} ms: ${createdAt.get(handle) ?? ''}`;
  return kind;
}

function stillOpen(handle) {
  if (stdio.has(handle)) return false;
  if (typeof handle.hasRef === 'function' && !handle.hasRef()) return false;
  if (handle.destroyed === true) return false;
  if ('listening' in handle && handle.listening === false && typeof handle.close === 'function' && !('remotePort' in handle)) return false;
  return true;
}

const openNow = () => {
  const timers = [...longTimers].filter((t) => !t._destroyed && t.hasRef());
  return [...process._getActiveHandles().filter(stillOpen), ...timers];
};

// --test-force-exit ends the process with process.exit() as soon as the last test (and its after hooks)
// has finished. Closing is often still under way then (a websocket's close handshake, a child process
// reporting its exit), so give what is closing a moment: poll until nothing is open, at most GRACE_MS,
// and only what is still open after that fails the file.
const GRACE_MS = Number(process.env.TEST_LEAK_GRACE_MS ?? 2000);

function checkOpenHandlesAtExit() {
  const exit = process.exit.bind(process);
  let exiting = false;
  process.exit = function exitAfterOpenHandlesClosed(code) {
    if (exiting) return exit(code);
    exiting = true;
    const deadline = performance.now() + GRACE_MS;
    const check = () => {
      const open = openNow();
      if (open.length > 0 && performance.now() < deadline) {
        untrackedSetTimeout(check, 20);
        return;
      }
      if (open.length > 0) {
        process.stderr.write(`\n✖ still open ${GRACE_MS} ms after the tests finished (a leaked handle):\n${open.map((h) => `    ${describe(h)}\n`).join('')}`);
        if (!code) code = 1;
      }
      exit(code ?? process.exitCode);
    };
    check();
  };
}

if (isMainThread) {
  trackLongTimers();
  checkOpenHandlesAtExit();
}
