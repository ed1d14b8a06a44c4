"""InferScope's stub process: one per model instance, driven by the server over binary frames on fd 3."""
