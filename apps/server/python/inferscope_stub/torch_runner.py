"""TorchScript models (Triton's `pytorch` backend, platform `pytorch_libtorch`): torch.jit.load of model.pt,
run under torch.inference_mode, inputs and outputs matched by Triton's naming rules:

- inputs: when every config input name is an argument of forward(), by argument name; else when every
  name follows <name>__<index>, by that index; else in config order;
- outputs: <name>__<index> is that position in forward()'s returned tuple; otherwise config order.
"""
import re
import sys

from .errors import StubInitError, StubRunError

INDEXED = re.compile(r"^.+__(\d+)$")
INSTALL_HINT = "apt-get install python3-torch libopenblas0-pthread"


def _input_positions(names, forward_args):
    if names and all(n in forward_args for n in names):
        return {n: forward_args.index(n) for n in names}
    if names and all(INDEXED.match(n) for n in names):
        return {n: int(INDEXED.match(n).group(1)) for n in names}
    return {n: i for i, n in enumerate(names)}


def _output_positions(names):
    if names and all(INDEXED.match(n) for n in names):
        return {n: int(INDEXED.match(n).group(1)) for n in names}
    return {n: i for i, n in enumerate(names)}


class TorchRunner:
    def __init__(self, init):
        try:
            import torch
        except ImportError as e:
            raise StubInitError(
                "PyTorch is not importable by %s (%s); install it with: %s" % (sys.executable, e, INSTALL_HINT)
            )
        self.torch = torch
        s = init.get("settings", {})
        self.note = None
        # Threads first: set_num_interop_threads only works before torch starts any parallel work.
        torch.set_num_threads(int(s.get("intraOpThreads", 1)))
        try:
            torch.set_num_interop_threads(int(s.get("interOpThreads", 1)))
        except RuntimeError:
            pass
        if s.get("disableOptimizedExecution"):
            # Triton's DISABLE_OPTIMIZED_EXECUTION: no profiling executor, no graph-executor optimisation.
            if hasattr(torch._C, "_jit_set_profiling_executor"):
                torch._C._jit_set_profiling_executor(False)
            if hasattr(torch._C, "_set_graph_executor_optimize"):
                torch._C._set_graph_executor_optimize(False)
        self.inference_mode = bool(s.get("inferenceMode", True))
        device = init.get("device", "cpu")
        self.device = "cpu"
        if device.startswith("gpu"):
            index = int(device[3:] or 0)
            if torch.cuda.is_available() and index < torch.cuda.device_count():
                self.device = "cuda:%d" % index
            else:
                why = "torch was built without CUDA" if not torch.backends.cuda.is_built() else "torch sees no GPU %d" % index
                self.note = "CUDA unavailable to torch (%s); running on CPU" % why
        path = init["modelFile"]
        try:
            self.model = torch.jit.load(path, map_location=self.device)
        except Exception as e:  # noqa: BLE001 - torch raises RuntimeError, ValueError, ... for bad files
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise StubInitError("unable to load TorchScript model '%s': %s" % (path, first))
        self.model.eval()
        config = init.get("config", {})
        self.input_names = [i["name"] for i in config.get("input", [])]
        self.output_names = [o["name"] for o in config.get("output", [])]
        try:
            args = [a.name for a in self.model.forward.schema.arguments][1:]  # [0] is self
        except Exception:  # noqa: BLE001 - a module without a scripted forward
            args = []
        self.input_pos = _input_positions(self.input_names, args)
        self.output_pos = _output_positions(self.output_names)
        if args and len(args) < len(self.input_names):
            raise StubInitError(
                "model '%s' forward() takes %d inputs (%s) but the config lists %d (%s)"
                % (init["model"], len(args), ", ".join(args), len(self.input_names), ", ".join(self.input_names))
            )
        self.runtime = "torch %s, %d intra-op / %d inter-op threads, %s" % (
            torch.__version__, torch.get_num_threads(), torch.get_num_interop_threads(), self.device)

    def ready_message(self):
        m = {"type": "ready", "device": "cpu" if self.device == "cpu" else "gpu" + self.device.split(":")[1], "runtime": self.runtime}
        if self.note:
            m["note"] = self.note
        if self.device != "cpu":
            m["torchGpuBytes"] = int(self.torch.cuda.memory_reserved(self.device))
        return m

    def run(self, requests, run_id=None):
        # The server merges a batch into one request (the batch dimension first), as Triton's backend does.
        torch = self.torch
        answers = []
        for inputs, outputs, _ in requests:
            args = [None] * len(self.input_names)
            for name, arr in inputs:
                pos = self.input_pos.get(name)
                if pos is None or pos >= len(args):
                    raise StubRunError("input '%s' has no place among forward()'s arguments" % name)
                t = torch.from_numpy(arr)
                args[pos] = t if self.device == "cpu" else t.to(self.device, non_blocking=True)
            guard = torch.inference_mode() if self.inference_mode else torch.no_grad()
            with guard:
                out = self.model(*[a for a in args if a is not None])
            if isinstance(out, dict):
                got = [(n, out[n]) for n in self.output_names if n in out]
            else:
                seq = list(out) if isinstance(out, (tuple, list)) else [out]
                got = []
                for n in self.output_names:
                    pos = self.output_pos[n]
                    if pos >= len(seq):
                        raise StubRunError("forward() returned %d outputs; output '%s' wants position %d" % (len(seq), n, pos))
                    got.append((n, seq[pos]))
            wanted = set(outputs) if outputs else None
            answer = []
            for n, t in got:
                if wanted is not None and n not in wanted:
                    continue
                if not isinstance(t, torch.Tensor):
                    raise StubRunError("output '%s' is a %s, not a tensor" % (n, type(t).__name__))
                answer.append((n, t.detach().cpu().numpy()))
            answers.append(answer)
        return answers

    def finalize(self):
        self.model = None
