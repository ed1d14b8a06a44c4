"""Entry point of an InferScope stub process (one per model instance).

The server spawns `python3 -u stub_main.py` with fd 3 as the frame channel (see inferscope_stub/wire.py)
and fd 4 as its claim words (inferscope_stub/claims.py), sends `init`, and waits for `ready` or
`initError`. Then it sends `run` messages, also while one runs; each is answered with `result` or
`runError`, one at a time, in order, unless the server took it back before it began. `close` (or the
channel closing) calls finalize and exits. While a model runs it may call the server (BLS, custom
metrics) and a decoupled model sends `response` frames from any thread: a reader thread
(inferscope_stub/link.py) owns the channel's reading end.
stdout and stderr are the model's own: the server logs them, prefixed with model/version/instance.
"""
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # inferscope_stub and triton_python_backend_utils

from inferscope_stub.wire import Channel  # noqa: E402  (numpy-free: errors can be reported without it)
from inferscope_stub.errors import RequestError, StubInitError, describe  # noqa: E402

CHANNEL_FD = 3


def die_with_parent():
    """Linux: SIGKILL this process when the server dies, even if it is killed itself (no orphans).

    What the model forks (os.fork, multiprocessing) gets the same: it dies when this stub dies. The server
    also kills the stub's whole process group; this covers a server that was SIGKILLed and could not.
    """
    try:
        import ctypes
        import signal

        parent = os.getppid()
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)
        os.register_at_fork(after_in_child=lambda: libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL))
    except Exception:
        pass  # not Linux: the closed channel still ends the stub once it is idle


def load_runner(init):
    backend = init.get("backend")
    if backend == "pytorch":
        from inferscope_stub.torch_runner import TorchRunner
        return TorchRunner(init)
    if backend == "python":
        from inferscope_stub.python_runner import PythonRunner
        return PythonRunner(init)
    raise StubInitError("unknown stub backend %r" % backend)


def main():
    die_with_parent()
    channel = Channel(CHANNEL_FD)
    init, _ = channel.read()
    if init is None:
        return 0
    from inferscope_stub import link

    server = link.ServerLink(channel)
    link.current = server
    # before the model loads: initialize() may create metric families (calls answered by the server)
    server.start()
    try:
        try:
            import numpy  # noqa: F401
        except ImportError as e:
            raise StubInitError(
                "numpy is not importable by %s (%s); install it with: apt-get install python3-numpy" % (sys.executable, e)
            )
        runner = load_runner(init)
    except StubInitError as e:
        channel.write({"type": "initError", "message": str(e)})
        return 1
    except BaseException as e:  # noqa: BLE001 - whatever the model did, the server must hear of it
        traceback.print_exc()
        channel.write({"type": "initError", "message": describe(e)})
        return 1
    from inferscope_stub.tensors import decode_tensor, layout
    from inferscope_stub.claims import Claims
    from inferscope_stub.wire import QueuedWriter

    def decode(msg, body):
        t0 = time.perf_counter()
        requests = [
            ([(t["name"], decode_tensor(t, body)) for t in r["inputs"]], r.get("outputs") or [], r.get("id"))
            for r in msg["requests"]
        ]
        return requests, time.perf_counter() - t0

    claims = Claims(server)
    # A TorchScript batch's tensors are decoded by the reader thread while the batch before runs, and its
    # answer is written by a writer thread: the main thread goes from one forward() to the next.
    answers_out = channel
    if init.get("backend") == "pytorch":
        server.prepare = decode
        answers_out = QueuedWriter(channel)
    channel.write(runner.ready_message())
    while True:
        msg, body = server.next_job()
        if msg is None or msg["type"] == "close":
            break
        if msg["type"] != "run":
            continue
        if not claims.begin(msg["id"]):
            continue  # taken back by the server for another instance: it never begins here
        started = time.perf_counter()
        try:
            prepared, failed = msg.get("prepared") or (decode(msg, body), None)
            if failed is not None:
                raise failed
            requests, decode_s = prepared
            decoded = time.perf_counter()
            answers = runner.run(requests, msg["id"])
            ran = time.perf_counter()
            responses, chunks, end = [], [], 0
            # None: a decoupled model, whose responses went out through its senders
            for a in answers or ():
                if isinstance(a, RequestError):
                    # fails this request alone (Triton's per-response error); the batch's others are answered
                    responses.append({"error": a.message, "code": a.code})
                    continue
                metas, parts, end = layout(a, end)
                responses.append({"outputs": metas})
                chunks.extend(parts)
        except BaseException as e:  # noqa: BLE001
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            traceback.print_exc()
            answers_out.write({"type": "runError", "id": msg["id"], "message": describe(e)})
            continue
        finished = time.perf_counter()
        compute_us = int((finished - started) * 1e6)
        # this process's side of compute_input / compute_output: decoding the tensors (ahead, on the reader
        # thread, for TorchScript), laying the outputs out
        phases = {"inputUs": int((decode_s + (decoded - started)) * 1e6), "outputUs": int((finished - ran) * 1e6)}
        answers_out.write({"type": "result", "id": msg["id"], "responses": responses, "computeUs": compute_us, **phases}, chunks, end)
    if answers_out is not channel:
        answers_out.close()
    try:
        runner.finalize()
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
    return 0


if __name__ == "__main__":
    sys.exit(main())
