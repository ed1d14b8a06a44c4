// One model instance: a worker thread that owns one ONNX Runtime InferenceSession.
//
// session.run() is a synchronous native call that blocks its thread for the whole run, so every
// instance gets its own thread, exactly like Triton's one backend thread per instance. Plain .mjs (not
// TypeScript) so the worker starts the same way under `node --import tsx`, the test runner, or plain node.
//
// Two ways to take messages, same protocol:
// - the blocking loop (used when onnxruntime-node's native binding is reachable, see native-session.mjs):
//   the thread sleeps in Atomics.wait on `workerData.wake` (the parent bumps it after every message),
//   takes messages with receiveMessageOnPort and runs the native session synchronously. No event-loop
//   turn, no setImmediate hop inside ort's async run(): measured on a 2-core machine, a batch of 16 went
//   from 475 to 413 µs and a batch of 1 from 212 to 141 µs, round trip included (bench/serve/README.md);
// - the event loop (fallback): 'message' events and the public async session.run().
//
// Protocol (parent <-> worker), every message an object with `type`:
//   init  {modelFile, options, executionProviders, primer} -> ready {rssGrowth, provider, note?, inputs, outputs}
//                                                          | initError {message}
//   measure {id}                   -> measured {id, rssGrowth}   (growth since init began: session + warmup)
//   run   {id, claim?, feeds: [{name, type, dims, data}], fetches} -> result {id, outputs: [...], computeUs,
//                                                            inputUs, outputUs, rxAbs, txAbs}
//                                                          | runError {id, message}
//                                                          | skipped {id}  (the parent took it back first)
//   crash {how: 'throw' | 'exit'}   (tests only, workerData.testHooks: the thread dies, as a crash would, in the NEXT batch it takes)
//   host  {module, init}           -> hosted | hostError {message}   (blocking loop only: the module's
//                                     startProgram(init, io) runs beside the session, see "hosted program")
//   guest {body}                   -> to the hosted program; it posts back guest {body}
//   close                          -> the session is released and the thread ends
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { loadNativeBinding, NativeSession, runPlainTensors } from './native-session.mjs';

// Native warnings (e.g. provider probing) would otherwise go to the server's stderr.
ort.env.logLevel = 'fatal';

/** the native binding when the blocking loop can be used (and the parent passed a wake word), else null */
const wake = workerData?.wake instanceof SharedArrayBuffer ? new Int32Array(workerData.wake) : null;
const binding = wake ? loadNativeBinding() : null;
/** claim words (instance-worker.ts): a run begins only if this thread turns its word from 0 to 1 first */
const claims = workerData?.claims instanceof SharedArrayBuffer ? new Int32Array(workerData.claims) : null;

/** A session on whichever API this thread uses; `await` on its results works for both. */
function openSession(model, options) {
  return binding ? new NativeSession(binding, model, options) : ort.InferenceSession.create(model, options);
}

let session = null;
/** the hosted program (a generative model's step loop), or null */
let guest = null;
/** messages taken from the port while the hosted program polled for its own, not yet handled */
const backlog = [];
/** the crash test hook: how to die in the next batch, or null */
let crashArmed = null;

/**
 * Dies as a crash would: exit(3), or an exception nobody catches (on the blocking loop it leaves the loop,
 * which rethrows it outside any promise; on the event loop it is an unhandled rejection). Either way the
 * parent's 'exit' handler fails the batch this thread was on and re-sends the ones queued behind it.
 */
function crashNow(how) {
  if (how === 'exit') process.exit(3);
  throw new Error('instance crashed on request (test hook)');
}
let rssAtInit = 0;
let primed = false;

/**
 * ONNX Runtime allocates its process-wide environment (thread pools, allocators; ~25 MiB) on the first
 * session. Creating a throwaway session from a tiny model first keeps that cost out of the figure we
 * measure for a real model, so the first instance is not charged for everyone.
 */
async function prime(primer) {
  if (primed || !primer) return;
  primed = true;
  try {
    const s = await openSession(primer, { intraOpNumThreads: 1, interOpNumThreads: 1 });
    await s.release();
  } catch {
    // Priming only sharpens the measurement; a failure here changes nothing else.
  }
}

const providerName = (p) => (typeof p === 'string' ? p : p.name);

/**
 * Creates the session with the preferred providers, dropping the first one after each failure
 * (tensorrt -> cuda -> cpu): ['cuda', 'cpu'] does not fall back by itself in onnxruntime-node when the
 * CUDA library cannot load. Every provider given up on is named in the note.
 */
