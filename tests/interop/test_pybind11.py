#!/usr/bin/python3
"""strided/interop/pybind11.hpp's casters against real NumPy and PyTorch.

Usage: test_pybind11.py <directory holding the strided_pybind11_test module> [unittest args]
(CTest runs it as pybind11_python: tests/interop/pybind11.cmake). The module's functions are in
pybind11_module.cpp.
"""
import gc
import sys
import threading
import unittest
import weakref

import numpy as np
import torch

m = None  # the extension module, imported in main()

# Every registry dtype: strided name -> (NumPy dtype or None, torch dtype or None). NumPy has no
# bfloat16; torch 1.13 has no uint16/32/64 and does not export bool through DLPack
# (test_torch_bool_export_error).
DTYPES = {
    "bool": (np.bool_, None), "u8": (np.uint8, torch.uint8), "i8": (np.int8, torch.int8),
    "u16": (np.uint16, None), "i16": (np.int16, torch.int16), "u32": (np.uint32, None),
    "i32": (np.int32, torch.int32), "u64": (np.uint64, None), "i64": (np.int64, torch.int64),
    "f16": (np.float16, torch.float16), "bf16": (None, torch.bfloat16),
    "f32": (np.float32, torch.float32), "f64": (np.float64, torch.float64),
}


def sample(np_dtype, shape=(3, 4)):
    n = int(np.prod(shape))
    if np_dtype == np.bool_:
        return (np.arange(n) % 3 == 1).reshape(shape)
    return (np.arange(n) * 3 % 11).astype(np_dtype).reshape(shape)


def address(a):
    """Address of element [0, ...] of a NumPy array or a torch tensor."""
    if isinstance(a, np.ndarray):
        return a.__array_interface__["data"][0]
    return a.data_ptr()


