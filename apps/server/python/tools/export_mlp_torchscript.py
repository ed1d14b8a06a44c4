"""Builds the TorchScript twin of mlp_classifier from raw weights written by the server's generator
(apps/server/src/models-gen/torch-models.ts): for each layer fcN, fcN.weight.f32 ([fan_in, fan_out],
little-endian float32, ONNX Gemm's layout) and fcN.bias.f32. Usage:

    export_mlp_torchscript.py WEIGHTS_DIR OUT_FILE 784,512,512,10

forward(input) -> softmax probabilities, so Triton's forward-argument naming maps config input 'input'.
"""
import os
import sys

import numpy as np
import torch


class Mlp(torch.nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(sizes[i], sizes[i + 1]) for i in range(len(sizes) - 1)])

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        x = input
        n = len(self.layers)
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < n - 1:
                x = torch.relu(x)
        return torch.softmax(x, dim=-1)


def main(weights_dir, out_file, sizes_text):
    sizes = [int(s) for s in sizes_text.split(",")]
    model = Mlp(sizes)
    with torch.no_grad():
        for i, layer in enumerate(model.layers):
            name = "fc%d" % (i + 1)
            w = np.fromfile(os.path.join(weights_dir, name + ".weight.f32"), dtype="<f4").reshape(sizes[i], sizes[i + 1])
            b = np.fromfile(os.path.join(weights_dir, name + ".bias.f32"), dtype="<f4")
            layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))  # Linear keeps [out, in]
            layer.bias.copy_(torch.from_numpy(b))
    model.eval()
    scripted = torch.jit.script(model)
    scripted.save(out_file)
    print("wrote %s (torch %s)" % (out_file, torch.__version__))


if __name__ == "__main__":
    main(*sys.argv[1:4])
