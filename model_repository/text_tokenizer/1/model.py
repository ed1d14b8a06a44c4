"""text_tokenizer: UTF-8 texts (BYTES) -> INT64 token ids for text_encoder.

Written against Triton's python backend API only (triton_python_backend_utils, numpy): the same file runs
in Triton and in InferScope. Words are runs of letters and digits, lower-cased, hashed with 32-bit FNV-1a
into 1..vocabulary_size-1 (0 is padding). The texts of one request are padded with 0 to the longest.
"""
import json
import re

import numpy as np
import triton_python_backend_utils as pb_utils

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _fnv1a(word):
    h = 0x811C9DC5
    for byte in word.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        output = pb_utils.get_output_config_by_name(config, "token_ids")
        self.output_dtype = pb_utils.triton_string_to_numpy(output["data_type"])
        size = config.get("parameters", {}).get("vocabulary_size", {}).get("string_value", "2048")
        self.vocabulary = int(size)
        if self.vocabulary < 2:
            raise pb_utils.TritonModelException("parameter 'vocabulary_size' must be at least 2, got {}".format(size))

    def tokens(self, text):
        words = _WORD.findall(text.lower())
        return [1 + _fnv1a(w) % (self.vocabulary - 1) for w in words] or [0]

    def execute(self, requests):
        responses = []
        for request in requests:
            texts = pb_utils.get_input_tensor_by_name(request, "text").as_numpy()  # object array [N, 1]
            try:
                rows = [self.tokens(t.decode("utf-8") if isinstance(t, bytes) else str(t)) for t in texts.reshape(-1)]
            except UnicodeDecodeError as e:
                responses.append(pb_utils.InferenceResponse(
                    output_tensors=[], error=pb_utils.TritonError("text must be UTF-8: {}".format(e))))
                continue
            width = max(len(r) for r in rows)
            ids = np.zeros((len(rows), width), dtype=self.output_dtype)
            for i, r in enumerate(rows):
                ids[i, :len(r)] = r
            responses.append(pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("token_ids", ids)]))
        return responses

    def finalize(self):
        pass
