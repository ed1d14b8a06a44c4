"""Triton `python` backend models: model.py defining TritonPythonModel with initialize(args),
execute(requests) -> one InferenceResponse per request, and finalize(). The API the model imports is
triton_python_backend_utils (next to stub_main.py)."""
import asyncio
import importlib.util
import inspect
import json
import os
import sys

import numpy as np

import triton_python_backend_utils as pb_utils

from .errors import RequestError, StubInitError, StubRunError
from . import bls  # noqa: F401 - installs BLS parentage for threads model.py starts (bls.py)

KIND = {"KIND_CPU": "CPU", "KIND_GPU": "GPU", "KIND_MODEL": "MODEL"}

def _request_error(err):
    """The wire form of a response's error (a TritonError, or whatever a model put there). The code goes
    as TritonError.code() gives it (Triton's number); the server reads it once (core's errorCodeOf), so
    an unknown value ends up INTERNAL there, not here."""
    message = err.message() if callable(getattr(err, "message", None)) else str(err)
    code = err.code() if callable(getattr(err, "code", None)) else pb_utils.TritonError.INTERNAL
    if not isinstance(code, (int, str)) or isinstance(code, bool):
        code = pb_utils.TritonError.INTERNAL
    return RequestError(str(message), code)


def load_model_module(path):
    """Imports model.py as module 'model' (its folder on sys.path, so it may import files beside it)."""
    if not os.path.isfile(path):
        raise StubInitError("model file '%s' does not exist" % path)
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("model", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["model"] = module
    spec.loader.exec_module(module)
    cls = getattr(module, "TritonPythonModel", None)
    if cls is None:
        raise StubInitError("'%s' defines no class TritonPythonModel" % path)
    return cls


def _message(e):
    text = str(e).strip()
    return text if text else type(e).__name__


class PythonRunner:
    def __init__(self, init):
        self.config = init.get("config", {})
        self.model_name = init["model"]
        try:
            cls = load_model_module(init["modelFile"])
        except StubInitError:
            raise
        except BaseException as e:  # noqa: BLE001 - a syntax or import error in the user's file
            raise StubInitError("importing model.py of model '%s' failed: %s: %s" % (self.model_name, type(e).__name__, _message(e)))
        device = init.get("device", "cpu")
        args = {
            "model_config": json.dumps(self.config),
            "model_instance_kind": KIND.get(init.get("kind"), "CPU"),
            "model_instance_name": init["instance"],
            "model_instance_device_id": str(int(device[3:] or 0)) if device.startswith("gpu") else "0",
            "model_repository": init["modelDir"],
            "model_version": str(init["version"]),
            "model_name": self.model_name,
        }
        self.model = cls()
        if hasattr(self.model, "initialize"):
            try:
                self.model.initialize(args)
            except BaseException as e:  # noqa: BLE001
                import traceback

                traceback.print_exc()
                raise StubInitError("initialize() of model '%s' raised %s: %s" % (self.model_name, type(e).__name__, _message(e)))
        self.all_outputs = [o["name"] for o in self.config.get("output", [])]
        self.device = device
        self.decoupled = pb_utils.using_decoupled_model_transaction_policy(self.config)
        # `async def execute` runs on this loop (one per stub, so a model's tasks may outlive one batch)
        self.loop = None

    def ready_message(self):
        return {"type": "ready", "device": "cpu", "runtime": "python %d.%d, numpy %s" % (sys.version_info[0], sys.version_info[1], np.__version__)}

    def run(self, requests, run_id=None):
        from . import cancellation
        from .decoupled import ResponseSender

        reqs = []
        for index, (inputs, outputs, rid) in enumerate(requests):
            r = pb_utils.InferenceRequest(
                inputs=[pb_utils.Tensor(name, arr) for name, arr in inputs],
                request_id=rid or "",
                correlation_id=0,
                requested_output_names=list(outputs) if outputs else list(self.all_outputs),
            )
            r._run, r._index = run_id, index
            if self.decoupled:
                r._sender = ResponseSender(run_id, index, rid or "")
            cancellation.track(run_id, index, r)
            reqs.append(r)
        try:
            return self._execute(reqs)
        finally:
            if not self.decoupled:  # a decoupled request stays known until its sender's final flag
                for index in range(len(reqs)):
                    cancellation.forget(run_id, index)

    def _execute(self, reqs):
        try:
            responses = self.model.execute(reqs)
            if inspect.iscoroutine(responses):
                if self.loop is None:
                    self.loop = asyncio.new_event_loop()
                    asyncio.set_event_loop(self.loop)
                responses = self.loop.run_until_complete(responses)
        except pb_utils.TritonModelException as e:
            raise StubRunError("execute() of model '%s' raised TritonModelException: %s" % (self.model_name, _message(e)))
        except Exception as e:  # noqa: BLE001
            import traceback

            traceback.print_exc()
            raise StubRunError("execute() of model '%s' raised %s: %s" % (self.model_name, type(e).__name__, _message(e)))
        if self.decoupled:
            # a decoupled model answers through its response senders; execute() returns None (Triton)
            if responses is not None:
                raise StubRunError(
                    "execute() of decoupled model '%s' must return None (it sends its responses with request.get_response_sender()), got %s"
                    % (self.model_name, type(responses).__name__)
                )
            return None
        if not isinstance(responses, (list, tuple)):
            raise StubRunError(
                "execute() of model '%s' must return a list of InferenceResponse, got %s" % (self.model_name, type(responses).__name__)
            )
        if len(responses) != len(reqs):
            raise StubRunError(
                "execute() of model '%s' returned %d responses for %d requests (it must return exactly one per request)"
                % (self.model_name, len(responses), len(reqs))
            )
        answers = []
        for i, r in enumerate(responses):
            if not isinstance(r, pb_utils.InferenceResponse):
                raise StubRunError("response %d of model '%s' is a %s, not an InferenceResponse" % (i, self.model_name, type(r).__name__))
            if r.has_error():
                answers.append(_request_error(r.error()))
                continue
            out = []
            for t in r.output_tensors():
                if not isinstance(t, pb_utils.Tensor):
                    raise StubRunError("response %d of model '%s' holds a %s, not a Tensor" % (i, self.model_name, type(t).__name__))
                out.append((t.name(), np.asarray(t.as_numpy())))
            answers.append(out)
        return answers

    def finalize(self):
        if hasattr(self.model, "finalize"):
            self.model.finalize()
