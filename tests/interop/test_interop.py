#!/usr/bin/python3
"""strided's DLPack and .npy doors against real PyTorch and NumPy.

Usage: test_interop.py <path to libstrided_interop_test.so> [unittest args]
(CTest runs it: tests/interop/CMakeLists.txt). The library (interop_lib.cpp) builds the tensors
that VIEWS below recomputes with NumPy, exports/imports them, and counts every deleter call and
every buffer release.
"""
import ctypes
import gc
import json
import os
import sys
import tempfile
import unittest

import numpy as np
import torch
import torch.utils.dlpack

LIB = None  # set in main()

# strided element name -> (NumPy dtype or None, torch dtype or None)
DTYPES = {
    "bool": (np.bool_, torch.bool), "i8": (np.int8, torch.int8), "i16": (np.int16, torch.int16),
    "i32": (np.int32, torch.int32), "i64": (np.int64, torch.int64), "u8": (np.uint8, torch.uint8),
    "u16": (np.uint16, None), "u32": (np.uint32, None), "u64": (np.uint64, None),
    "f16": (np.float16, torch.float16), "bf16": (None, torch.bfloat16),
    "f32": (np.float32, torch.float32), "f64": (np.float64, torch.float64),
}

# The views interop_lib.cpp's make_view builds, in NumPy terms. Values: element i of the
# buffer is i % 2 == 1 (bool), i (unsigned), i - 5 (signed and floating).
VIEWS = {
    "base": lambda a: a,
    "transpose": lambda a: a.transpose(2, 1, 0),
    "permute": lambda a: a.transpose(2, 0, 1),
    "narrow": lambda a: a[:, 1:3, :],
    "broadcast": lambda a: np.broadcast_to(a[1:2], (5, 3, 4)),
    "empty": lambda a: a[:, 3:3, :],
    "row": lambda a: a[1, 2, :],
    "scalar": None,
}

IOERR = {"dtype_mismatch": 9, "unsupported_device": 13, "invalid_argument": 15,
         "unsupported_dtype": 8}


def buffer_values(name, n, first=0):
    i = np.arange(first, first + n, dtype=np.int64)
    if name == "bool":
        return i % 2 == 1
    if name.startswith("u"):
        return i.astype(np.float64)
    return (i - 5).astype(np.float64)


