/**
 * A decoupled python model for the stream backpressure tests (issue 56): `flood` takes COUNT and SIZE
 * (INT32 [1] each) and sends COUNT responses of OUT (one BYTES element of SIZE bytes, cheap to parse on
 * either protocol) and IDX (the response's index), from execute(), then the final flag. After each send it
 * writes its own record to `progress` in its model folder: how many sends returned and whether it has
 * seen is_cancelled(). With the parameter raise_after_start it sends from a thread and fails execute(). That record is what the tests assert on: a model that is never slowed sends all
 * COUNT at once, whatever the client reads.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FLOOD_PY = `
import json, os, threading
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.record = os.path.join(args["model_repository"], "progress")
        params = json.loads(args["model_config"]).get("parameters", {})
        # parameter raise_after_start: send from a thread, and fail execute() once it has started
        self.raise_after_start = params.get("raise_after_start", {}).get("string_value") == "1"

    def note(self, sent, cancelled):
        tmp = self.record + ".tmp"
        with open(tmp, "w") as f:
            f.write(json.dumps({"sent": sent, "cancelled": cancelled}))
        os.replace(tmp, self.record)

    def execute(self, requests):
        if self.raise_after_start:
            threading.Thread(target=self.send_all, args=(requests,), daemon=True).start()
            raise pb_utils.TritonModelException("execute failed on purpose after starting its sender thread")
        self.send_all(requests)
        return None

    def send_all(self, requests):
        for request in requests:
            n = int(pb_utils.get_input_tensor_by_name(request, "COUNT").as_numpy().reshape(-1)[0])
            size = int(pb_utils.get_input_tensor_by_name(request, "SIZE").as_numpy().reshape(-1)[0])
            sender = request.get_response_sender()
            payload = np.array([b"x" * size], dtype=np.object_)
            sent = 0
            for i in range(n):
                if sender.is_cancelled():
                    break
                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", payload), pb_utils.Tensor("IDX", np.array([i], np.int32))]))
                sent += 1
                self.note(sent, sender.is_cancelled())
            self.note(sent, sender.is_cancelled())
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
`;

const floodConfig = (name: string, extra: string) => `name: "${name}"
backend: "python"
max_batch_size: 0
model_transaction_policy { decoupled: true }
input [
  { name: "COUNT", data_type: TYPE_INT32, dims: [ 1 ] },
  { name: "SIZE", data_type: TYPE_INT32, dims: [ 1 ] }
]
output [
  { name: "OUT", data_type: TYPE_STRING, dims: [ 1 ] },
  { name: "IDX", data_type: TYPE_INT32, dims: [ 1 ] }
]
instance_group [ { count: 1, kind: KIND_CPU } ]
${extra}
`;

export interface FloodModel {
  name: string;
  /** the model's own record: sends that returned, and whether it saw is_cancelled() (null before its first send) */
  progress(): { sent: number; cancelled: boolean } | null;
  /** forgets the record of the request before */
  reset(): void;
}

/** Writes model `name` into `repository`; `extra` is appended to its config (parameters). */
export function writeFloodModel(repository: string, name: string, extra = ''): FloodModel {
  const dir = join(repository, name);
  mkdirSync(join(dir, '1'), { recursive: true });
  writeFileSync(join(dir, 'config.pbtxt'), floodConfig(name, extra));
  writeFileSync(join(dir, '1', 'model.py'), FLOOD_PY);
  return {
    name,
    progress() {
      try {
        return JSON.parse(readFileSync(join(dir, 'progress'), 'utf8')) as { sent: number; cancelled: boolean };
      } catch {
        return null;
      }
    },
    reset: () => rmSync(join(dir, 'progress'), { force: true }),
  };
}

const int32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(v);
  return b;
};

/** A ModelInferRequest for a flood model: `count` responses of `size` bytes. */
export function floodRequest(model: string, count: number, size: number, id = '') {
  return {
    model_name: model, id,
    inputs: [{ name: 'COUNT', datatype: 'INT32', shape: [1] }, { name: 'SIZE', datatype: 'INT32', shape: [1] }],
    raw_input_contents: [int32(count), int32(size)],
  };
}

/**
 * Polls the model's record until it has sent at least `least` and then stayed unchanged for `quietMs`
 * (the model is waiting), or `limitMs` passed; returns the record then.
 */
export async function settledProgress(model: FloodModel, least: number, quietMs = 1500, limitMs = 60_000): Promise<{ sent: number; cancelled: boolean }> {
  const until = Date.now() + limitMs;
  let last = -1;
  let since = Date.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, 50));
    const p = model.progress();
    const now = p?.sent ?? 0;
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (p && now >= least && Date.now() - since >= quietMs) return p;
    if (Date.now() > until) return p ?? { sent: 0, cancelled: false };
  }
}
