/**
 * A python model for the protocol tests (issue 28): `blob` takes any FP32 tensor IN (so a request can be
 * as large as a test needs) and SIZE (INT32 [1]), and answers OUT, SIZE zero bytes (so an answer can be as
 * large as a test needs). While a file named `hold` exists in its model folder, execute() waits: a test
 * holds requests in flight deterministically, without timing, and lets them go by removing the file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const BLOB_PY = `
import os, time
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.hold = os.path.join(args["model_repository"], "hold")

    def execute(self, requests):
        while os.path.exists(self.hold):
            time.sleep(0.02)
        out = []
        for request in requests:
            size = int(pb_utils.get_input_tensor_by_name(request, "SIZE").as_numpy().reshape(-1)[0])
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.zeros([size], dtype=np.uint8))]))
        return out
`;

const BLOB_CONFIG = `name: "blob"
backend: "python"
max_batch_size: 0
input [
  { name: "IN", data_type: TYPE_FP32, dims: [ -1 ] },
  { name: "SIZE", data_type: TYPE_INT32, dims: [ 1 ] }
]
output [ { name: "OUT", data_type: TYPE_UINT8, dims: [ -1 ] } ]
instance_group [ { count: 1, kind: KIND_CPU } ]
# it makes nothing of IN: 1 byte per input element, not the default model of 8x the bytes in and out
parameters { key: "activation_bytes_per_input_element" value: { string_value: "1" } }
`;

/** Writes the blob model into `repository`; returns the path of its hold file. */
export function writeBlobModel(repository: string): string {
  const dir = join(repository, 'blob');
  mkdirSync(join(dir, '1'), { recursive: true });
  writeFileSync(join(dir, 'config.pbtxt'), BLOB_CONFIG);
  writeFileSync(join(dir, '1', 'model.py'), BLOB_PY);
  return join(dir, 'hold');
}

/** A ModelInferRequest for blob: IN of `inBytes` bytes (raw), answer of `outBytes` bytes. */
export function blobRequest(inBytes: number, outBytes: number, id = '') {
  const size = Buffer.alloc(4);
  size.writeInt32LE(outBytes);
  return {
    model_name: 'blob', id,
    inputs: [{ name: 'IN', datatype: 'FP32', shape: [inBytes / 4] }, { name: 'SIZE', datatype: 'INT32', shape: [1] }],
    raw_input_contents: [Buffer.alloc(inBytes), size],
  };
}
