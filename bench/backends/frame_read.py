"""What the stub's frame read costs, and whether fewer system calls would help: wire.Channel.read (three
readinto calls: prefix, header, body straight into its own bytearray) against a reader that takes the
whole frame in one readinto into a scratch buffer and copies the body out. Frames are written to a
socket pair by the same process just before each read, so only the read is timed (no wake-up).

    /usr/bin/python3 bench/backends/frame_read.py

Prints per body size the median and best of 5 means of 300 reads, in microseconds.
Measured 2026-12-01 (load average 8-12): 3 KiB 4.1 vs 3.3, 49 KiB 6.6 vs 5.9, 196 KiB 13.1 vs 13.3:
under a microsecond either way, so wire.py keeps the simpler three reads.
"""
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "apps", "server", "python"))
from inferscope_stub.wire import Channel  # noqa: E402

SCRATCH = 256 * 1024  # one read takes a whole frame up to this size (a batch of 64 MLP inputs is 196 KiB)


class OneReadChannel:
    """The alternative: one readinto() of whatever has arrived into a reused scratch buffer (usually the
    whole frame), then one copy of the body into its own bytearray; bytes of the next frame stay."""

    def __init__(self, fd):
        self.fd = fd
        self.reader = open(fd, "rb", buffering=0, closefd=False)
        self.scratch = bytearray(SCRATCH)
        self.view = memoryview(self.scratch)
        self.start = 0  # unread bytes are scratch[start:end]
        self.end = 0

    def _fill(self, n):
        """At least n unread bytes in the scratch buffer (n <= SCRATCH); False at end of stream."""
        if self.end - self.start >= n:
            return True
        if self.start > 0:  # move the unread tail to the front
            tail = self.end - self.start
            self.view[:tail] = self.view[self.start:self.end]
            self.start, self.end = 0, tail
        while self.end < n:
            k = self.reader.readinto(self.view[self.end:])
            if not k:
                return False  # the server closed its end: it is gone or wants us gone
            self.end += k
        return True

    def read(self):
        """(message dict, body bytearray) or (None, None) at end of stream."""
        if not self._fill(8):
            return None, None
        header_len, body_len = struct.unpack_from("<II", self.scratch, self.start)
        if not self._fill(min(8 + header_len + body_len, SCRATCH)) or self.end - self.start < 8 + header_len:
            return None, None
        header = bytes(self.view[self.start + 8: self.start + 8 + header_len])
        self.start += 8 + header_len
        have = min(body_len, self.end - self.start)
        body = bytearray(self.view[self.start: self.start + have])
        self.start += have
        if have < body_len:  # larger than the scratch buffer: the rest goes straight into the body
            body.extend(bytes(body_len - have))
            rest = memoryview(body)[have:]
            got = 0
            while got < len(rest):
                k = self.reader.readinto(rest[got:])
                if not k:
                    return None, None
                got += k
        if self.start == self.end:
            self.start = self.end = 0
        return json.loads(header.decode("utf-8")), body


def frame(body_len):
    meta = {"type": "run", "id": 1, "requests": [{"inputs": [{"name": "input", "datatype": "FP32", "shape": [body_len // 3136, 784], "offset": 0, "bytes": body_len}], "outputs": []}]}
    header = json.dumps(meta).encode()
    header += b" " * ((8 - (8 + len(header)) % 8) % 8)
    return struct.pack("<II", len(header), body_len) + header + bytes(body_len)


def main():
    for body_len in (3136, 16 * 3136, 64 * 3136):
        data = frame(body_len)
        row = []
        for cls in (Channel, OneReadChannel):
            a, b = socket.socketpair()
            b.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
            a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
            ch = cls(b.fileno())
            means = []
            for _ in range(5):
                total = 0.0
                for _ in range(300):
                    a.sendall(data)
                    t0 = time.perf_counter()
                    ch.read()
                    total += time.perf_counter() - t0
                means.append(total / 300 * 1e6)
            means.sort()
            row.append("%s median %.1f best %.1f us" % (cls.__name__, means[2], means[0]))
            a.close()
            b.close()
        print("%7.1f KiB: %s" % (body_len / 1024, "; ".join(row)))


if __name__ == "__main__":
    main()
