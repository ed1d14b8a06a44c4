"""InferScope's implementation of the `triton_python_backend_utils` API that Triton python models import
(`import triton_python_backend_utils as pb_utils`): tensors from and to numpy, requests and responses,
errors, model config helpers and datatype conversions, BLS calls, decoupled response senders and custom
metrics (the last three through the stub's link to the server, inferscope_stub/). BYTES (TYPE_STRING) tensors
are numpy object arrays of `bytes`. Written for InferScope from the documented API.
"""
import struct
import sys

import numpy as np

# Triton's TRITONSERVER_DataType numbers
TRITONSERVER_TYPE_INVALID = 0
TRITONSERVER_TYPE_BOOL = 1
TRITONSERVER_TYPE_UINT8 = 2
TRITONSERVER_TYPE_UINT16 = 3
TRITONSERVER_TYPE_UINT32 = 4
TRITONSERVER_TYPE_UINT64 = 5
TRITONSERVER_TYPE_INT8 = 6
TRITONSERVER_TYPE_INT16 = 7
TRITONSERVER_TYPE_INT32 = 8
TRITONSERVER_TYPE_INT64 = 9
TRITONSERVER_TYPE_FP16 = 10
TRITONSERVER_TYPE_FP32 = 11
TRITONSERVER_TYPE_FP64 = 12
TRITONSERVER_TYPE_BYTES = 13

# response flags (TRITONSERVER_ResponseCompleteFlag) and request flags (TRITONSERVER_RequestFlag)
TRITONSERVER_RESPONSE_COMPLETE_FINAL = 1
TRITONSERVER_REQUEST_FLAG_SEQUENCE_START = 1
TRITONSERVER_REQUEST_FLAG_SEQUENCE_END = 2

_NUMPY_BY_TRITON = {
    TRITONSERVER_TYPE_BOOL: np.bool_,
    TRITONSERVER_TYPE_UINT8: np.uint8,
    TRITONSERVER_TYPE_UINT16: np.uint16,
    TRITONSERVER_TYPE_UINT32: np.uint32,
    TRITONSERVER_TYPE_UINT64: np.uint64,
    TRITONSERVER_TYPE_INT8: np.int8,
    TRITONSERVER_TYPE_INT16: np.int16,
    TRITONSERVER_TYPE_INT32: np.int32,
    TRITONSERVER_TYPE_INT64: np.int64,
    TRITONSERVER_TYPE_FP16: np.float16,
    TRITONSERVER_TYPE_FP32: np.float32,
    TRITONSERVER_TYPE_FP64: np.float64,
    TRITONSERVER_TYPE_BYTES: np.object_,
}

_NUMPY_BY_CONFIG = {
    "TYPE_BOOL": bool,
    "TYPE_UINT8": np.uint8,
    "TYPE_UINT16": np.uint16,
    "TYPE_UINT32": np.uint32,
    "TYPE_UINT64": np.uint64,
    "TYPE_INT8": np.int8,
    "TYPE_INT16": np.int16,
    "TYPE_INT32": np.int32,
    "TYPE_INT64": np.int64,
    "TYPE_FP16": np.float16,
    "TYPE_FP32": np.float32,
    "TYPE_FP64": np.float64,
    "TYPE_STRING": np.object_,
}


def triton_to_numpy_type(data_type):
    return _NUMPY_BY_TRITON.get(data_type)


def numpy_to_triton_type(data_type):
    """TRITONSERVER_TYPE_* for a numpy dtype or scalar type (None when there is none)."""
    try:
        dt = np.dtype(data_type)
    except TypeError:
        return None
    if dt == np.object_ or dt.type == np.bytes_:
        return TRITONSERVER_TYPE_BYTES
    for triton, numpy_type in _NUMPY_BY_TRITON.items():
        if numpy_type is not np.object_ and dt == np.dtype(numpy_type):
            return triton
    return None


def triton_string_to_numpy(triton_type_string):
    """'TYPE_FP32' -> np.float32, 'TYPE_STRING' -> np.object_."""
    return _NUMPY_BY_CONFIG[triton_type_string]


