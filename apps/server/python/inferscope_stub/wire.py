"""Frames between the server and this stub (the TypeScript side is apps/server/src/backends/stub/protocol.ts).

    u32 header length H | u32 body length B | H bytes of JSON (space-padded so 8 + H is a multiple of 8)
    | B bytes of body: raw tensor bytes, each tensor at an 8-aligned offset

Numeric tensors are little-endian element bytes; BYTES tensors are KServe's layout (u32 length + bytes per
element). Only the metadata is JSON: tensor data is never encoded.
"""
import json
import os
import struct
import threading

ALIGN = 8


class ChannelClosed(Exception):
    pass


class Channel:
    """Reads and writes frames on one file descriptor (a socket pair end or a pipe). Reading belongs to one
    thread; writing may happen from any thread (decoupled response threads, BLS calls): a lock keeps each
    frame whole."""

    def __init__(self, fd):
        self.fd = fd
        self.reader = open(fd, "rb", buffering=0, closefd=False)
        self._write_lock = threading.Lock()

    def _read_exact(self, n):
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            k = self.reader.readinto(view[got:])
            if not k:
                return None  # the server closed its end: it is gone or wants us gone
            got += k
        return buf

    def read(self):
        """(message dict, body bytearray) or (None, None) at end of stream."""
        prefix = self._read_exact(8)
        if prefix is None:
            return None, None
        header_len, body_len = struct.unpack("<II", prefix)
        header = self._read_exact(header_len)
        body = self._read_exact(body_len) if body_len > 0 else bytearray()
        if header is None or body is None:
            return None, None
        return json.loads(header.decode("utf-8")), body

    def write(self, message, chunks=(), body_len=0):
        header = json.dumps(message, separators=(",", ":")).encode("utf-8")
        header += b" " * ((ALIGN - (8 + len(header)) % ALIGN) % ALIGN)
        parts = [struct.pack("<II", len(header), body_len), header, *chunks]
        views = [memoryview(p).cast("B") for p in parts]
        with self._write_lock:
            while views:
                written = os.writev(self.fd, views)
                while views and written >= len(views[0]):
                    written -= len(views[0])
                    views.pop(0)
                if views and written > 0:
                    views[0] = views[0][written:]


class QueuedWriter:
    """Writes frames from a thread of its own, in the order given: the main thread hands a batch's answer
    over and goes on to the next batch at once. Writing to the channel wakes the server (on a VM that
    wake-up is tens of microseconds inside the write), which would otherwise sit between two batches.
    Only for a runner whose frames the main thread alone writes (TorchScript): a python model's own
    messages (BLS calls, decoupled responses) must stay in order with its answers."""

    _STOP = object()

    def __init__(self, channel):
        import queue

        self.channel = channel
        self._items = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="inferscope-writer", daemon=True)
        self._thread.start()

    def write(self, message, chunks=(), body_len=0):
        self._items.put((message, chunks, body_len))

    def close(self):
        """Waits until everything handed over is written."""
        self._items.put(self._STOP)
        self._thread.join()

    def _run(self):
        while True:
            item = self._items.get()
            if item is self._STOP:
                return
            try:
                self.channel.write(*item)
            except OSError:
                return  # the server is gone: nothing more can reach it
