#!/usr/bin/python3
"""The PyTorch half of examples/dlpack_torch.cpp.

Usage: dlpack_torch.py <path to libdlpack_torch_lib.so>
Loads the library with ctypes, takes a strided tensor into torch and a torch view into strided,
both without copying. CTest runs it as example.dlpack_torch.python. Exits non-zero on a mismatch.
"""
import ctypes
import sys

import torch
import torch.utils.dlpack

# The capsule functions of Python's C API, for wrapping and unwrapping DLManagedTensor pointers.
capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.restype = ctypes.py_object
capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype = ctypes.c_void_p
capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
capsule_rename = ctypes.pythonapi.PyCapsule_SetName
capsule_rename.argtypes = [ctypes.py_object, ctypes.c_char_p]


def main(library):
    lib = ctypes.CDLL(library)
    lib.strided_example_export.restype = ctypes.c_void_p
    lib.strided_example_import.restype = ctypes.c_size_t
    lib.strided_example_import.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]

    # [python]
    # strided -> torch: torch consumes the capsule and calls strided's deleter when done.
    w_t = torch.utils.dlpack.from_dlpack(capsule_new(lib.strided_example_export(), b"dltensor", None))
    print("torch sees:", tuple(w_t.shape), w_t.stride(), w_t.dtype)
    print(w_t)

    # torch -> strided: a view with an offset and a row stride of 4. Renaming the capsule
    # "used_dltensor" tells torch that the consumer (strided) now owns it.
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)[:, 1:3]
    capsule = torch.utils.dlpack.to_dlpack(x)
    pointer = capsule_pointer(capsule, b"dltensor")
    capsule_rename(capsule, b"used_dltensor")
    text = ctypes.create_string_buffer(1024)
    address = lib.strided_example_import(pointer, text, len(text))
    print("strided sees:")
    print(text.value.decode())
    print("same memory:", address == x.data_ptr())
    # [python]

    assert tuple(w_t.shape) == (4, 3) and w_t.stride() == (1, 4)
    assert torch.equal(w_t, torch.arange(12, dtype=torch.float32).reshape(3, 4).T)
    assert address == x.data_ptr(), text.value.decode()


if __name__ == "__main__":
    main(sys.argv[1])
