"""image_preprocess: UINT8 HWC images -> normalised FP32 CHW tensors, for cnn_classifier.

Written against Triton's python backend API only (triton_python_backend_utils, numpy): the same file runs
in Triton and in InferScope. For each image: x / 255, minus the channel mean, divided by the channel std
(both from the config's parameters), then channels first: [N, 64, 64, 3] -> [N, 3, 64, 64].
"""
import json

import numpy as np
import triton_python_backend_utils as pb_utils


def _channel_values(parameters, key, default):
    """A comma-separated parameter such as "0.485,0.456,0.406" as a float32 array of 3."""
    text = parameters.get(key, {}).get("string_value", default)
    values = np.array([float(v) for v in text.split(",")], dtype=np.float32)
    if values.shape != (3,):
        raise pb_utils.TritonModelException(
            "parameter '{}' needs 3 comma-separated values (one per channel), got '{}'".format(key, text))
    return values


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        output = pb_utils.get_output_config_by_name(config, "image")
        self.output_dtype = pb_utils.triton_string_to_numpy(output["data_type"])
        parameters = config.get("parameters", {})
        mean = _channel_values(parameters, "mean", "0.485,0.456,0.406")
        std = _channel_values(parameters, "std", "0.229,0.224,0.225")
        if np.any(std <= 0):
            raise pb_utils.TritonModelException("parameter 'std' must be positive, got {}".format(std.tolist()))
        # (x / 255 - mean) / std == x * scale + shift: one multiply-add per element
        self.scale = (1.0 / (255.0 * std)).astype(np.float32)
        self.shift = (-mean / std).astype(np.float32)

    def execute(self, requests):
        responses = []
        for request in requests:
            raw = pb_utils.get_input_tensor_by_name(request, "raw_image").as_numpy()
            if raw.dtype != np.uint8 or raw.ndim != 4 or raw.shape[3] != 3:
                responses.append(pb_utils.InferenceResponse(
                    output_tensors=[],
                    error=pb_utils.TritonError("raw_image must be UINT8 [N, H, W, 3], got {} {}".format(raw.dtype, list(raw.shape)))))
                continue
            normalised = raw.astype(np.float32) * self.scale + self.shift  # broadcasts over the channel axis
            chw = np.ascontiguousarray(normalised.transpose(0, 3, 1, 2), dtype=self.output_dtype)
            responses.append(pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("image", chw)]))
        return responses

    def finalize(self):
        pass
