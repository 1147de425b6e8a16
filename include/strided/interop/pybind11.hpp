// pybind11 type casters: strided tensors as arguments and return values of Python extension
// modules (needs pybind11 >= 2.6 with NumPy, and <dlpack/dlpack.h>).
//
//   Tensor<T> / AnyTensor argument  <- a NumPy array (any strides, negative ones included) or any
//                                      object with __dlpack__ (PyTorch, JAX, CuPy on the CPU);
//                                      zero-copy, the Python object kept alive by the buffer
//   Tensor<T> / AnyTensor result    -> a read-only NumPy array over the tensor's buffer
//   to_numpy(t), to_numpy_copy(t), to_dlpack_capsule(t)
//                                   explicit forms: shared / owned copy / a DLPack capsule for
//                                   torch.from_dlpack (the way to hand bf16 to PyTorch)
//
// Errors raised while converting an argument: TypeError for what the element type makes
// impossible (object, complex, string dtypes; another dtype than a Tensor<T> argument's T;
// non-native byte order), ValueError for the rest (a device other than the CPU, strides that
// are not whole elements, misaligned data). A Python object that is neither an array nor a
// DLPack producer leaves pybind11 to try the next overload.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "strided/any_tensor.hpp"
#include "strided/dtype.hpp"
#include "strided/interop/dlpack.hpp"
#include "strided/tensor.hpp"

