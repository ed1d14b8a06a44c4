"""The stub's side of the claim words (apps/server/src/backends/stub/claim-region.ts explains them): before
each batch the stub marks it begun, then checks whether the server took it back; only then may it skip it,
and only after the server confirms (it may have seen "begun" first and let the batch run here)."""
import os

from .link import CallFailed

CLAIM_FD = 4
CLAIM_SLOTS = 64


def generation(batch_id):
    return 1 + (batch_id // CLAIM_SLOTS) % 255


class Claims:
    def __init__(self, link, fd=CLAIM_FD):
        self.link = link
        try:
            os.fstat(fd)
            self.fd = fd
        except OSError:
            self.fd = None  # started without a region (a tool, a test): every batch runs

    def begin(self, batch_id):
        """True: run batch `batch_id`; False: the server took it back, it must never begin here."""
        if self.fd is None:
            return True
        slot = batch_id % CLAIM_SLOTS
        gen = generation(batch_id)
        os.pwrite(self.fd, bytes((gen,)), CLAIM_SLOTS + slot)
        if os.pread(self.fd, 1, slot)[0] != gen:
            return True
        try:
            reply, _ = self.link.call_sync({"type": "claim", "id": batch_id})
        except CallFailed:
            return False  # the server is gone: no one is waiting for this batch
        return bool(reply.get("value"))
