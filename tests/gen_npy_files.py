#!/usr/bin/python3
"""Writes tests/data/npy/*.npy with NumPy itself, for tests/npy_test.cpp.

Run with Debian's interpreter (it has NumPy):  /usr/bin/python3 tests/gen_npy_files.py

Files (all little-endian):
  <dtype>_c_v<N>.npy   shape (2, 3, 4), C order, format version N.0 (N = 1, 2, 3)
  <dtype>_f_v<N>.npy   the same values, Fortran order (np.asfortranarray)
  scalar_f8.npy        rank 0; empty_f4.npy: shape (0, 3); vec_i4.npy: shape (5,)
  malformed/*          hand-broken files for the error tests
The values are a deterministic function of the flat index (see `values`), which the C++ test
recomputes.
"""
import os

import numpy as np
from numpy.lib import format as npformat

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "npy")

DTYPES = {
    "b1": np.bool_, "i1": np.int8, "u1": np.uint8, "i2": np.int16, "u2": np.uint16,
    "i4": np.int32, "u4": np.uint32, "i8": np.int64, "u8": np.uint64,
    "f2": np.float16, "f4": np.float32, "f8": np.float64,
}


def values(dtype, shape):
    """Element i (row-major) = i % 2 == 1 for bool, else (i * 7 - 30) for signed, (i * 7) for
    unsigned, (i - 10) * 0.25 for floats: exact in every type, negatives where representable."""
    i = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    if dtype == np.bool_:
        return (i % 2 == 1)
    if np.issubdtype(dtype, np.signedinteger):
        return (i * 7 - 30).astype(dtype)
    if np.issubdtype(dtype, np.unsignedinteger):
        return (i * 7).astype(dtype)
    return ((i - 10) * 0.25).astype(dtype)


def save(name, arr, version):
    with open(os.path.join(OUT, name), "wb") as f:
        npformat.write_array(f, arr, version=version, allow_pickle=False)


def main():
    os.makedirs(os.path.join(OUT, "malformed"), exist_ok=True)
    for tag, dt in DTYPES.items():
        a = values(dt, (2, 3, 4))
        for v in (1, 2, 3):
            save(f"{tag}_c_v{v}.npy", a, (v, 0))
        f = np.asfortranarray(a)
        assert f.flags.f_contiguous and not f.flags.c_contiguous
        for v in (1, 2, 3):
            save(f"{tag}_f_v{v}.npy", f, (v, 0))
    save("scalar_f8.npy", np.array(2.5, dtype=np.float64), (1, 0))
    save("empty_f4.npy", np.zeros((0, 3), dtype=np.float32), (1, 0))
    save("vec_i4.npy", values(np.int32, (5,)), (1, 0))
    save("big_endian_f4.npy", values(np.dtype(">f4"), (2, 3)), (1, 0))
    save("complex_c8.npy", np.zeros((2,), dtype=np.complex64), (1, 0))

    good = open(os.path.join(OUT, "f4_c_v1.npy"), "rb").read()
    broken = {
        "truncated_data.npy": good[:-5],
        "truncated_header.npy": good[:40],
        "bad_magic.npy": b"\x93NUMPX" + good[6:],
        "bad_version.npy": good[:6] + b"\x04\x00" + good[8:],
        "header_len_past_end.npy": good[:8] + (60000).to_bytes(2, "little") + good[10:],
        "trailing_bytes.npy": good + b"\0\0\0\0",
        "bool_value_2.npy": None,
    }
    b = bytearray(open(os.path.join(OUT, "b1_c_v1.npy"), "rb").read())
    b[-1] = 2
    broken["bool_value_2.npy"] = bytes(b)

    def with_dict(text):
        body = text.encode("latin1")
        pad = (64 - (10 + len(body) + 1) % 64) % 64
        body += b" " * pad + b"\n"
        return b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body + bytes(96)

    broken["dict_missing_shape.npy"] = with_dict("{'descr': '<f4', 'fortran_order': False, }")
    broken["dict_unknown_key.npy"] = with_dict(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1, }")
    broken["dict_bad_shape.npy"] = with_dict(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }")
    broken["dict_not_a_dict.npy"] = with_dict("['<f4', False, (2, 3)]")
    broken["dict_structured.npy"] = with_dict(
        "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }")
    broken["dict_huge_shape.npy"] = with_dict(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }")
    for name, data in broken.items():
        with open(os.path.join(OUT, "malformed", name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
