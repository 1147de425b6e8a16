#!/usr/bin/python3
"""Calls the strided_images extension module (strided_images.cpp) with a NumPy array and with a
PyTorch tensor, and checks its output against PyTorch's own computation.

Usage: normalize.py <directory holding the built strided_images module>
"""
import sys

import numpy as np
import torch

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else ".")
import strided_images  # noqa: E402

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]


def reference(nhwc):
    """PyTorch's computation, in float32 and in the same order as the C++ lambda."""
    x = torch.as_tensor(nhwc).permute(0, 3, 1, 2).float() / 255
    mean = torch.tensor(MEAN, dtype=torch.float32).view(3, 1, 1)
    std = torch.tensor(STD, dtype=torch.float32).view(3, 1, 1)
    return (x - mean) / std


rng = np.random.default_rng(7)
batch = rng.integers(0, 256, size=(4, 32, 48, 3), dtype=np.uint8)

# A NumPy array; a PyTorch tensor; a non-contiguous view (every other row, flipped left-right).
inputs = {
    "numpy": batch,
    "torch": torch.from_numpy(batch.copy()),
    "numpy view": batch[:, ::2, ::-1, :],
}
for name, nhwc in inputs.items():
    out = strided_images.normalize(nhwc, MEAN, STD)
    want = reference(np.ascontiguousarray(nhwc)).numpy()
    assert isinstance(out, np.ndarray) and out.dtype == np.float32, name
    assert out.shape == want.shape and not out.flags.writeable, name
    assert np.array_equal(out, want), f"{name}: max diff {np.abs(out - want).max()}"
    print(f"{name}: {tuple(np.asarray(nhwc).shape)} u8 NHWC -> {out.shape} f32 NCHW, equal to PyTorch")

# A PyTorch tensor back, sharing the result's buffer: through a DLPack capsule.
t = torch.from_dlpack(strided_images.normalize_dlpack(torch.from_numpy(batch), MEAN, STD))
assert t.dtype == torch.float32 and torch.equal(t, reference(batch))
print("torch.from_dlpack:", tuple(t.shape), t.dtype)
print("ok")
