"""Tensors between wire frames (wire.py) and numpy: numeric arrays are views onto the received frame, BYTES
tensors are numpy object arrays of bytes (what Triton's python backend hands model.py)."""
import struct

import numpy as np

ALIGN = 8

# KServe datatype <-> numpy dtype
TO_NUMPY = {
    "BOOL": np.bool_,
    "UINT8": np.uint8,
    "UINT16": np.uint16,
    "UINT32": np.uint32,
    "UINT64": np.uint64,
    "INT8": np.int8,
    "INT16": np.int16,
    "INT32": np.int32,
    "INT64": np.int64,
    "FP16": np.float16,
    "FP32": np.float32,
    "FP64": np.float64,
    "BYTES": np.object_,
}
FROM_NUMPY = {np.dtype(v): k for k, v in TO_NUMPY.items() if k != "BYTES"}


def decode_tensor(meta, body):
    """A numpy array for one WireTensor; numeric arrays are views onto the frame (writable, no copy)."""
    dtype = TO_NUMPY.get(meta["datatype"])
    if dtype is None:
        raise ValueError("unknown datatype %r of tensor %r" % (meta["datatype"], meta["name"]))
    shape = tuple(meta["shape"])
    raw = memoryview(body)[meta["offset"]: meta["offset"] + meta["bytes"]]
    if dtype is np.object_:
        items = []
        off = 0
        while off < len(raw):
            (length,) = struct.unpack_from("<I", raw, off)
            items.append(bytes(raw[off + 4: off + 4 + length]))
            off += 4 + length
        arr = np.empty(len(items), dtype=np.object_)
        arr[:] = items
        return arr.reshape(shape)
    return np.frombuffer(raw, dtype=dtype).reshape(shape)


def _bytes_element(item):
    if isinstance(item, (bytes, bytearray)):
        return bytes(item)
    if isinstance(item, np.bytes_):
        return bytes(item)
    return str(item).encode("utf-8")


def tensor_bytes(arr):
    """(KServe datatype, bytes-like) for a numpy array."""
    if arr.dtype == np.object_ or arr.dtype.type == np.bytes_:
        out = bytearray()
        for item in arr.reshape(-1):
            b = _bytes_element(item)
            out += struct.pack("<I", len(b))
            out += b
        return "BYTES", out
    datatype = FROM_NUMPY.get(arr.dtype if arr.dtype.isnative else arr.dtype.newbyteorder("="))
    if datatype is None:
        raise ValueError("numpy dtype %s has no KServe datatype" % arr.dtype)
    arr = np.ascontiguousarray(arr)
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    return datatype, arr.reshape(-1).view(np.uint8)


def layout(named_arrays, start=0):
    """WireTensor dicts and body chunks for [(name, ndarray)], starting at body offset `start`."""
    metas, chunks = [], []
    offset = start
    for name, arr in named_arrays:
        datatype, data = tensor_bytes(arr)
        n = len(data)
        metas.append({"name": name, "datatype": datatype, "shape": [int(d) for d in arr.shape], "offset": offset, "bytes": n})
        chunks.append(data)
        offset += n
        pad = (ALIGN - offset % ALIGN) % ALIGN
        if pad:
            chunks.append(b"\0" * pad)
            offset += pad
    return metas, chunks, offset
