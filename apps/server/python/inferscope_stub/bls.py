"""BLS (business logic scripting): `pb_utils.InferenceRequest(model_name=..., ...).exec()` and
`async_exec()` send the request to the server, which runs it through the called model's own scheduler
(so it batches with other traffic) and answers with the response, or with a stream of responses when
`decoupled=True`. Errors of the called model come back as the response's error, never as an exception,
as in Triton; only a lost server raises.
"""
import asyncio
import threading

import triton_python_backend_utils as pb_utils

from . import link
from .tensors import decode_tensor, layout

# the request model.py last touched on this thread: a BLS call made while handling it is its child
_touched = threading.local()


def touch(request):
    _touched.request = request


def _parent():
    return getattr(_touched, "request", None)


def _inherit_parent_in_threads():
    """A thread model.py starts while handling a request (a decoupled model's response thread), and a
    task it hands to a thread pool, makes its BLS calls as children of that request: the server then
    knows their chain (nesting bound, deadlock check) on that path too. Thread-locals do not follow a new
    thread by themselves, so Thread and ThreadPoolExecutor.submit carry the parent over."""
    import concurrent.futures

    thread_init = threading.Thread.__init__
    bootstrap = threading.Thread._bootstrap_inner
    submit = concurrent.futures.ThreadPoolExecutor.submit

    def init(self, *args, **kwargs):
        thread_init(self, *args, **kwargs)
        self._inferscope_parent = _parent()

    def bootstrap_inner(self):
        parent = getattr(self, "_inferscope_parent", None)
        if parent is not None:
            _touched.request = parent
        bootstrap(self)

    def submit_with_parent(self, fn, /, *args, **kwargs):
        parent = _parent()
        if parent is None:
            return submit(self, fn, *args, **kwargs)

        def run(*a, **k):
            before = _parent()
            _touched.request = parent
            try:
                return fn(*a, **k)
            finally:
                _touched.request = before

        return submit(self, run, *args, **kwargs)

    threading.Thread.__init__ = init
    threading.Thread._bootstrap_inner = bootstrap_inner
    concurrent.futures.ThreadPoolExecutor.submit = submit_with_parent


_inherit_parent_in_threads()


def _message(req, decoupled):
    parent = _parent()
    arrays = []
    for t in req._inputs:  # not inputs(): that would mark this BLS request itself as the one worked on
        if not isinstance(t, pb_utils.Tensor):
            raise pb_utils.TritonModelException("BLS inputs must be pb_utils.Tensor objects, got %s" % type(t).__name__)
        arrays.append((t.name(), t.as_numpy()))
    metas, chunks, end = layout(arrays)
    name = req.model_name()
    version = req.model_version()
    msg = {
        "type": "bls",
        "model": name,
        "inputs": metas,
        "outputs": list(req.requested_output_names()),
        "decoupled": bool(decoupled),
    }
    if version is not None and int(version) > 0:
        msg["version"] = str(int(version))
    if req.timeout():
        msg["timeoutUs"] = int(req.timeout())
    if parent is not None and getattr(parent, "_run", None) is not None:
        msg["run"] = parent._run
        msg["index"] = parent._index
    if threading.current_thread() is not threading.main_thread():  # execute() runs on the main thread
        msg["detached"] = True
    return msg, chunks, end


def response_of(msg, body):
    """An InferenceResponse from a blsResponse message."""
    if msg is None:
        return pb_utils.InferenceResponse(error=pb_utils.TritonError("the server closed the stub's channel", pb_utils.TritonError.UNAVAILABLE))
    if msg.get("error") is not None:
        code = getattr(pb_utils.TritonError, msg.get("code") or "INTERNAL", pb_utils.TritonError.INTERNAL)
        return pb_utils.InferenceResponse(error=pb_utils.TritonError(msg["error"], code))
    tensors = [pb_utils.Tensor(m["name"], decode_tensor(m, body)) for m in msg.get("outputs") or []]
    return pb_utils.InferenceResponse(output_tensors=tensors)


def _start(req, decoupled):
    msg, chunks, end = _message(req, decoupled)
    try:
        return link.require().call(msg, chunks, end, stream=decoupled)
    except link.CallFailed as e:
        return e


class ResponseIterator:
    """The responses of a decoupled BLS call, in order; the last one is the (possibly empty) final one.
    cancel() asks the server to cancel the call (Triton's `bls_response_iterator.cancel()`): still queued,
    it is taken out; running, the called model's request sees is_cancelled(). The iterator then ends with
    a CANCELLED error response."""

    def __init__(self, reply, call_id):
        self._reply = reply
        self._call = call_id
        self._done = False

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        msg, body = self._reply.items.get()
        if msg is None or msg.get("final", True):
            self._done = True
        return response_of(msg, body)

    def cancel(self):
        if self._done or self._call is None:
            return
        try:
            link.require().send({"type": "blsCancel", "call": self._call})
        except (OSError, link.CallFailed):
            pass


class _FailedIterator(ResponseIterator):
    """A decoupled call that never reached the server: its one, final error response."""

    def __init__(self, err):
        super().__init__(None, None)
        self._err = err

    def __next__(self):
        if self._done:
            raise StopIteration
        self._done = True
        return self._err


def exec_request(req, decoupled):
    reply = _start(req, decoupled)
    if isinstance(reply, Exception):
        err = pb_utils.InferenceResponse(error=pb_utils.TritonError(str(reply), pb_utils.TritonError.UNAVAILABLE))
        return _FailedIterator(err) if decoupled else err
    if decoupled:
        return ResponseIterator(reply, reply.call)
    return response_of(*reply.items.get())


def async_exec_request(req, decoupled):
    """An awaitable for the response (decoupled: for the iterator over the responses)."""
    loop = asyncio.get_event_loop()
    future = loop.create_future()
    reply = _start(req, decoupled)
    if isinstance(reply, Exception):
        err = pb_utils.InferenceResponse(error=pb_utils.TritonError(str(reply), pb_utils.TritonError.UNAVAILABLE))
        future.set_result(_FailedIterator(err) if decoupled else err)
        return future
    if decoupled:
        future.set_result(ResponseIterator(reply, reply.call))
        return future

    def arrived(item):
        loop.call_soon_threadsafe(lambda: future.done() or future.set_result(response_of(*item)))

    with reply.lock:
        ready = not reply.items.empty()
        if not ready:
            reply.callbacks.append(arrived)
    if ready:
        future.set_result(response_of(*reply.items.get()))
    return future