async function createSession(modelFile, options, providers) {
  let list = providers;
  const failures = [];
  for (;;) {
    try {
      const s = await openSession(modelFile, { ...options, executionProviders: list });
      const note =
        failures.length === 0
          ? undefined
          : `${failures.map((f) => f.name.toUpperCase()).join('/')} execution provider unavailable: ${failures[0].reason}; ` +
            `running on ${providerName(list[0]) === 'cpu' ? 'CPU' : providerName(list[0]).toUpperCase()}`;
      return { session: s, provider: providerName(list[0]), note };
    } catch (err) {
      if (list.length <= 1 || providerName(list[0]) === 'cpu') throw err;
      failures.push({ name: providerName(list[0]), reason: String(err?.message ?? err).split('\n')[0] });
      list = list.slice(1);
    }
  }
}

function toOrtTensor(f) {
  return new ort.Tensor(f.type, f.data, f.dims);
}

/** A typed array that owns its whole buffer can be transferred as is; otherwise copy it once. */
function ownBuffer(data) {
  if (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength) return data;
  return data.slice();
}

async function onMessage(msg) {
  switch (msg.type) {
    case 'init': {
      try {
        await prime(msg.primer);
        const before = process.memoryUsage().rss;
        rssAtInit = before;
        const created = await createSession(msg.modelFile, msg.options, msg.executionProviders);
        session = created.session;
        const after = process.memoryUsage().rss;
        parentPort.postMessage({
          type: 'ready',
          rssGrowth: Math.max(0, after - before),
          provider: created.provider,
          note: created.note,
          inputs: session.inputNames,
          outputs: session.outputNames,
          loop: binding ? 'blocking' : 'event',
        });
      } catch (err) {
        parentPort.postMessage({ type: 'initError', message: String(err?.message ?? err) });
      }
      return;
    }
    case 'run': {
      // Taken back before it began (the scheduler gave it to an instance that was free first): never run it.
      if (claims && msg.claim != null && Atomics.compareExchange(claims, msg.claim, 0, 1) !== 0) {
        parentPort.postMessage({ type: 'skipped', id: msg.id });
        return;
      }
      if (crashArmed) crashNow(crashArmed); // outside the try: the thread must die, not report a runError
      try {
        if (!session) throw new Error('instance has no session (init failed or not done)');
        const received = performance.now();
        const feeds = {};
        for (const f of msg.feeds) feeds[f.name] = toOrtTensor(f);
        const t0 = performance.now();
        const results = await session.run(feeds, msg.fetches);
        const t1 = performance.now();
        const computeUs = Math.round((t1 - t0) * 1000);
        const outputs = [];
        const transfer = [];
        for (const name of msg.fetches) {
          const t = results[name];
          // string tensors come back as string[]: cloned, nothing to transfer
          const data = Array.isArray(t.data) ? t.data : ownBuffer(t.data);
          outputs.push({ name, type: t.type, dims: [...t.dims], data });
          if (!Array.isArray(data)) transfer.push(data.buffer);
        }
        // compute_input / compute_output, this thread's side: tensors made for onnxruntime, outputs copied out
        const inputUs = (t0 - received) * 1000;
        const outputUs = (performance.now() - t1) * 1000;
        // rxAbs/txAbs: when this thread took the batch and answered, on the clock every thread shares
        // (timeOrigin-based ms), for the hand-off split of bench/sim-fidelity/decompose.ts
        parentPort.postMessage({ type: 'result', id: msg.id, outputs, computeUs, inputUs, outputUs, rxAbs: performance.timeOrigin + received, txAbs: performance.timeOrigin + performance.now() }, transfer);
      } catch (err) {
        parentPort.postMessage({ type: 'runError', id: msg.id, message: String(err?.message ?? err) });
      }
      return;
    }
    case 'host': {
      try {
        if (!binding) throw new Error('hosting needs the synchronous native session, which this onnxruntime-node does not offer');
        if (!session) throw new Error('instance has no session (init failed or not done)');
        const mod = await importProgram(msg.module);
        guest = mod.startProgram(msg.init, programIo());
        parentPort.postMessage({ type: 'hosted' });
      } catch (err) {
        parentPort.postMessage({ type: 'hostError', message: String(err?.message ?? err) });
      }
      return;
    }
    case 'guest': {
      guest?.receive(msg.body);
      return;
    }
    case 'measure': {
      parentPort.postMessage({ type: 'measured', id: msg.id, rssGrowth: Math.max(0, process.memoryUsage().rss - rssAtInit) });
      return;
    }
    case 'crash': {
      // Only where the test harness asked for its hooks (workerData.testHooks; see instance-worker.ts).
      if (workerData?.testHooks !== true) return;
      // Armed, not done now: messages are taken one at a time, so dying on this message would always fall
      // between two batches. Dying in the next batch is what a crash inside onnxruntime looks like.
      crashArmed = msg.how;
      return;
    }
    case 'hold': {
      // Test hook (as 'crash'): stop here until the parent opens the gate, so the messages behind this one
      // are known not to have begun while a test acts on them (takes one back) without racing the thread.
      if (workerData?.testHooks !== true) return;
      const gate = new Int32Array(msg.gate);
      while (Atomics.load(gate, 0) === 0) Atomics.wait(gate, 0, 0);
      return;
    }
    case 'close': {
      try {
        await session?.release();
      } finally {
        session = null;
        parentPort.close();
      }
      return;
    }
    default:
      parentPort.postMessage({ type: 'runError', id: msg.id, message: `unknown message type '${msg.type}'` });
  }
}

