#!/usr/bin/python3
"""The PyTorch half of examples/normalize_images.cpp.

Usage: normalize_images.py <path to the normalize_images program> [work dir]
Runs the C++ program, which writes images_nhwc.npy (u8 NHWC) and normalized_nchw.npy (its f32
NCHW result), normalises the same images with PyTorch and compares. CTest runs it as
example.normalize_images.python. Exits non-zero when a value differs.
"""
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import torch


def main(program, work):
    subprocess.run([program, str(work)], check=True, capture_output=True, text=True)
    images = torch.from_numpy(np.load(work / "images_nhwc.npy"))
    ours = torch.from_numpy(np.load(work / "normalized_nchw.npy"))
    # [python]
    # The usual PyTorch preprocessing: NHWC u8 -> NCHW f32, scaled, normalised per channel.
    x = images.permute(0, 3, 1, 2).float() / 255
    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
    theirs = (x - mean) / std
    # [python]
    print("shape:", list(ours.shape), ours.dtype, "contiguous:", ours.is_contiguous())
    print("max |strided - torch|:", (ours - theirs).abs().max().item())
    torch.testing.assert_close(ours, theirs, rtol=1e-6, atol=1e-6)
    print("equal to PyTorch within 1e-6")


if __name__ == "__main__":
    if len(sys.argv) > 2:
        main(sys.argv[1], pathlib.Path(sys.argv[2]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(sys.argv[1], pathlib.Path(tmp))
