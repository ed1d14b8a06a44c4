"""Runs a model.py's static TritonPythonModel.auto_complete_config on the model's config, as Triton does
before loading a python model. Usage (by apps/server/src/backends/python/autocomplete.ts):

    python3 auto_complete.py MODEL_PY RESULT_JSON < config.json

Writes {"config": {...}} (the completed config as Triton's JSON) or {"error": "..."} to RESULT_JSON; the
model's own prints stay on stdout/stderr. A model without auto_complete_config gets its config back.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


class AutoCompleteModelConfig:
    """The object auto_complete_config(auto_complete_model_config) receives (Triton's ModelConfig helper)."""

    def __init__(self, config):
        self._config = config

    def as_dict(self):
        return self._config

    def _add(self, kind, io):
        if not isinstance(io, dict) or "name" not in io:
            raise ValueError("%s must be a dict with a 'name'" % kind)
        items = self._config.setdefault(kind, [])
        for existing in items:
            if existing.get("name") == io["name"]:
                for key in ("data_type", "dims"):
                    if key in io and key in existing and existing[key] not in ("TYPE_INVALID", []) and existing[key] != io[key]:
                        raise ValueError(
                            "unable to add %s '%s': the configuration already has it with %s %r, auto_complete_config gives %r"
                            % (kind, io["name"], key, existing[key], io[key])
                        )
                    if key in io:
                        existing[key] = io[key]
                return
        items.append(dict(io))

    def add_input(self, input):
        self._add("input", input)

    def add_output(self, output):
        self._add("output", output)

    def set_max_batch_size(self, max_batch_size):
        current = self._config.get("max_batch_size", 0)
        if current not in (0, None) and current != max_batch_size:
            raise ValueError(
                "configuration specified max_batch_size %d, but auto_complete_config sets %d" % (current, max_batch_size)
            )
        self._config["max_batch_size"] = int(max_batch_size)

    def set_dynamic_batching(self):
        self._config.setdefault("dynamic_batching", {})

    def set_model_transaction_policy(self, policy):
        if policy.get("decoupled"):
            raise ValueError("decoupled models are not supported by InferScope's python backend")
        self._config["model_transaction_policy"] = dict(policy)

    def add_instance_group(self, group):
        self._config.setdefault("instance_group", []).append(dict(group))


def main(model_py, result_file):
    config = json.loads(sys.stdin.read())
    try:
        from inferscope_stub.python_runner import load_model_module

        cls = load_model_module(model_py)
        hook = getattr(cls, "auto_complete_config", None)
        if hook is not None:
            returned = hook(AutoCompleteModelConfig(config))
            if isinstance(returned, AutoCompleteModelConfig):
                config = returned.as_dict()
        result = {"config": config}
    except BaseException as e:  # noqa: BLE001 - whatever the model did, the server must hear of it
        text = str(e).strip()
        result = {"error": "%s: %s" % (type(e).__name__, text) if text else type(e).__name__}
    with open(result_file, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
