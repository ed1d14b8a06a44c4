"""token_streamer: a decoupled model that streams one token per step (see ../config.pbtxt).

execute() starts one thread per request and returns None at once: the responses go out through each
request's response sender, the last one flagged TRITONSERVER_RESPONSE_COMPLETE_FINAL. A client that
cancels (closes its stream) stops its thread at the next step.
"""
import json
import threading
import time
import zlib

import numpy as np
import triton_python_backend_utils as pb_utils

VOCAB = (
    "the a server model batch request queue token stream answers waits runs one many each step and then "
    "while but so it its when instance thread sends final python numpy grows small fast slow client class "
    "learns sees time every next decoupled response latency throughput of to in on for with as is are "
    "was will can may now here there again more less . , !"
).split()
DEFAULT_MAX_TOKENS = 16
LIMIT = 256


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        if not pb_utils.using_decoupled_model_transaction_policy(config):
            raise pb_utils.TritonModelException("token_streamer streams many responses per request: it needs model_transaction_policy { decoupled: true }")
        params = config.get("parameters", {})
        self.delay_s = float(params.get("step_delay_ms", {}).get("string_value", "60")) / 1000.0
        # a fixed bigram table: row = current word, columns = scores of the next word
        self.table = np.random.default_rng(7).standard_normal((len(VOCAB), len(VOCAB))).astype(np.float32)
        self.threads = []
        self.lock = threading.Lock()

    def execute(self, requests):
        for request in requests:
            prompt = pb_utils.get_input_tensor_by_name(request, "text_input").as_numpy().reshape(-1)[0]
            limit = pb_utils.get_input_tensor_by_name(request, "max_tokens")
            n = int(limit.as_numpy().reshape(-1)[0]) if limit is not None else DEFAULT_MAX_TOKENS
            sender = request.get_response_sender()
            if n < 0 or n > LIMIT:
                err = pb_utils.TritonError("max_tokens must be between 0 and %d, got %d" % (LIMIT, n), pb_utils.TritonError.INVALID_ARG)
                sender.send(pb_utils.InferenceResponse(error=err), flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                continue
            t = threading.Thread(target=self.generate, args=(sender, prompt, n), daemon=True)
            with self.lock:
                self.threads = [x for x in self.threads if x.is_alive()] + [t]
            t.start()
        return None

    def generate(self, sender, prompt, n):
        text = prompt.decode("utf-8", "replace") if isinstance(prompt, bytes) else str(prompt)
        rng = np.random.default_rng(zlib.crc32(text.encode("utf-8")))
        word = rng.integers(len(VOCAB))
        for _ in range(n):
            if sender.is_cancelled():
                break
            time.sleep(self.delay_s)
            scores = self.table[word] + rng.gumbel(size=len(VOCAB)).astype(np.float32)
            word = int(np.argmax(scores))
            token = np.array([(" " + VOCAB[word]).encode("utf-8")], dtype=np.object_)
            sender.send(pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("text_output", token)]))
        sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)

    def finalize(self):
        with self.lock:
            threads = list(self.threads)
        for t in threads:
            t.join(timeout=30)