/**
 * The hosted program's module. The server's programs are TypeScript, and a worker thread does not get the
 * loader the main thread was started with (`--import tsx`; node 20 runs no --import in a worker), so this
 * thread registers tsx's loader before it imports one: a failed import would be remembered, a retry not.
 */
let tsLoader = false;
async function importProgram(url) {
  if (url.endsWith('.ts') && !tsLoader) {
    const { register } = await import('tsx/esm/api');
    register();
    tsLoader = true;
  }
  return import(url);
}

/**
 * Hosted program: what the worker gives it. `run` is the session now, on plain tensors; `post` answers
 * the main thread; `poll` hands the program the messages meant for it that came meanwhile (a step's
 * boundary takes the requests that arrived during the step), keeping the others in order for the loop.
 */
function programIo() {
  return {
    run(inputs) {
      if (crashArmed) crashNow(crashArmed); // the crash test hook: a step is this thread's batch
      return runPlainTensors(session, ort.Tensor, inputs);
    },
    post(body) {
      parentPort.postMessage({ type: 'guest', body });
    },
    poll() {
      for (let got; (got = receiveMessageOnPort(parentPort)); ) {
        if (got.message.type === 'guest') guest?.receive(got.message.body);
        else backlog.push(got.message);
      }
    },
  };
}

/**
 * The blocking loop: sleep until the parent bumps the wake word, then take every queued message. The
 * counter is bumped after each postMessage, so a message posted between an empty receive and the wait
 * makes the wait return at once (never a lost wake-up). `await` on the native session's plain values only
 * hops the microtask queue; an error thrown out of here (the crash hook) ends the thread as a crash.
 * A hosted program runs between messages, one task per turn, and the thread sleeps only when it has
 * nothing due; its promise continuations (a replan's answer) get a microtask hop per turn, and every one
 * still pending runs (an event-loop turn) before the thread sleeps.
 */
async function blockingLoop() {
  let seen = Atomics.load(wake, 0);
  let settled = false;
  for (;;) {
    const got = backlog.length > 0 ? { message: backlog.shift() } : receiveMessageOnPort(parentPort);
    if (got) {
      const msg = got.message;
      settled = false;
      await onMessage(msg);
      if (msg.type === 'close') return;
      continue;
    }
    const sleepMs = guest ? guest.turn() : Infinity;
    if (sleepMs === 0) {
      settled = false;
      await undefined;
      continue;
    }
    if (guest && !settled) {
      settled = true;
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    Atomics.wait(wake, 0, seen, sleepMs === Infinity ? undefined : sleepMs);
    seen = Atomics.load(wake, 0);
  }
}

if (binding) {
  // Started from an immediate so this module finishes evaluating first.
  setImmediate(() => {
    blockingLoop().catch((err) => {
      // Rethrown outside the promise: an uncaught exception, which the parent sees as the thread crashing.
      setImmediate(() => {
        throw err;
      });
    });
  });
} else {
  // One message at a time, in arrival order: a 'close' that arrives while a run is in progress must not
  // release the session under it.
  let queue = Promise.resolve();
  parentPort.on('message', (msg) => {
    queue = queue.then(() => onMessage(msg));
  });
}