def serialize_byte_tensor(input_tensor):
    """A numpy object/bytes array -> uint8 array of u32-length-prefixed elements (C order); None when empty."""
    if input_tensor.size == 0:
        return None
    if input_tensor.dtype != np.object_ and input_tensor.dtype.type != np.bytes_:
        raise TritonModelException("cannot serialize a %s tensor as bytes" % input_tensor.dtype)
    out = bytearray()
    for item in input_tensor.reshape(-1):
        b = item if isinstance(item, bytes) else str(item).encode("utf-8")
        out += struct.pack("<I", len(b))
        out += b
    return np.frombuffer(bytes(out), dtype=np.uint8)


def deserialize_bytes_tensor(encoded_tensor):
    """u32-length-prefixed bytes -> 1-D numpy object array of bytes."""
    items = []
    buf = bytes(encoded_tensor)
    off = 0
    while off < len(buf):
        (n,) = struct.unpack_from("<I", buf, off)
        items.append(buf[off + 4: off + 4 + n])
        off += 4 + n
    arr = np.empty(len(items), dtype=np.object_)
    arr[:] = items
    return arr


class TritonError:
    """An error to put in an InferenceResponse (the request fails with this message)."""

    UNKNOWN = 0
    INTERNAL = 1
    NOT_FOUND = 2
    INVALID_ARG = 3
    UNAVAILABLE = 4
    UNSUPPORTED = 5
    ALREADY_EXISTS = 6
    CANCELLED = 7

    def __init__(self, msg, code=INTERNAL):
        self._msg = msg
        self._code = code

    def __str__(self):
        return str(self._msg)

    def message(self):
        return self._msg

    def code(self):
        return self._code


class TritonModelException(Exception):
    def __init__(self, msg):
        super().__init__(msg)
        self._msg = msg

    def message(self):
        return self._msg


class Tensor:
    """A named numpy array: an input of a request or an output of a response."""

    def __init__(self, name, numpy_array, triton_dtype=None):
        if not isinstance(numpy_array, np.ndarray):
            numpy_array = np.asarray(numpy_array)
        if numpy_array.dtype.type == np.str_ or numpy_array.dtype == np.void:
            raise TritonModelException(
                "Tensor dtype used for numpy_array is not supported by the Python backend; use np.object_ instead."
            )
        if triton_dtype is not None:
            wanted = triton_to_numpy_type(triton_dtype)
            if wanted is not None and numpy_array.dtype != wanted:
                numpy_array = numpy_array.view(wanted)
        else:
            triton_dtype = numpy_to_triton_type(numpy_array.dtype)
        self._name = name
        self._array = numpy_array
        self._triton_dtype = triton_dtype

    def name(self):
        return self._name

    def as_numpy(self):
        return self._array

    def triton_dtype(self):
        return self._triton_dtype

    def shape(self):
        return list(self._array.shape)

    def is_cpu(self):
        return True

    def to_dlpack(self):
        return self._array.__dlpack__()

    @staticmethod
    def from_dlpack(name, capsule):
        raise TritonModelException("Tensor.from_dlpack is not supported by InferScope's python backend; use Tensor(name, numpy_array)")


