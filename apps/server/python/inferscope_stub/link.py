"""The stub's side of calls INTO the server while a model runs (BLS inference, custom metrics) and of
messages the model sends on its own (decoupled responses). The TypeScript side is
apps/server/src/backends/stub/protocol-calls.ts.

The main thread runs the model; one reader thread owns the channel's reading end: it hands `run`/`close`
to the main thread through a queue and answers calls (by call id) as their replies arrive, so a model
blocked in `exec()` or a response thread waiting for a reply never stalls the channel. Writes from any
thread are serialised by the channel's lock.
"""
import itertools
import queue
import threading

from . import cancellation
from .wire import ChannelClosed


class CallFailed(Exception):
    """The server answered a call with an error, or went away before answering."""


class _Reply:
    """A one-shot reply slot; also a stream of replies for decoupled BLS (until one says final)."""

    def __init__(self, stream):
        self.stream = stream
        self.call = None  # the call id, once sent
        self.items = queue.Queue()
        self.callbacks = []
        self.lock = threading.Lock()

    def put(self, item):
        with self.lock:
            cbs = list(self.callbacks)
        self.items.put(item)
        for cb in cbs:
            cb(item)


class ServerLink:
    def __init__(self, channel):
        self.channel = channel
        self.jobs = queue.SimpleQueue()  # C-implemented: one lock, no Condition (the main thread takes a job per batch)
        self._ids = itertools.count(1)
        self._pending = {}
        self._lock = threading.Lock()
        self._closed = False
        self._reader = threading.Thread(target=self._read_loop, name="inferscope-reader", daemon=True)
        # set by stub_main once the model is loaded: turns a `run` message into what the runner takes, on
        # this thread, while the main thread still runs the batch before (the result or the exception)
        self.prepare = None

    def start(self):
        self._reader.start()

    def next_job(self):
        """The next (message, body) for the main thread: run or close; (None, None) at end of stream."""
        return self.jobs.get()

    def send(self, message, chunks=(), body_len=0):
        self.channel.write(message, chunks, body_len)

    def call(self, message, chunks=(), body_len=0, stream=False):
        """Sends a message that the server answers (by `call` id); returns the reply slot."""
        reply = _Reply(stream)
        with self._lock:
            if self._closed:
                raise CallFailed("the server closed the stub's channel")
            cid = next(self._ids)
            self._pending[cid] = reply
        message["call"] = cid
        reply.call = cid
        self.channel.write(message, chunks, body_len)
        return reply

    def call_sync(self, message, chunks=(), body_len=0):
        """call() and wait for its one reply: (reply message, body)."""
        msg, body = self.call(message, chunks, body_len).items.get()
        if msg is None:
            raise CallFailed("the server closed the stub's channel")
        if msg.get("error") is not None and msg["type"] == "callReply":
            raise CallFailed(msg["error"])
        return msg, body

    def _read_loop(self):
        while True:
            try:
                msg, body = self.channel.read()
            except ChannelClosed:
                msg, body = None, None
            if msg is None:
                break
            kind = msg.get("type")
            if kind == "run" and self.prepare is not None:
                try:
                    msg["prepared"] = (self.prepare(msg, body), None)
                except Exception as e:  # noqa: BLE001 - reported as this batch's runError by the main thread
                    msg["prepared"] = (None, e)
                self.jobs.put((msg, body))
            elif kind in ("run", "close"):
                self.jobs.put((msg, body))
            elif kind in ("callReply", "blsResponse"):
                cid = msg.get("call")
                with self._lock:
                    reply = self._pending.get(cid)
                    done = reply is not None and (not reply.stream or msg.get("final", True))
                    if done:
                        del self._pending[cid]
                if reply is not None:
                    reply.put((msg, body))
            elif kind == "cancel":
                cancellation.on_cancel(msg)
            elif kind == "drained":
                cancellation.on_drained(msg)
        with self._lock:
            self._closed = True
            pending = list(self._pending.values())
            self._pending.clear()
        for reply in pending:
            reply.put((None, None))
        self.jobs.put((None, None))


# the link of this process, set by stub_main once the channel is up (None in auto_complete and tests)
current = None
_ids = itertools.count(1)


def require():
    if current is None:
        raise CallFailed("this call needs a running InferScope server (it is not available outside a model instance)")
    return current
