"""Custom metrics (`pb_utils.MetricFamily`, `family.Metric(labels=...)`): the server holds the values
(apps/server/src/metrics/custom-metrics.ts) and publishes them on its metrics port; the stub asks it to
create families and metrics (an answered call, so a conflicting definition raises here), sends updates
in order, and reads value() back from the server, so every instance of a model that uses the same family
and labels sees one shared series, as in Triton.
"""
import triton_python_backend_utils as pb_utils

from . import link

KINDS = {0: "counter", 1: "gauge", 2: "histogram"}


def _call(message):
    try:
        reply, _ = link.require().call_sync(message)
    except link.CallFailed as e:
        raise pb_utils.TritonModelException(str(e))
    return reply


class Metric:
    def __init__(self, family, labels, buckets=None):
        if labels is not None and not isinstance(labels, dict):
            raise pb_utils.TritonModelException("labels must be a dict of str to str")
        self._family = family
        labels = {str(k): str(v) for k, v in (labels or {}).items()}
        msg = {"type": "metric", "family": family._id, "labels": labels}
        if buckets is not None:
            msg["buckets"] = [float(b) for b in buckets]
        if family._kind == "histogram" and buckets is None:
            raise pb_utils.TritonModelException("a histogram metric needs buckets")
        self._id = _call(msg)["id"]

    def _op(self, op, value):
        link.require().send({"type": "metricOp", "metric": self._id, "op": op, "value": float(value)})

    def increment(self, value):
        if self._family._kind == "histogram":
            raise pb_utils.TritonModelException("increment() is not supported for a histogram; use observe()")
        if self._family._kind == "counter" and value < 0:
            raise pb_utils.TritonModelException("a counter cannot be incremented by a negative value")
        self._op("increment", value)

    def set(self, value):
        if self._family._kind != "gauge":
            raise pb_utils.TritonModelException("set() is supported for a gauge only")
        self._op("set", value)

    def observe(self, value):
        if self._family._kind != "histogram":
            raise pb_utils.TritonModelException("observe() is supported for a histogram only")
        self._op("observe", value)

    def value(self):
        return _call({"type": "metricValue", "metric": self._id})["value"]


class MetricFamily:
    COUNTER = 0
    GAUGE = 1
    HISTOGRAM = 2

    def __init__(self, name, description, kind):
        if kind not in KINDS:
            raise pb_utils.TritonModelException("kind must be MetricFamily.COUNTER, GAUGE or HISTOGRAM")
        self._kind = KINDS[kind]
        self._id = _call({"type": "metricFamily", "name": str(name), "description": str(description), "kind": self._kind})["id"]

    def Metric(self, labels=None, buckets=None):
        return Metric(self, labels, buckets)