class InferenceRequest:
    """One client request as model.py sees it, or (with model_name) a BLS request to another model of the
    server: exec() / async_exec() run it through that model's scheduler (inferscope_stub/bls.py)."""

    def __init__(self, inputs=None, request_id="", correlation_id=0, requested_output_names=None, model_name=None,
                 model_version=-1, flags=0, timeout=0, parameters=None, **_):
        self._inputs = list(inputs or [])
        self._request_id = request_id
        self._correlation_id = correlation_id
        self._requested_output_names = list(requested_output_names or [])
        # the BLS example passes the name straight from a TYPE_STRING input: numpy bytes
        self._model_name = model_name.decode("utf-8") if isinstance(model_name, (bytes, np.bytes_)) else model_name
        self._model_version = model_version
        self._flags = flags
        self._timeout = int(timeout or 0)
        self._parameters = parameters
        self._sender = None  # set by the stub for a request of a decoupled model
        self._run = None  # which batch (and position in it) this request came in, for BLS parentage
        self._index = None
        self._cancelled = False  # set by the stub's reader thread (inferscope_stub/cancellation.py)

    def inputs(self):
        _touch(self)
        return self._inputs

    def request_id(self):
        return self._request_id

    def correlation_id(self):
        return self._correlation_id

    def requested_output_names(self):
        return self._requested_output_names

    def model_name(self):
        return self._model_name

    def model_version(self):
        return self._model_version

    def timeout(self):
        return self._timeout

    def parameters(self):
        import json

        if isinstance(self._parameters, str):
            return self._parameters
        return json.dumps(self._parameters or {})

    def flags(self):
        return self._flags

    def is_cancelled(self):
        """Whether the server cancelled this request (its client went away, its BLS caller was cancelled
        or timed out): model.py may then stop early, as in Triton (checking is optional)."""
        return self._cancelled

    def _bls(self):
        if not self._model_name:
            raise TritonModelException("a BLS request needs model_name")
        from inferscope_stub import bls

        return bls

    def exec(self, decoupled=False):
        return self._bls().exec_request(self, decoupled)

    def async_exec(self, decoupled=False):
        return self._bls().async_exec_request(self, decoupled)

    def get_response_sender(self):
        _touch(self)
        if self._sender is None:
            raise TritonModelException(
                "get_response_sender() is only available to a decoupled model (model_transaction_policy { decoupled: true })"
            )
        return self._sender


class InferenceResponse:
    """The answer to one request: output tensors, or an error."""

    def __init__(self, output_tensors=None, error=None, parameters=None):
        if output_tensors is None:
            output_tensors = []
        if not isinstance(output_tensors, list):
            raise TritonModelException('"output_tensors" must be a list.')
        self._output_tensors = output_tensors
        self._err = error

    def output_tensors(self):
        return self._output_tensors

    def has_error(self):
        return self._err is not None

    def error(self):
        return self._err


def _touch(request):
    """Remembers the request the model works on (a BLS call made now is its child)."""
    try:
        from inferscope_stub import bls
    except ImportError:
        return
    bls.touch(request)


def get_input_tensor_by_name(inference_request, name):
    for t in inference_request.inputs():
        if t.name() == name:
            return t
    return None


def get_output_tensor_by_name(inference_response, name):
    for t in inference_response.output_tensors():
        if t.name() == name:
            return t
    return None


def using_decoupled_model_transaction_policy(model_config):
    return bool((model_config.get("model_transaction_policy") or {}).get("decoupled", False))


def get_input_config_by_name(model_config, name):
    for props in model_config.get("input", []):
        if props.get("name") == name:
            return props
    return None


def get_output_config_by_name(model_config, name):
    for props in model_config.get("output", []):
        if props.get("name") == name:
            return props
    return None


class Logger:
    """pb_utils.Logger.log_info(...) and friends: lines on stderr, which the server logs per instance."""

    @staticmethod
    def log(message, level=None):
        print("%s%s" % ("" if level is None else "[%s] " % level, message), file=sys.stderr, flush=True)

    @staticmethod
    def log_info(message):
        Logger.log(message, "INFO")

    @staticmethod
    def log_warn(message):
        Logger.log(message, "WARNING")

    @staticmethod
    def log_error(message):
        Logger.log(message, "ERROR")

    @staticmethod
    def log_verbose(message):
        Logger.log(message, "VERBOSE")


def __getattr__(name):
    # MetricFamily lives with the stub's link to the server (a module attribute resolved on first use, so
    # importing this module outside a stub, e.g. for auto_complete_config, needs nothing else)
    if name == "MetricFamily":
        from inferscope_stub.metrics import MetricFamily

        return MetricFamily
    raise AttributeError("module 'triton_python_backend_utils' has no attribute %r" % name)
