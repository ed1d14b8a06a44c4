"""Decoupled models (`model_transaction_policy { decoupled: true }`): each request has a response sender;
the model sends 0..n responses from any thread, the last with TRITONSERVER_RESPONSE_COMPLETE_FINAL.
Each send is one `response` frame to the server (apps/server/src/backends/stub/decoupled-run.ts), which
streams it to the client. A sender refuses sends after its final one; once the client cancelled, sends
are dropped (the model sees `is_cancelled()`; cancellation.py marks it), so a response thread can still finish and finalize() is
not left waiting for it.

Backpressure: the server acknowledges each response once it has left for the client (`drained`, by count).
A send with data waits while this request's unacknowledged responses reach the window the server sets
(INFERSCOPE_SEND_WINDOW = "bytes,responses", the home of the numbers is decoupled-runs.ts): a client that
does not read slows the model down to its own pace instead of the server holding everything the model
sends. A cancellation (the client went away, or stayed stuck past the server's stall bound) ends the wait.
"""
import collections
import os
import sys
import threading

import triton_python_backend_utils as pb_utils

from . import cancellation, link
from .tensors import layout

def _window():
    raw = os.environ.get("INFERSCOPE_SEND_WINDOW", "")
    try:
        size, count = (int(v) for v in raw.split(","))
        return max(size, 1), max(count, 1)
    except ValueError:
        return None  # not started by a server that acknowledges (a test of the stub alone): no window


_WINDOW = _window()


class ResponseSender:
    def __init__(self, run, index, request_id):
        self._run = run
        self._index = index
        self._request_id = request_id
        self._closed = False
        self._cancelled = False
        # sends are serialised (in order) by _lock; the window's state by _room, which a send waits on
        # while holding _lock, so the reader thread can acknowledge or cancel meanwhile
        self._lock = threading.Lock()
        self._room = threading.Condition(threading.Lock())
        self._unacked = collections.deque()
        self._unacked_bytes = 0

    def is_cancelled(self):
        return self._cancelled

    def _cancel(self):
        """cancellation.py: the request is cancelled; a send waiting for room gives up."""
        self._cancelled = True
        with self._room:
            self._room.notify_all()

    def _drained(self, n):
        """The server says `n` more responses left for the client: room for as many."""
        with self._room:
            for _ in range(min(n, len(self._unacked))):
                self._unacked_bytes -= self._unacked.popleft()
            self._room.notify_all()

    def _wait_for_room(self):
        if _WINDOW is None:
            return
        size, count = _WINDOW
        with self._room:
            while not self._cancelled and self._unacked and (self._unacked_bytes >= size or len(self._unacked) >= count):
                self._room.wait()

    def _sent(self, nbytes):
        if _WINDOW is not None:
            with self._room:
                self._unacked.append(nbytes)
                self._unacked_bytes += nbytes

    def send(self, response=None, flags=0):
        final = bool(flags & pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        if response is None and not final:
            raise pb_utils.TritonModelException("a response must be given unless flags is TRITONSERVER_RESPONSE_COMPLETE_FINAL")
        if response is not None and not isinstance(response, pb_utils.InferenceResponse):
            raise pb_utils.TritonModelException("send() takes a pb_utils.InferenceResponse, got %s" % type(response).__name__)
        with self._lock:
            if self._closed:
                raise pb_utils.TritonModelException("Unable to send response. Response sender has been closed.")
            if final:
                self._closed = True
            try:
                self._send(response, final)
            finally:
                # known (to cancellations and acknowledgements) until its final response has gone
                if final:
                    cancellation.forget(self._run, self._index)

    def _send(self, response, final):
        if self._cancelled and not final:
            return
        msg = {"type": "response", "run": self._run, "index": self._index, "final": final}
        chunks, end = (), 0
        if response is not None and response.has_error():
            err = response.error()
            msg["error"] = str(err.message() if hasattr(err, "message") else err)
            msg["code"] = _code_name(err)
        elif response is not None:
            arrays = []
            for t in response.output_tensors():
                if not isinstance(t, pb_utils.Tensor):
                    raise pb_utils.TritonModelException("a response holds a %s, not a Tensor" % type(t).__name__)
                arrays.append((t.name(), t.as_numpy()))
            metas, chunks, end = layout(arrays)
            msg["outputs"] = metas
        if response is not None:
            # a flag-only final response is a few bytes and ends the request: it never waits
            self._wait_for_room()
            if self._cancelled and not final:
                return
            self._sent(end)
        try:
            link.require().send(msg, chunks, end)
        except OSError as e:
            print("response of request %r not sent: %s" % (self._request_id, e), file=sys.stderr)


def _code_name(err):
    code = err.code() if hasattr(err, "code") else pb_utils.TritonError.INTERNAL
    for name in ("UNKNOWN", "INTERNAL", "NOT_FOUND", "INVALID_ARG", "UNAVAILABLE", "UNSUPPORTED", "ALREADY_EXISTS", "CANCELLED"):
        if getattr(pb_utils.TritonError, name) == code:
            return name
    return "INTERNAL"
