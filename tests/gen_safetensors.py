#!/usr/bin/python3
"""Writes tests/data/safetensors/* for tests/safetensors_test.cpp, by hand from the published
format (https://github.com/huggingface/safetensors#format), without the safetensors package:

    8 bytes   N, little-endian u64
    N bytes   JSON object: {"__metadata__": {str: str}, name: {"dtype", "shape", "data_offsets"}}
              (space-padded; offsets are relative to the data section)
    rest      the data section, tensors back to back, row-major, little-endian

Run with Debian's interpreter (NumPy, PyTorch for bf16): /usr/bin/python3 tests/gen_safetensors.py

model.safetensors     a small nn.Linear(4, 3) (weight [out=3, in=4], bias [3]), an input x [2, 4]
                      and the expected y = x @ weight.T + bias computed by NumPy, plus one tensor
                      of every other dtype, a rank-0 and an empty tensor, and metadata.
misaligned.safetensors  an F32 tensor at data offset 1 (readers must copy it).
malformed/*.safetensors one file per validation rule.
"""
import json
import os
import struct

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "safetensors")

DTYPE = {np.dtype(np.float64): "F64", np.dtype(np.float32): "F32", np.dtype(np.float16): "F16",
         np.dtype(np.int64): "I64", np.dtype(np.int32): "I32", np.dtype(np.int16): "I16",
         np.dtype(np.int8): "I8", np.dtype(np.uint64): "U64", np.dtype(np.uint32): "U32",
         np.dtype(np.uint16): "U16", np.dtype(np.uint8): "U8", np.dtype(np.bool_): "BOOL"}


def build(tensors, metadata=None, pad_to=8, align_data=True):
    """tensors: list of (name, dtype string, shape, raw bytes) in data order."""
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    if align_data:
        text += b" " * ((pad_to - (8 + len(text)) % pad_to) % pad_to)
    return struct.pack("<Q", len(text)) + text + data


def entry(name, array):
    array = np.array(array, order="C")  # (np.ascontiguousarray would make rank 0 into rank 1)
    return (name, DTYPE[array.dtype], array.shape, array.astype(array.dtype.newbyteorder("<"))
            .tobytes())


def raw_file(header_text, data=b""):
    text = header_text.encode() if isinstance(header_text, str) else header_text
    return struct.pack("<Q", len(text)) + text + data


def main():
    os.makedirs(os.path.join(OUT, "malformed"), exist_ok=True)
    weight = (np.arange(12, dtype=np.float32).reshape(3, 4) - 6) / 4  # nn.Linear(4, 3).weight
    bias = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    x = np.array([[1, 2, 3, 4], [-1, 0.5, 0, 2]], dtype=np.float32)
    y = x @ weight.T + bias
    bf16 = torch.tensor([1.5, -2.0, 3.25], dtype=torch.bfloat16).view(torch.int16).numpy()
    tensors = [  # larger elements first: every tensor is aligned when the data section is
        entry("f64", np.array([[0.1, -2.5]], dtype=np.float64)),
        entry("i64", np.array([[-(2 ** 40), 7], [8, 2 ** 62]], dtype=np.int64)),
        entry("u64", np.array([2 ** 64 - 1], dtype=np.uint64)),
        entry("linear.weight", weight),
        entry("linear.bias", bias),
        entry("x", x),
        entry("y", y),
        entry("i32", np.array([-3, 4, 5], dtype=np.int32)),
        entry("u32", np.array([4000000000], dtype=np.uint32)),
        entry("step", np.array(42, dtype=np.int32)),
        entry("empty", np.zeros((0, 5), dtype=np.float32)),
        entry("f16", np.array([[0.5, -1.0, 65504.0]], dtype=np.float16)),
        ("bf16", "BF16", (3,), bf16.astype("<i2").tobytes()),
        entry("i16", np.array([-300, 300], dtype=np.int16)),
        entry("u16", np.array([65535, 1], dtype=np.uint16)),
        entry("i8", np.array([-128, 127, 0], dtype=np.int8)),
        entry("u8", np.array([0, 255], dtype=np.uint8)),
        entry("mask", np.array([True, False, False, True], dtype=np.bool_)),
    ]
    meta = {"format": "pt", "source": "tests/gen_safetensors.py"}
    with open(os.path.join(OUT, "model.safetensors"), "wb") as f:
        f.write(build(tensors, meta))
    with open(os.path.join(OUT, "misaligned.safetensors"), "wb") as f:
        f.write(build([entry("a", np.array([9], dtype=np.uint8)),
                       entry("b", np.array([1.5, -2.0, 8.0], dtype=np.float32))]))

    f32 = lambda name, n, lo: (name, "F32", (n,), np.arange(lo, lo + n, dtype="<f4").tobytes())
    good = build([f32("a", 2, 0), f32("b", 2, 2)])
    hdr = lambda h: json.dumps(h)
    t = lambda dtype, shape, b, e: {"dtype": dtype, "shape": shape, "data_offsets": [b, e]}
    data16 = bytes(16)
    bad = {
        "short": good[:5],
        "header_too_large": struct.pack("<Q", 100_000_001) + good[8:],
        "header_past_end": struct.pack("<Q", 10_000) + good[8:],
        "not_json": raw_file('{"a": {"dtype": "F32", ', data16),
        "not_object": raw_file("[1, 2]", data16),
        "hole": raw_file(hdr({"a": t("F32", [2], 0, 8), "b": t("F32", [1], 12, 16)}), data16),
        "overlap": raw_file(hdr({"a": t("F32", [2], 0, 8), "b": t("F32", [2], 4, 12)}), data16[:12]),
        "end_before_begin": raw_file(hdr({"a": t("F32", [0], 8, 0)}), data16[:8]),
        "size_vs_shape": raw_file(hdr({"a": t("F32", [3], 0, 8)}), data16[:8]),
        "data_past_end": raw_file(hdr({"a": t("F32", [4], 0, 16)}), data16[:8]),
        "trailing_data": raw_file(hdr({"a": t("F32", [2], 0, 8)}), data16),
        "unknown_dtype": raw_file(hdr({"a": t("F33", [2], 0, 8)}), data16[:8]),
        "negative_shape": raw_file(hdr({"a": t("F32", [-2], 0, 8)}), data16[:8]),
        "float_offset": raw_file(hdr({"a": t("F32", [2], 0, 8.0)}), data16[:8]),
        "missing_field": raw_file(hdr({"a": {"dtype": "F32", "shape": [2]}}), data16[:8]),
        "unknown_field": raw_file(hdr({"a": dict(t("F32", [2], 0, 8), extra=1)}), data16[:8]),
        "metadata_not_string": raw_file(hdr({"__metadata__": {"n": 1}, "a": t("F32", [2], 0, 8)}),
                                        data16[:8]),
        "duplicate_key": raw_file('{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},'
                                  ' "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}',
                                  data16[:8]),
        "bad_utf8": raw_file(b'{"\xff": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}',
                             data16[:8]),
        "huge_shape": raw_file(hdr({"a": t("F32", [2 ** 32, 2 ** 32, 16], 0, 8)}), data16[:8]),
        "bool_value_2": raw_file(hdr({"m": t("BOOL", [2], 0, 2)}), b"\x01\x02"),
    }
    for name, data in bad.items():
        with open(os.path.join(OUT, "malformed", name + ".safetensors"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
