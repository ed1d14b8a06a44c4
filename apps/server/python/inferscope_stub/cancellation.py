"""Cancellation of the requests model.py is working on (Triton's `request.is_cancelled()` and
`response_sender.is_cancelled()`): the server sends `cancel` with the request's batch and position when
its client went away, its BLS caller was cancelled or timed out, or a decoupled request outlived its
final-response timeout. The reader thread (link.py) marks the request here; model.py polls the flag.

A request is known here from the moment its batch is built until execute() returned (a decoupled
request: until its sender sent the final flag). A cancellation can overtake its batch (the reader
thread sees it while the main thread has not started that batch yet), so the last few unmatched ones
are kept and applied when the request appears.

The same registry routes the server's `drained` acknowledgements to a decoupled request's sender
(decoupled.py's window); one for a request no longer known (its final flag was sent) is dropped.
"""
import collections
import threading

_live = {}
_early = collections.OrderedDict()
_EARLY_KEPT = 1024
_lock = threading.Lock()


def track(run, index, request):
    key = (run, index)
    with _lock:
        _live[key] = request
        early = _early.pop(key, None) is not None
    if early:
        _mark(request)


def forget(run, index):
    with _lock:
        _live.pop((run, index), None)


def on_cancel(msg):
    key = (msg.get("run"), msg.get("index"))
    with _lock:
        request = _live.get(key)
        if request is None:
            _early[key] = True
            while len(_early) > _EARLY_KEPT:
                _early.popitem(last=False)
    if request is not None:
        _mark(request)


def on_drained(msg):
    with _lock:
        request = _live.get((msg.get("run"), msg.get("index")))
    sender = getattr(request, "_sender", None)
    if sender is not None:
        sender._drained(int(msg.get("n", 1)))


def _mark(request):
    request._cancelled = True
    sender = getattr(request, "_sender", None)
    if sender is not None:
        sender._cancel()