def expected(name, view):
    """The expected values as float64 (or bool), with NumPy's shape and element strides."""
    if view == "scalar":
        a = buffer_values(name, 1, 12).reshape(())
        return a, ()
    a = buffer_values(name, 24).reshape(2, 3, 4)
    v = VIEWS[view](a)
    return v, tuple(s // v.itemsize for s in v.strides)


def counts():
    return (LIB.strided_export_deletes(), LIB.strided_buffer_frees(), LIB.strided_import_deletes())


def export(name, view):
    cap = LIB.strided_export(name.encode(), view.encode())
    if cap is None:
        raise RuntimeError(LIB.strided_last_error().decode())
    return cap


class Exported:
    """A minimal __dlpack__ producer around one capsule, for np.from_dlpack."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None):
        cap, self.capsule = self.capsule, None
        return cap

    def __dlpack_device__(self):
        return (1, 0)


class StridedToTorch(unittest.TestCase):
    def test_values_shapes_strides_and_deleters(self):
        for name, (_, tdtype) in DTYPES.items():
            if tdtype is None or tdtype == torch.bool:
                continue
            for view in VIEWS:
                with self.subTest(dtype=name, view=view):
                    before = counts()
                    cap = export(name, view)
                    t = torch.utils.dlpack.from_dlpack(cap)
                    del cap
                    want, strides = expected(name, view)
                    self.assertEqual(t.dtype, tdtype)
                    self.assertEqual(tuple(t.shape), want.shape)
                    self.assertEqual(tuple(t.stride()), strides)
                    if t.numel() > 0:
                        self.assertEqual(t.data_ptr(), LIB.strided_last_export_address())
                    got = t.to(torch.float64).clone().numpy()  # no view of our buffer
                    np.testing.assert_array_equal(got, want)
                    self.assertEqual(counts()[:2], before[:2])  # torch holds the buffer
                    del t
                    gc.collect()
                    after = counts()
                    self.assertEqual(after[0] - before[0], 1, "deleter runs exactly once")
                    self.assertEqual(after[1] - before[1], 1, "buffer freed exactly once")

    def test_any_tensor_exports_with_its_dtype(self):
        for name, (_, tdtype) in DTYPES.items():
            if tdtype is None or tdtype == torch.bool:
                continue
            for view in ("base", "transpose", "scalar"):
                with self.subTest(dtype=name, view=view):
                    before = counts()
                    cap = LIB.strided_export_any(name.encode(), view.encode())
                    self.assertIsNotNone(cap, LIB.strided_last_error().decode())
                    t = torch.utils.dlpack.from_dlpack(cap)
                    del cap
                    want, strides = expected(name, view)
                    self.assertEqual(t.dtype, tdtype)
                    self.assertEqual(tuple(t.stride()), strides)
                    np.testing.assert_array_equal(t.to(torch.float64).clone().numpy(), want)
                    del t
                    gc.collect()
                    self.assertEqual(counts()[1] - before[1], 1, "buffer freed exactly once")

    def test_torch_rejects_bool_and_the_capsule_still_frees(self):
        # PyTorch 1.13 has no DLPack bool; newer versions accept kDLBool.
        before = counts()
        cap = export("bool", "base")
        try:
            t = torch.utils.dlpack.from_dlpack(cap)
            self.assertEqual(t.dtype, torch.bool)
            self.assertEqual(t.flatten().tolist(), [i % 2 == 1 for i in range(24)])
            del t
        except (RuntimeError, TypeError, BufferError):
            pass
        del cap
        gc.collect()
        after = counts()
        self.assertEqual(after[0] - before[0], 1)
        self.assertEqual(after[1] - before[1], 1)

    def test_unconsumed_capsule_runs_the_deleter(self):
        before = counts()
        cap = export("f32", "narrow")
        del cap
        gc.collect()
        after = counts()
        self.assertEqual(after[0] - before[0], 1)
        self.assertEqual(after[1] - before[1], 1)


class StridedToNumPy(unittest.TestCase):
    def test_values_shapes_strides_and_deleters(self):
        for name, (ndtype, _) in DTYPES.items():
            if ndtype is None or ndtype == np.bool_:  # NumPy 1.24 has no DLPack bool
                continue
            for view in VIEWS:
                with self.subTest(dtype=name, view=view):
                    before = counts()
                    a = np.from_dlpack(Exported(export(name, view)))
                    want, strides = expected(name, view)
                    self.assertEqual(a.dtype, np.dtype(ndtype))
                    self.assertEqual(a.shape, want.shape)
                    self.assertEqual(tuple(s // a.itemsize for s in a.strides), strides)
                    if a.size > 0:
                        self.assertEqual(a.__array_interface__["data"][0],
                                         LIB.strided_last_export_address())
                    np.testing.assert_array_equal(a.astype(np.float64), want)
                    del a
                    gc.collect()
                    after = counts()
                    self.assertEqual(after[0] - before[0], 1)
                    self.assertEqual(after[1] - before[1], 1)


class TorchToStrided(unittest.TestCase):
    def check_import(self, v, name):
        before = counts()
        cap = torch.utils.dlpack.to_dlpack(v)
        h = LIB.strided_import(cap, name.encode(), 0)
        self.assertGreater(h, 0, LIB.strided_last_error().decode())
        rank = LIB.strided_imported_rank(h)
        self.assertEqual(rank, v.dim())
        self.assertEqual([LIB.strided_imported_dim(h, k) for k in range(rank)], list(v.shape))
        # PyTorch's exporter normalises the strides of size-1 axes (and of empty tensors): we
        # must see exactly what PyTorch itself reads back from its own export.
        torch_strides = torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(v)).stride()
        self.assertEqual([LIB.strided_imported_stride(h, k) for k in range(rank)],
                         list(torch_strides))
        for k in range(rank):
            if v.shape[k] > 1 and v.numel() > 0:
                self.assertEqual(LIB.strided_imported_stride(h, k), v.stride(k))
        if v.numel() > 0:
            self.assertEqual(LIB.strided_imported_address(h), v.data_ptr(), "zero-copy")
        got = [LIB.strided_imported_value(h, i) for i in range(LIB.strided_imported_numel(h))]
        self.assertEqual(got, v.to(torch.float64).flatten().tolist())
        del cap
        gc.collect()
        self.assertEqual(counts()[2], before[2], "strided still holds the torch tensor")
        LIB.strided_release(h)
        self.assertEqual(counts()[2] - before[2], 1, "torch's deleter ran exactly once")

    def test_zero_copy_views(self):
        base = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4) - 5
        views = [base, base.permute(2, 0, 1), base[:, 1:3], base[1].t(), base[0, 0, 1],
                 base[:, 0:0], base[1:2].expand(3, 3, 4)]
        for v in views:
            with self.subTest(shape=tuple(v.shape), stride=v.stride()):
                self.check_import(v, "f32")
        for name, dt in [("f64", torch.float64), ("i64", torch.int64), ("i8", torch.int8),
                         ("u8", torch.uint8), ("f16", torch.float16), ("bf16", torch.bfloat16)]:
            with self.subTest(dtype=name):
                self.check_import((torch.arange(12) - 3).to(dt).reshape(3, 4).t(), name)

    def test_from_dlpack_any_reads_the_dtype(self):
        for name, (_, tdtype) in DTYPES.items():
            if tdtype is None or tdtype == torch.bool:  # torch 1.13 exports no bool
                continue
            with self.subTest(dtype=name):
                v = (torch.arange(12) - 3).to(tdtype).reshape(3, 4).t()
                before = counts()
                h = LIB.strided_import(torch.utils.dlpack.to_dlpack(v), b"any", 0)
                self.assertGreater(h, 0, LIB.strided_last_error().decode())
                self.assertEqual(LIB.strided_imported_dtype(h).decode(), name)
                self.assertEqual(LIB.strided_imported_address(h), v.data_ptr(), "zero-copy")
                self.assertEqual([LIB.strided_imported_stride(h, k) for k in range(2)], [1, 4])
                got = [LIB.strided_imported_value(h, i) for i in range(12)]
                self.assertEqual(got, v.to(torch.float64).flatten().tolist())
                LIB.strided_release(h)
                self.assertEqual(counts()[2] - before[2], 1, "torch's deleter ran exactly once")
        before = counts()
        cap = torch.utils.dlpack.to_dlpack(torch.zeros(3, dtype=torch.complex64))
        self.assertEqual(LIB.strided_import(cap, b"any", 0), -IOERR["unsupported_dtype"])
        self.assertIn("from_dlpack_any", LIB.strided_last_error().decode())
        self.assertEqual(counts()[2] - before[2], 1, "the deleter runs on error too")

    def test_imported_tensor_outlives_the_torch_tensor(self):
        before = counts()
        t = torch.arange(6, dtype=torch.float64)
        h = LIB.strided_import(torch.utils.dlpack.to_dlpack(t), b"f64", 0)
        self.assertGreater(h, 0)
        del t
        gc.collect()
        self.assertEqual([LIB.strided_imported_value(h, i) for i in range(6)],
                         [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
        LIB.strided_release(h)
        self.assertEqual(counts()[2] - before[2], 1)

    def test_errors_call_the_deleter_once(self):
        t = torch.arange(6, dtype=torch.float32)
        for dtype, fake_device, kind in [("i32", 0, "dtype_mismatch"), ("f64", 0, "dtype_mismatch"),
                                         ("f32", 1, "unsupported_device")]:
            with self.subTest(dtype=dtype, fake_device=fake_device):
                before = counts()
                cap = torch.utils.dlpack.to_dlpack(t)
                h = LIB.strided_import(cap, dtype.encode(), fake_device)
                self.assertEqual(h, -IOERR[kind], LIB.strided_last_error().decode())
                message = LIB.strided_last_error().decode()
                self.assertIn("from_dlpack: <dlpack>:", message)
                self.assertEqual(counts()[2] - before[2], 1)
                # The consumed capsule cannot be imported twice.
                self.assertEqual(LIB.strided_import(cap, b"f32", 0), -IOERR["invalid_argument"])
                del cap
                gc.collect()
                self.assertEqual(counts()[2] - before[2], 1)


class StridedNpyToNumPy(unittest.TestCase):
    def test_numpy_loads_what_strided_saves(self):
        with tempfile.TemporaryDirectory() as d:
            for name, (ndtype, _) in DTYPES.items():
                if ndtype is None:
                    continue
                for view in VIEWS:
                    for version in (0, 1, 2, 3):
                        with self.subTest(dtype=name, view=view, version=version):
                            path = os.path.join(d, f"{name}_{view}_{version}.npy")
                            rc = LIB.strided_save_npy(path.encode(), name.encode(),
                                                      view.encode(), version)
                            self.assertEqual(rc, 0, LIB.strided_last_error().decode())
                            with open(path, "rb") as f:
                                major, minor = np.lib.format.read_magic(f)
                            self.assertEqual((major, minor), (version or 1, 0))
                            a = np.load(path, allow_pickle=False)
                            want, _ = expected(name, view)
                            self.assertEqual(a.dtype, np.dtype(ndtype))
                            self.assertEqual(a.shape, want.shape)
                            self.assertTrue(a.flags.c_contiguous)
                            np.testing.assert_array_equal(a.astype(np.float64)
                                                          if name != "bool" else a, want)

    def test_bf16_has_no_numpy_dtype(self):
        with tempfile.TemporaryDirectory() as d:
            rc = LIB.strided_save_npy(os.path.join(d, "x.npy").encode(), b"bf16", b"base", 0)
            self.assertEqual(rc, -IOERR["unsupported_dtype"])


class StridedSafetensorsToPython(unittest.TestCase):
    """save_safetensors output read by a reader written here from the published format."""

    NUMPY = {"BOOL": np.bool_, "I8": np.int8, "I16": "<i2", "I32": "<i4", "I64": "<i8",
             "U8": np.uint8, "U16": "<u2", "U32": "<u4", "U64": "<u8", "F16": "<f2",
             "F32": "<f4", "F64": "<f8", "BF16": "<i2"}

    def test_python_reads_what_strided_writes(self):
        if not hasattr(LIB, "strided_save_safetensors"):
            self.skipTest("the interop library was built without nlohmann_json")
        with tempfile.TemporaryDirectory() as d:
            for view in VIEWS:
                with self.subTest(view=view):
                    path = os.path.join(d, view + ".safetensors")
                    rc = LIB.strided_save_safetensors(path.encode(), view.encode())
                    self.assertEqual(rc, 0, LIB.strided_last_error().decode())
                    with open(path, "rb") as f:
                        raw = f.read()
                    n = int.from_bytes(raw[:8], "little")
                    self.assertEqual((8 + n) % 8, 0, "data section 8-byte aligned")
                    header = json.loads(raw[8:8 + n].decode("utf-8"))
                    self.assertEqual(header.pop("__metadata__"), {"writer": "strided"})
                    data = raw[8 + n:]
                    spans = sorted(tuple(e["data_offsets"]) for e in header.values())
                    self.assertEqual(spans[0][0], 0)
                    self.assertEqual(spans[-1][1], len(data))
                    for (_, end), (begin, _) in zip(spans, spans[1:]):
                        self.assertEqual(end, begin, "no holes, no overlaps")
                    self.assertEqual(set(header), set(DTYPES))
                    for name, e in header.items():
                        begin, end = e["data_offsets"]
                        size = np.dtype(self.NUMPY[e["dtype"]]).itemsize
                        self.assertEqual(begin % size, 0, "aligned for its type")
                        a = np.frombuffer(data[begin:end], dtype=self.NUMPY[e["dtype"]])
                        if e["dtype"] == "BF16":
                            a = torch.from_numpy(a.copy()).view(torch.bfloat16).float().numpy()
                        a = a.reshape(e["shape"])
                        want, _ = expected(name, view)
                        self.assertEqual(a.shape, want.shape)
                        np.testing.assert_array_equal(a.astype(np.float64)
                                                      if name != "bool" else a, want)


def load(path):
    lib = ctypes.PyDLL(path)  # PyDLL: the GIL stays held, the library calls the C API
    lib.strided_export.restype = ctypes.py_object
    lib.strided_export.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.strided_export_any.restype = ctypes.py_object
    lib.strided_export_any.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.strided_imported_dtype.restype = ctypes.c_char_p
    lib.strided_imported_dtype.argtypes = [ctypes.c_longlong]
    lib.strided_import.restype = ctypes.c_longlong
    lib.strided_import.argtypes = [ctypes.py_object, ctypes.c_char_p, ctypes.c_int]
    lib.strided_last_error.restype = ctypes.c_char_p
    for f in ("strided_buffer_frees", "strided_export_deletes", "strided_import_deletes",
              "strided_imported_dim", "strided_imported_stride", "strided_imported_numel"):
        getattr(lib, f).restype = ctypes.c_longlong
    for f in ("strided_last_export_address", "strided_imported_address"):
        getattr(lib, f).restype = ctypes.c_ulonglong
    lib.strided_imported_value.restype = ctypes.c_double
    for f in ("strided_imported_rank", "strided_imported_dim", "strided_imported_stride",
              "strided_imported_address", "strided_imported_numel", "strided_imported_value",
              "strided_release"):
        getattr(lib, f).argtypes = [ctypes.c_longlong] + (
            [ctypes.c_int] if f in ("strided_imported_dim", "strided_imported_stride") else
            [ctypes.c_longlong] if f == "strided_imported_value" else [])
    lib.strided_save_npy.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_int]
    if hasattr(lib, "strided_save_safetensors"):
        lib.strided_save_safetensors.argtypes = [ctypes.c_char_p] * 2
    return lib


def main():
    global LIB
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    LIB = load(sys.argv[1])
    print(f"numpy {np.__version__}, torch {torch.__version__}")
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)


if __name__ == "__main__":
    main()
