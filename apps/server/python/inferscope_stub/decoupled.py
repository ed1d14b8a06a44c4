"""Decoupled models (`model_transaction_policy { decoupled: true }`): each request has a response sender;
the model sends 0..n responses from any thread, the last with TRITONSERVER_RESPONSE_COMPLETE_FINAL.
Each send is one `response` frame to the server (apps/server/src/backends/stub/decoupled-run.ts), which
streams it to the client. A sender refuses sends after its final one; once the client cancelled, sends
are dropped (the model sees `is_cancelled()`; cancellation.py marks it), so a response thread can still finish and finalize() is
not left waiting for it.
"""
import sys
import threading

import triton_python_backend_utils as pb_utils

from . import cancellation, link
from .tensors import layout

class ResponseSender:
    def __init__(self, run, index, request_id):
        self._run = run
        self._index = index
        self._request_id = request_id
        self._closed = False
        self._cancelled = False
        self._lock = threading.Lock()

    def is_cancelled(self):
        return self._cancelled

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
                cancellation.forget(self._run, self._index)
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
