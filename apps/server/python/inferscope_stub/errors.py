"""Errors the stub reports to the server, and how an exception becomes one line of message."""


class StubInitError(Exception):
    """Loading failed for a reason worth saying as it is (missing torch, bad model file, ...)."""


class StubRunError(Exception):
    """A batch failed for a reason the server should show as it is (wrong response count, ...)."""


def describe(e):
    """'ValueError: message' (the message alone for our own errors)."""
    if isinstance(e, (StubInitError, StubRunError)):
        return str(e)
    text = str(e).strip()
    return "%s: %s" % (type(e).__name__, text) if text else type(e).__name__