namespace strided {

namespace detail {

/// Releases a Python reference from any thread: the last tensor sharing a Python buffer may die
/// where the GIL is not held (inside a gil_scoped_release block, in a worker thread). After the
/// interpreter has shut down the reference is leaked instead: decrementing it then would crash.
struct PyObjectRelease {
  void operator()(pybind11::object* object) const {
    if (!Py_IsInitialized()) {
      object->release();  // leaked: the interpreter is gone
      delete object;
      return;
    }
    pybind11::gil_scoped_acquire gil;
    delete object;
  }
};

/// Calls a DLPack producer's deleter with the GIL held: NumPy's and other Python producers'
/// deleters release Python references.
struct DLPackReleaseWithGil {
  void operator()(DLManagedTensor* m) const {
    if (m->deleter == nullptr) return;
    if (!Py_IsInitialized()) return;  // leaked, as PyObjectRelease
    pybind11::gil_scoped_acquire gil;
    m->deleter(m);
  }
};

/// The DType of a NumPy dtype; throws TypeError for the ones strided has no element type for.
inline DType dtype_from_numpy(const pybind11::dtype& dt, const char* expected) {
  const char kind = dt.kind();
  const auto size = static_cast<std::size_t>(dt.itemsize());
  const auto given = dt.attr("name").cast<std::string>();
  if (kind == 'O')
    throw pybind11::type_error(
        "strided: got a NumPy array of dtype object (Python objects, not "
        "numbers); expected " +
        std::string(expected));
  if (!dt.attr("isnative").cast<bool>())
    throw pybind11::type_error(
        "strided: got a NumPy array of dtype " + given + " (" + dt.attr("str").cast<std::string>() +
        ", non-native byte order); expected " + std::string(expected) +
        " in native byte order: call .astype(array.dtype.newbyteorder('='))");
  for (const DTypeInfo& row : dtype_registry) {
    if (row.npy_descr.empty() || row.size != size) continue;
    const char row_kind = row.kind == DTypeKind::boolean      ? 'b'
                          : row.kind == DTypeKind::signed_int ? 'i'
                          : row.kind == DTypeKind::floating   ? 'f'
                                                              : 'u';
    if (row_kind == kind) return row.dtype;
  }
  throw pybind11::type_error("strided: got a NumPy array of dtype " + given +
                             ", which has no strided element type; expected " +
                             std::string(expected));
}

/// What an argument of type `Value` accepts, for messages: "dtype f32" for a Tensor<float>, the
/// dtypes an AnyTensor takes otherwise.
template <class Value>
std::string expected_dtype() {
  if constexpr (std::is_same_v<Value, AnyTensor>) {
    return "bool, integer or floating dtype (bfloat16 through __dlpack__)";
  } else {
    constexpr DType want = dtype_of<typename Value::value_type>;
    return "dtype " + std::string(to_string(want));
  }
}

/// Raises the Python exception an import error stands for.
[[noreturn]] inline void raise_io_error(const IoError& error) {
  const std::string text = "strided: " + error.message();
  if (error.kind() == IoErrorKind::allocation_failed) throw std::bad_alloc();  // MemoryError
  if (error.kind() == IoErrorKind::dtype_mismatch || error.kind() == IoErrorKind::unsupported_dtype)
    throw pybind11::type_error(text);
  throw pybind11::value_error(text);
}

template <class Value>
Result<Value, IoError> import_python_dl(const DLTensor& dl, std::shared_ptr<const void> owner,
                                        const char* op) {
  if constexpr (std::is_same_v<Value, AnyTensor>)
    return import_dltensor_any(dl, std::move(owner), op);
  else
    return import_dltensor<typename Value::value_type>(dl, std::move(owner), op);
}

/// True when `got` fits an argument of type Value; otherwise nothing (convert == false: let
/// pybind11 try the next overload) or a TypeError naming both dtypes.
template <class Value>
bool dtype_fits(DType got, const std::string& what, bool convert) {
  if constexpr (std::is_same_v<Value, AnyTensor>) {
    return true;
  } else {
    constexpr DType want = dtype_of<typename Value::value_type>;
    if (got == want) return true;
    if (!convert) return false;
    throw pybind11::type_error("strided: got " + what + " of dtype " + std::string(to_string(got)) +
                               "; expected " + expected_dtype<Value>());
  }
}

/// A NumPy array as a DLTensor over its memory (shape and strides in `dims`), then the DLPack
/// import with the array itself as the owner.
template <class Value>
std::optional<Value> import_numpy(const pybind11::array& array, bool convert) {
  const DType dtype = dtype_from_numpy(array.dtype(), expected_dtype<Value>().c_str());
  if (!dtype_fits<Value>(dtype, "a NumPy array", convert)) return std::nullopt;
  const DTypeInfo& info = dtype_info(dtype);
  const auto rank = static_cast<std::size_t>(array.ndim());
  std::vector<std::int64_t> dims(2 * rank);
  const auto itemsize = static_cast<std::ptrdiff_t>(info.size);
  for (std::size_t k = 0; k < rank; ++k) {
    const auto stride =
        static_cast<std::ptrdiff_t>(array.strides(static_cast<pybind11::ssize_t>(k)));
    if (stride % itemsize != 0)
      throw pybind11::value_error("strided: got a NumPy array whose axis " + std::to_string(k) +
                                  " has a stride of " + std::to_string(stride) +
                                  " bytes; expected a multiple of the itemsize " +
                                  std::to_string(itemsize) + " (call numpy.ascontiguousarray)");
    dims[k] = static_cast<std::int64_t>(array.shape(static_cast<pybind11::ssize_t>(k)));
    dims[rank + k] = static_cast<std::int64_t>(stride / itemsize);
  }
  DLTensor dl{};
  dl.data = const_cast<void*>(array.data());
  dl.device = DLDevice{kDLCPU, 0};
  dl.ndim = static_cast<int>(rank);
  dl.dtype = DLDataType{info.dlpack_code, info.dlpack_bits, 1};
  dl.shape = dims.data();
  dl.strides = dims.data() + rank;
  std::shared_ptr<const void> owner(new pybind11::object(array), PyObjectRelease{});
  auto imported = import_python_dl<Value>(dl, std::move(owner), "numpy array argument");
  if (!imported) raise_io_error(imported.error());
  return std::move(*imported);
}

/// An object with __dlpack__: its device checked first (__dlpack_device__, before the producer
/// synchronises any stream), then the capsule consumed as torch.from_dlpack does.
template <class Value>
std::optional<Value> import_dlpack_object(pybind11::handle src, bool convert) {
  namespace py = pybind11;
  const std::string what = "a " + py::type::handle_of(src).attr("__name__").cast<std::string>();
  if (py::hasattr(src, "__dlpack_device__")) {
    const auto device = src.attr("__dlpack_device__")().cast<std::pair<int, int>>();
    if (device.first != kDLCPU)
      throw py::value_error("strided: got " + what + " on DLPack device (" +
                            std::to_string(device.first) + ", " + std::to_string(device.second) +
                            "); expected the CPU (1, 0): copy it to the CPU first (.cpu())");
  }
  py::object capsule = src.attr("__dlpack__")();
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
    throw py::type_error("strided: " + what + ".__dlpack__() returned no 'dltensor' capsule");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  const DLDataType code = m->dl_tensor.dtype;
  const auto dtype = code.lanes == 1 ? dtype_from_dlpack(code.code, code.bits) : std::nullopt;
  if (dtype && !dtype_fits<Value>(*dtype, what, convert)) return std::nullopt;  // capsule unused
  // Consumed: the capsule's destructor must no longer call the deleter; the owner does.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  std::shared_ptr<const void> owner(std::shared_ptr<DLManagedTensor>(m, DLPackReleaseWithGil{}));
  auto imported = import_python_dl<Value>(m->dl_tensor, std::move(owner), "__dlpack__ argument");
  if (!imported) raise_io_error(imported.error());
  return std::move(*imported);
}

/// The caster's load: nothing when `src` is no array at all (pybind11 tries the next overload).
template <class Value>
std::optional<Value> load_tensor(pybind11::handle src, bool convert) {
  if (pybind11::isinstance<pybind11::array>(src))
    return import_numpy<Value>(pybind11::reinterpret_borrow<pybind11::array>(src), convert);
  if (pybind11::hasattr(src, "__dlpack__")) return import_dlpack_object<Value>(src, convert);
  return std::nullopt;
}

/// The NumPy dtype of T in native byte order; bf16 (which NumPy lacks) as uint16 bit patterns.
template <BuiltinElement T>
pybind11::dtype numpy_dtype_of() {
  if constexpr (std::is_same_v<T, bf16>) {
    return pybind11::dtype("=u2");
  } else {
    std::string descr(dtype_info(dtype_of<T>).npy_descr);
    if (descr[0] == '<') descr[0] = '=';
    return pybind11::dtype(descr);
  }
}

template <BuiltinElement T>
std::vector<pybind11::ssize_t> numpy_shape(const Tensor<T>& t) {
  return {t.shape().begin(), t.shape().end()};
}

}  // namespace detail

/// A NumPy array sharing `t`'s buffer: same shape, strides (in bytes, negative and zero ones
/// too), read-only (`flags.writeable` is False: tensors are immutable). Its `base` is a capsule
/// holding a reference to the buffer, so the memory lives as long as the array or any view of
/// it. bf16 becomes dtype uint16 holding the bit patterns (NumPy has no bfloat16): view it with
/// ml_dtypes, or hand the tensor over with to_dlpack_capsule instead. Needs the GIL.
template <BuiltinElement T>
pybind11::array to_numpy(const Tensor<T>& t) {
  namespace py = pybind11;
  std::vector<py::ssize_t> strides;
  for (std::ptrdiff_t s : t.strides())
    strides.push_back(static_cast<py::ssize_t>(s) * static_cast<py::ssize_t>(sizeof(T)));
  const T* data = t.storage().get();
  if (data != nullptr && !t.empty()) data += t.offset();
  auto* keep = new std::shared_ptr<const void>(t.storage());
  py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); });
  py::array array(detail::numpy_dtype_of<T>(), detail::numpy_shape(t), std::move(strides), data,
                  base);
  array.attr("setflags")(py::arg("write") = false);
  return array;
}