def element_strides(a):
    return tuple(s // a.itemsize for s in a.strides)


class NumpyArguments(unittest.TestCase):
    def test_every_numpy_dtype_round_trips_without_copy(self):
        for name, (np_dtype, _) in DTYPES.items():
            if np_dtype is None:
                continue
            with self.subTest(dtype=name):
                a = sample(np_dtype)
                d = m.describe(a)
                self.assertEqual(d["dtype"], name)
                self.assertEqual(d["address"], address(a))
                r = m.identity(a)
                self.assertEqual(r.dtype, a.dtype)
                self.assertEqual(address(r), address(a))
                self.assertFalse(r.flags.writeable)
                np.testing.assert_array_equal(r, a)

    def test_views_keep_their_strides(self):
        a = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
        views = {
            "negative": a[::-1, :, ::-2],
            "transposed": a.transpose(2, 0, 1),
            "sliced": a[1:, 1:3, ::2],
            "broadcast": np.broadcast_to(a[:1, :1, :], (3, 4, 5)),
            "empty": a[:, 2:2, :],
            "scalar": a[1, 2, 3, ...],
        }
        for name, v in views.items():
            with self.subTest(view=name):
                d = m.describe(v)
                self.assertEqual(d["shape"], v.shape)
                self.assertEqual(d["strides"], element_strides(v))
                if v.size:
                    self.assertEqual(d["address"], address(v))
                r = m.identity(v)
                self.assertEqual(r.shape, v.shape)
                np.testing.assert_array_equal(r, v)
                if v.size:  # NumPy sets an empty array's strides itself
                    self.assertEqual(r.strides, v.strides)
                    self.assertEqual(address(r), address(v))

    def test_views_made_in_cpp_come_back_as_views(self):
        a = np.arange(12, dtype=np.int32).reshape(3, 4)
        t = m.transpose(a)
        np.testing.assert_array_equal(t, a.T)
        self.assertEqual(address(t), address(a))
        self.assertEqual(t.strides, a.T.strides)
        f = m.flip(a, 1)
        np.testing.assert_array_equal(f, a[:, ::-1])
        self.assertEqual(f.strides, (16, -4))
        self.assertEqual(address(f), address(a[:, ::-1]))

    def test_result_is_read_only(self):
        r = m.identity(np.arange(4.0))
        with self.assertRaisesRegex(ValueError, "read-only"):
            r[0] = 1.0

    def test_overloads_pick_the_matching_dtype(self):
        self.assertEqual(m.which(np.arange(3, dtype=np.float32)), "f32")
        self.assertEqual(m.which(np.arange(3, dtype=np.int64)), "i64")
        self.assertEqual(m.which(torch.arange(3)), "i64")
        self.assertEqual(m.which("x"), "str")

    def test_typed_arguments(self):
        a = np.arange(6, dtype=np.uint8).reshape(2, 3)[:, ::-1]
        r = m.identity_u8(a)
        self.assertEqual(address(r), address(a))
        np.testing.assert_array_equal(r, a)


class Errors(unittest.TestCase):
    def test_object_dtype(self):
        with self.assertRaises(TypeError) as e:
            m.identity(np.array([1, "a"], dtype=object))
        self.assertEqual(str(e.exception),
                         "strided: got a NumPy array of dtype object (Python objects, not "
                         "numbers); expected bool, integer or floating dtype (bfloat16 through "
                         "__dlpack__)")

    def test_non_native_byte_order(self):
        with self.assertRaises(TypeError) as e:
            m.identity_f32(np.arange(3, dtype=">f4"))
        self.assertEqual(str(e.exception),
                         "strided: got a NumPy array of dtype float32 (>f4, non-native byte "
                         "order); expected dtype f32 in native byte order: call "
                         ".astype(array.dtype.newbyteorder('='))")

    def test_dtype_without_element_type(self):
        with self.assertRaises(TypeError) as e:
            m.identity(np.zeros(3, dtype=np.complex64))
        self.assertEqual(str(e.exception),
                         "strided: got a NumPy array of dtype complex64, which has no strided "
                         "element type; expected bool, integer or floating dtype (bfloat16 "
                         "through __dlpack__)")

    def test_dtype_mismatch(self):
        with self.assertRaises(TypeError) as e:
            m.identity_f32(np.arange(3, dtype=np.int64))
        self.assertEqual(str(e.exception),
                         "strided: got a NumPy array of dtype i64; expected dtype f32")
        with self.assertRaises(TypeError) as e:
            m.identity_f32(torch.arange(3, dtype=torch.float64))
        self.assertEqual(str(e.exception), "strided: got a Tensor of dtype f64; expected dtype f32")
        # bf16 only comes through __dlpack__: a uint16 array is not one.
        with self.assertRaises(TypeError) as e:
            m.identity_bf16(np.zeros(2, dtype=np.uint16))
        self.assertEqual(str(e.exception),
                         "strided: got a NumPy array of dtype u16; expected dtype bf16")

    def test_stride_not_a_whole_element(self):
        raw = np.zeros(13, dtype=np.uint8)
        a = np.lib.stride_tricks.as_strided(raw[1:].view(np.int16)[:0], shape=(2,), strides=(3,))
        with self.assertRaises(ValueError) as e:
            m.identity(a)
        self.assertEqual(str(e.exception),
                         "strided: got a NumPy array whose axis 0 has a stride of 3 bytes; "
                         "expected a multiple of the itemsize 2 (call numpy.ascontiguousarray)")

    def test_misaligned_data(self):
        a = np.zeros(9, dtype=np.uint8)[1:].view(np.float32)
        self.assertFalse(a.flags.aligned)
        with self.assertRaises(ValueError) as e:
            m.identity(a)
        self.assertEqual(str(e.exception),
                         "strided: numpy array argument: <dlpack>: data + byte_offset (0) is not "
                         "aligned for f32")

    def test_device_other_than_cpu(self):
        class OnGpu:
            def __dlpack_device__(self):
                return (2, 0)

            def __dlpack__(self, stream=None):
                raise AssertionError("the device is checked first")

        with self.assertRaises(ValueError) as e:
            m.identity(OnGpu())
        self.assertEqual(str(e.exception),
                         "strided: got a OnGpu on DLPack device (2, 0); expected the CPU (1, 0): "
                         "copy it to the CPU first (.cpu())")

    def test_capsule_device_is_checked_too(self):
        # A producer without __dlpack_device__ whose capsule says CUDA: the import refuses it.
        class Lying:
            def __init__(self, capsule):
                self.capsule = capsule

            def __dlpack__(self, stream=None):
                return self.capsule

        import ctypes
        cap = m.to_capsule(np.arange(3.0))
        # DLManagedTensor starts with DLTensor: data pointer, then DLDevice {int32 type, id}.
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        ptr = get(cap, b"dltensor")
        ctypes.c_int32.from_address(ptr + ctypes.sizeof(ctypes.c_void_p)).value = 2
        with self.assertRaises(ValueError) as e:
            m.identity(Lying(cap))
        self.assertEqual(str(e.exception),
                         "strided: __dlpack__ argument: <dlpack>: device type 2 is not kDLCPU "
                         "(1); copy the tensor to the CPU first")

    def test_other_objects_are_not_tensors(self):
        with self.assertRaisesRegex(TypeError, "incompatible function arguments"):
            m.identity([1, 2, 3])


class TorchArguments(unittest.TestCase):
    def test_every_torch_dtype_without_copy(self):
        for name, (np_dtype, torch_dtype) in DTYPES.items():
            if torch_dtype is None:
                continue
            with self.subTest(dtype=name):
                t = torch.from_numpy(sample(np_dtype or np.float32)).to(torch_dtype)
                t = t.t()  # non-contiguous
                d = m.describe(t)
                self.assertEqual(d["dtype"], name)
                self.assertEqual(d["address"], address(t))
                self.assertEqual(d["strides"], t.stride())
                # Back to torch through a capsule: same memory, same values, same dtype.
                back = torch.from_dlpack(m.to_capsule(t))
                self.assertEqual(back.dtype, torch_dtype)
                self.assertEqual(address(back), address(t))
                self.assertTrue(torch.equal(back, t))
                # And to NumPy (bf16 as its bit patterns in uint16).
                r = m.identity(t)
                self.assertEqual(address(r), address(t))
                if torch_dtype == torch.bfloat16:
                    self.assertEqual(r.dtype, np.uint16)
                    bits = t.contiguous().view(torch.int16).numpy().view(np.uint16)
                    np.testing.assert_array_equal(r, bits)
                else:
                    np.testing.assert_array_equal(r, t.numpy())

    def test_torch_bool_export_error(self):
        # torch 1.13's __dlpack__ refuses bool: its own exception reaches the caller unchanged.
        with self.assertRaisesRegex(RuntimeError, "Bool type is not supported by dlpack"):
            m.identity(torch.zeros(2, dtype=torch.bool))

    def test_bf16_argument(self):
        t = torch.tensor([1.5, -2.0, 3.25], dtype=torch.bfloat16)
        r = m.identity_bf16(t)
        self.assertEqual(r.dtype, np.uint16)
        np.testing.assert_array_equal(r, np.array([0x3FC0, 0xC000, 0x4050], dtype=np.uint16))

    def test_torch_tensor_is_kept_alive(self):
        t = torch.arange(5, dtype=torch.float32)
        ptr = address(t)
        r = m.identity(t)
        del t
        gc.collect()
        self.assertEqual(address(r), ptr)
        np.testing.assert_array_equal(r, np.arange(5, dtype=np.float32))

    def test_capsule_to_numpy(self):
        a = np.arange(6.0).reshape(2, 3)[:, ::-1]

        class Holder:
            def __init__(self, c):
                self.c = c

            def __dlpack__(self, stream=None):
                return self.c

            def __dlpack_device__(self):
                return (1, 0)

        b = np.from_dlpack(Holder(m.to_capsule(a)))
        np.testing.assert_array_equal(b, a)
        self.assertEqual(address(b), address(a))

    def test_unconsumed_capsule_releases_the_buffer(self):
        a = np.arange(4.0)
        ref = weakref.ref(a)
        cap = m.to_capsule(a)
        del a
        gc.collect()
        self.assertIsNotNone(ref())
        del cap
        gc.collect()
        self.assertIsNone(ref())


class Copies(unittest.TestCase):
    def test_copy_is_writable_row_major_and_new(self):
        for name, (np_dtype, _) in DTYPES.items():
            if np_dtype is None:
                continue
            with self.subTest(dtype=name):
                a = sample(np_dtype, (4, 5))[::-1, ::2]
                c = m.to_numpy_copy(a)
                self.assertTrue(c.flags.writeable)
                self.assertTrue(c.flags.c_contiguous)
                self.assertNotEqual(address(c), address(a))
                np.testing.assert_array_equal(c, a)

    def test_copy_releases_the_gil(self):
        # While the copy runs, a Python thread that wants the GIL must get it. With the GIL
        # held, it would wait for the switch interval (2 s, far longer than the copies), so no
        # tick could land during a copy. A few attempts absorb a busy machine's scheduling.
        a = np.ones((4096, 4096), dtype=np.float32).T
        ticks = []
        stop = threading.Event()

        def spin():
            while not stop.is_set():
                ticks.append(1)

        old = sys.getswitchinterval()
        sys.setswitchinterval(2.0)
        thread = threading.Thread(target=spin)
        try:
            thread.start()
            for _ in range(8):
                before = len(ticks)
                c = m.to_numpy_copy(a)
                during = len(ticks) - before
                if during:
                    break
        finally:
            stop.set()
            thread.join()
            sys.setswitchinterval(old)
        np.testing.assert_array_equal(c[:2, :2], np.ones((2, 2), dtype=np.float32))
        self.assertGreater(during, 0)


class Lifetimes(unittest.TestCase):
    def test_array_outlives_the_call(self):
        a = np.arange(8, dtype=np.int16)
        ref = weakref.ref(a)
        count = sys.getrefcount(a)
        m.keep(a)
        self.assertEqual(sys.getrefcount(a), count + 1)  # the kept tensor holds the array
        del a
        gc.collect()
        self.assertIsNotNone(ref())
        np.testing.assert_array_equal(m.kept(), np.arange(8, dtype=np.int16))
        m.drop()
        gc.collect()
        self.assertIsNone(ref())

    def test_buffer_outlives_the_array(self):
        a = np.arange(8, dtype=np.float64)
        ref = weakref.ref(a)
        r = m.identity(a[::2])
        del a
        gc.collect()
        self.assertIsNotNone(ref())  # r.base -> tensor buffer -> a
        np.testing.assert_array_equal(r, [0, 2, 4, 6])
        del r
        gc.collect()
        self.assertIsNone(ref())

    def test_no_reference_leaks_per_call(self):
        a = np.arange(8, dtype=np.float32)
        count = sys.getrefcount(a)
        for _ in range(100):
            m.describe(a)
            m.identity(a)
            m.to_numpy_copy(a)
        gc.collect()
        self.assertEqual(sys.getrefcount(a), count)

    def test_release_without_the_gil(self):
        a = np.arange(8, dtype=np.float32)
        ref = weakref.ref(a)
        m.keep(a)
        del a
        m.drop_without_gil()  # the last tensor dies with the GIL released
        gc.collect()
        self.assertIsNone(ref())

    def test_torch_tensor_released(self):
        t = torch.arange(4, dtype=torch.float32)
        ref = weakref.ref(t)
        count = sys.getrefcount(t)
        m.keep(t)
        m.drop()
        gc.collect()
        self.assertEqual(sys.getrefcount(t), count)
        del t
        gc.collect()
        self.assertIsNone(ref())


def main():
    global m
    sys.path.insert(0, sys.argv[1])
    import strided_pybind11_test
    m = strided_pybind11_test
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)


if __name__ == "__main__":
    main()
