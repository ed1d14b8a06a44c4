"""Errors the stub reports to the server, and how an exception becomes one line of message."""


class StubInitError(Exception):
    """Loading failed for a reason worth saying as it is (missing torch, bad model file, ...)."""


class StubRunError(Exception):
    """A batch failed for a reason the server should show as it is (wrong response count, ...)."""


class RequestError:
    """One request's answer when its InferenceResponse carries a TritonError: that request fails with this
    message (and the HTTP status Triton gives the code), the other requests of the batch are answered."""

    __slots__ = ("message", "code")

    def __init__(self, message, code):
        self.message = message
        self.code = code


def describe(e):
    """'ValueError: message' (the message alone for our own errors)."""
    if isinstance(e, (StubInitError, StubRunError)):
        return str(e)
    text = str(e).strip()
    return "%s: %s" % (type(e).__name__, text) if text else type(e).__name__