/// to_numpy of the typed tensor `t` holds.
template <class A = AnyTensor>
pybind11::array to_numpy(const std::type_identity_t<A>& t) {
  return t.visit([](const auto& typed) { return to_numpy(typed); });
}

/// A new, writable, row-major NumPy array with `t`'s values (NumPy owns it). The copy runs with
/// the GIL released, so other Python threads go on meanwhile.
template <BuiltinElement T>
pybind11::array to_numpy_copy(const Tensor<T>& t) {
  namespace py = pybind11;
  py::array array(detail::numpy_dtype_of<T>(), detail::numpy_shape(t));
  std::span<T> out(static_cast<T*>(array.mutable_data()), t.numel());
  Result<void> copied;
  {
    py::gil_scoped_release released;
    copied = t.copy_to(out);
  }
  if (!copied) throw py::value_error("strided: " + copied.error().message());
  return array;
}

/// to_numpy_copy of the typed tensor `t` holds.
template <class A = AnyTensor>
pybind11::array to_numpy_copy(const std::type_identity_t<A>& t) {
  return t.visit([](const auto& typed) { return to_numpy_copy(typed); });
}

/// A DLPack capsule ("dltensor", as __dlpack__ returns) sharing `t`'s buffer, for
/// `torch.from_dlpack(capsule)` (every dtype, bf16 included). The consumer must not write to
/// it. An unconsumed capsule releases the buffer when collected.
template <BuiltinElement T>
pybind11::capsule to_dlpack_capsule(const Tensor<T>& t) {
  DLManagedTensor* m = to_dlpack(t);
  if (m == nullptr) throw std::bad_alloc();
  PyObject* capsule = PyCapsule_New(m, "dltensor", [](PyObject* self) {
    if (!PyCapsule_IsValid(self, "dltensor")) return;  // consumed: the consumer deletes it
    auto* unused = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(self, "dltensor"));
    unused->deleter(unused);
  });
  if (capsule == nullptr) {
    m->deleter(m);
    throw pybind11::error_already_set();
  }
  return pybind11::reinterpret_steal<pybind11::capsule>(capsule);
}

