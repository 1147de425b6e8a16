#!/usr/bin/python3
"""The NumPy half of examples/numpy_exchange.cpp.

Usage: numpy_exchange.py <path to the numpy_exchange program> [work dir]
Writes from_python.npy (Fortran order), runs the C++ program, which loads it and writes
from_cpp.npy, then loads that with NumPy. CTest runs it as example.numpy_exchange.python.
Exits non-zero when a value differs.
"""
import pathlib
import subprocess
import sys
import tempfile

import numpy as np


def main(program, work):
    # [python]
    # Python -> C++: a Fortran-order float64 array; strided loads it as a transposed view.
    a = np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3) / 2)
    np.save(work / "from_python.npy", a)

    run = subprocess.run([program, str(work)], check=True, capture_output=True, text=True)
    print(run.stdout, end="")

    # C++ -> Python: an int32 file holding the transposed [2, 3] tensor, in C order.
    b = np.load(work / "from_cpp.npy")
    print("numpy loads from_cpp.npy:", b.dtype, b.shape, b.tolist())
    assert b.dtype == np.int32 and b.flags.c_contiguous
    np.testing.assert_array_equal(b, np.arange(6, dtype=np.int32).reshape(2, 3).T)
    # [python]
    assert "from_python.npy" in run.stdout, "the C++ side did not read from_python.npy"


if __name__ == "__main__":
    if len(sys.argv) > 2:
        main(sys.argv[1], pathlib.Path(sys.argv[2]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(sys.argv[1], pathlib.Path(tmp))