/// to_dlpack_capsule of the typed tensor `t` holds.
template <class A = AnyTensor>
pybind11::capsule to_dlpack_capsule(const std::type_identity_t<A>& t) {
  return t.visit([](const auto& typed) { return to_dlpack_capsule(typed); });
}

namespace detail {

/// The caster shared by Tensor<T> and AnyTensor (neither is default-constructible, hence the
/// optional instead of PYBIND11_TYPE_CASTER).
template <class Value>
class PyTensorCaster {
 public:
  static constexpr auto name = pybind11::detail::const_name("numpy.ndarray");
  template <class U>
  using cast_op_type = pybind11::detail::movable_cast_op_type<U>;

  bool load(pybind11::handle src, bool convert) {
    value_ = load_tensor<Value>(src, convert);
    return value_.has_value();
  }
  static pybind11::handle cast(const Value& t, pybind11::return_value_policy, pybind11::handle) {
    return to_numpy<>(t).release();
  }

  operator Value*() { return &*value_; }
  operator Value&() { return *value_; }
  operator Value&&() && { return std::move(*value_); }

 private:
  std::optional<Value> value_;
};

}  // namespace detail
}  // namespace strided

namespace pybind11::detail {

template <class T>
struct type_caster<strided::Tensor<T>, std::enable_if_t<strided::BuiltinElement<T>>>
    : strided::detail::PyTensorCaster<strided::Tensor<T>> {};

template <>
struct type_caster<strided::AnyTensor> : strided::detail::PyTensorCaster<strided::AnyTensor> {};

}  // namespace pybind11::detail
