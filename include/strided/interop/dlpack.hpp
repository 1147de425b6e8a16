// DLPack: zero-copy exchange with PyTorch, NumPy, JAX, CuPy, ONNX Runtime ... (needs
// <dlpack/dlpack.h>, Debian `libdlpack-dev`).
//
//   to_dlpack(t)                      -> DLManagedTensor*, owns a reference to t's buffer
//   from_dlpack<T>(m)                 -> Result<Tensor<T>, IoError>, zero-copy, consumes m
//   from_dlpack_any(m)                -> Result<AnyTensor, IoError>, the dtype read from m
//   to_dlpack_versioned(t) / from_dlpack_versioned<T>(m) / from_dlpack_versioned_any(m)
//                                     the DLPack >= 1.0 forms, defined only when the included
//                                     dlpack.h declares DLManagedTensorVersioned
//                                     (STRIDED_DLPACK_HAS_VERSIONED == 1)
//
// What an import checks, and what it cannot: see from_dlpack. Element codes: bool is kDLBool
// (code 6, DLPack >= 0.8), f16 is kDLFloat/16 and bf16 kDLBfloat/16.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "strided/any_tensor.hpp"
#include "strided/dtype.hpp"
#include "strided/element.hpp"
#include "strided/half.hpp"
#include "strided/io/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/tensor.hpp"

#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1
#define STRIDED_DLPACK_HAS_VERSIONED 1
#else
#define STRIDED_DLPACK_HAS_VERSIONED 0
#endif

namespace strided {

/// DLPack's type code for bool (kDLBool, added in DLPack 0.8; older headers lack the name).
inline constexpr std::uint8_t dlpack_bool_code = dtype_info(DType::bool_).dlpack_code;

/// The DLDataType of `T` (from the dtype registry), or nullopt for types DLPack cannot name (user
/// element types).
template <class T>
constexpr std::optional<DLDataType> dlpack_dtype() noexcept {
  if constexpr (BuiltinElement<T>) {
    const DTypeInfo& info = dtype_info(dtype_of<T>);
    return DLDataType{info.dlpack_code, info.dlpack_bits, 1};
  } else {
    return std::nullopt;
  }
}

namespace detail {

inline std::string dlpack_dtype_string(DLDataType d) {
  // By name ("f32") when the code and bits are a strided element type: the reader knows dtypes,
  // not DLPack's type codes. The codes stay for what strided has no name for; vector lanes are a
  // suffix (f32x4). Appended piece by piece: GCC 12 warns (-Wrestrict) on the chained form.
  std::string out;
  if (const auto dtype = dtype_from_dlpack(d.code, d.bits)) {
    out += to_string(*dtype);
  } else {
    out += "{code ";
    out += std::to_string(d.code);
    out += ", bits ";
    out += std::to_string(d.bits);
    out += '}';
  }
  if (d.lanes != 1) {
    out += 'x';
    out += std::to_string(d.lanes);
  }
  return out;
}

/// What an exported DLManagedTensor(Versioned) owns: a reference to the buffer and the int64
/// shape and strides arrays. Freed by the deleter, exactly once.
template <class Managed, class T>
struct DLPackExport {
  std::shared_ptr<const T> keep;
  std::unique_ptr<std::int64_t[]> dims;
  Managed managed{};

  static void deleter(Managed* self) noexcept {
    delete static_cast<DLPackExport*>(self->manager_ctx);
  }
};

/// Fills `out` for `t`; nullptr when allocation fails or a size does not fit int64_t (only a
/// broadcast axis of 2^63 elements can).
template <class Managed, Element T>
Managed* make_dlpack(const Tensor<T>& t) noexcept {
  constexpr auto dtype = dlpack_dtype<T>();
  static_assert(dtype.has_value(), "this element type has no DLPack dtype");
  for (std::size_t size : t.shape())
    if (size > static_cast<std::size_t>(INT64_MAX)) return nullptr;
  using Export = DLPackExport<Managed, T>;
  std::unique_ptr<Export> ctx(new (std::nothrow) Export);
  if (ctx == nullptr) return nullptr;
  const std::size_t rank = t.rank();
  ctx->dims.reset(new (std::nothrow) std::int64_t[rank == 0 ? 1 : 2 * rank]);
  if (ctx->dims == nullptr) return nullptr;
  for (std::size_t k = 0; k < rank; ++k) {
    ctx->dims[k] = static_cast<std::int64_t>(t.shape()[k]);
    ctx->dims[rank + k] = static_cast<std::int64_t>(t.strides()[k]);
  }
  ctx->keep = t.storage();
  // The view's offset is folded into `data` (byte_offset stays 0): consumers differ in how they
  // treat byte_offset, none in how they treat data. An empty view may have an offset past the
  // buffer end, so it points at the buffer itself; a null buffer gets a harmless non-null address
  // because some consumers read data == NULL as "allocate".
  static const T dummy{};
  const T* data = t.storage().get();
  if (!t.empty()) data += t.offset();
  if (data == nullptr) data = &dummy;
  DLTensor& dl = ctx->managed.dl_tensor;
  dl.data = const_cast<T*>(data);  // DLPack has no const; see the read-only note on to_dlpack
  dl.device = DLDevice{kDLCPU, 0};
  dl.ndim = static_cast<int>(rank);
  dl.dtype = *dtype;
  dl.shape = ctx->dims.get();
  dl.strides = ctx->dims.get() + rank;
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = &Export::deleter;
  return &ctx.release()->managed;
}

/// Calls the producer's deleter when the last tensor sharing the import dies.
template <class Managed>
struct CallDLPackDeleter {
  void operator()(Managed* m) const noexcept {
    if (m->deleter != nullptr) m->deleter(m);
  }
};

/// The shared import path. `owner` already owns the producer's tensor: every return path,
/// error or not, leaves the deleter to `owner` and the tensors made from it.
template <Element T>
Result<Tensor<T>, IoError> import_dltensor(const DLTensor& dl, std::shared_ptr<const void> owner,
                                           const char* op) {
  const std::string source = "<dlpack>";
  auto error = [&](IoErrorKind kind, const std::string& what) {
    return IoError(kind, op, source, what);
  };
  constexpr auto want = dlpack_dtype<T>();
  static_assert(want.has_value(), "this element type has no DLPack dtype");
  if (dl.device.device_type != kDLCPU)
    return error(IoErrorKind::unsupported_device,
                 "device type " + std::to_string(static_cast<int>(dl.device.device_type)) +
                     " is not kDLCPU (1); copy the tensor to the CPU first");
  if (dl.dtype.lanes != 1)
    return error(IoErrorKind::unsupported_dtype, "dtype " + dlpack_dtype_string(dl.dtype) +
                                                     " has " + std::to_string(dl.dtype.lanes) +
                                                     " lanes; only 1 is supported");
  if (dl.dtype.code != want->code || dl.dtype.bits != want->bits)
    return error(IoErrorKind::dtype_mismatch, "dtype " + dlpack_dtype_string(dl.dtype) +
                                                  " is not " +
                                                  std::string(element_traits<T>::name));
  if (dl.ndim < 0 || static_cast<std::size_t>(dl.ndim) > max_rank)
    return error(IoErrorKind::invalid_argument,
                 "ndim " + std::to_string(dl.ndim) + " is outside [0, 64]");
  const auto rank = static_cast<std::size_t>(dl.ndim);
  if (rank > 0 && dl.shape == nullptr)
    return error(IoErrorKind::invalid_argument, "shape is NULL with ndim " + std::to_string(rank));
  Shape shape(rank, 0);
  for (std::size_t k = 0; k < rank; ++k) {
    if (dl.shape[k] < 0)
      return error(IoErrorKind::invalid_argument, "shape[" + std::to_string(k) + "] = " +
                                                      std::to_string(dl.shape[k]) + " is negative");
    shape[k] = static_cast<std::size_t>(dl.shape[k]);
  }
  Strides strides(rank, 0);
  if (dl.strides == nullptr) {  // compact row-major
    auto row_major = row_major_strides(shape);
    if (!row_major) return IoError::from_shape(ShapeError::size_overflow(op, shape), source);
    strides = std::move(*row_major);
  } else {
    for (std::size_t k = 0; k < rank; ++k) strides[k] = static_cast<std::ptrdiff_t>(dl.strides[k]);
  }
  // Rebase so that the lowest element the view reaches is storage index 0 (negative strides
  // reach below `data`), then check that every index and byte count fits.
  auto probe = Layout::from_parts(shape, strides, 0, op);
  if (!probe) return IoError::from_shape(std::move(probe).error().in(op), source);
  const bool empty = probe->empty();
  const Reach reach = empty ? Reach{} : probe->reach();
  constexpr auto limit = static_cast<std::size_t>(max_index);
  // reach.low >= -max_index and reach.high <= max_index (checked_reach); their distance may not.
  const auto below = static_cast<std::size_t>(0) - static_cast<std::size_t>(reach.low);
  const auto above = static_cast<std::size_t>(reach.high);
  std::size_t bytes = 0;
  if (below > limit || above > limit - below ||
      __builtin_mul_overflow(below + above + 1, sizeof(T), &bytes) || bytes > limit)
    return IoError::from_shape(ShapeError::size_overflow(op, shape), source);
  const std::size_t len = empty ? 0 : below + above + 1;
  auto layout = Layout::from_parts(std::move(shape), std::move(strides), below, op);
  if (!layout) return IoError::from_shape(std::move(layout).error().in(op), source);

  const T* first = nullptr;
  if (!empty) {
    if (dl.data == nullptr)
      return error(IoErrorKind::invalid_argument, "data is NULL for a tensor with elements");
    const auto address = reinterpret_cast<std::uintptr_t>(dl.data);
    if (dl.byte_offset > UINTPTR_MAX - address)
      return error(IoErrorKind::invalid_argument,
                   "byte_offset " + std::to_string(dl.byte_offset) + " overflows the address");
    const std::uintptr_t start = address + static_cast<std::uintptr_t>(dl.byte_offset);
    if (start % alignof(T) != 0)
      return error(IoErrorKind::invalid_argument,
                   "data + byte_offset (" + std::to_string(dl.byte_offset) +
                       ") is not aligned for " + std::string(element_traits<T>::name));
    if (below * sizeof(T) > start)
      return error(IoErrorKind::invalid_argument, "negative strides reach below address 0");
    first = reinterpret_cast<const T*>(start - below * sizeof(T));
  }
  std::shared_ptr<const T> data(std::move(owner), first);  // aliasing: owns the producer's tensor
  auto tensor = Tensor<T>::from_shared(std::move(data), len, std::move(*layout));
  if (!tensor) return IoError::from_shape(std::move(tensor).error().in(op), source);
  return std::move(*tensor);
}

/// The import with the element type read from the tensor's dtype.
template <class A = AnyTensor>
Result<A, IoError> import_dltensor_any(const DLTensor& dl, std::shared_ptr<const void> owner,
                                       const char* op) {
  const auto dtype = dl.dtype.lanes == 1 ? dtype_from_dlpack(dl.dtype.code, dl.dtype.bits)
                                         : std::optional<DType>();
  if (!dtype)
    return IoError(IoErrorKind::unsupported_dtype, op, "<dlpack>",
                   "dtype " + dlpack_dtype_string(dl.dtype) + " is no strided element type");
  return visit_dtype(*dtype, [&]<class T>(std::type_identity<T>) -> Result<A, IoError> {
    return detail::lift_any(import_dltensor<T>(dl, std::move(owner), op));
  });
}

template <class Managed>
Result<std::shared_ptr<const void>, IoError> adopt_dlpack(Managed* m, const char* op) {
  if (m == nullptr) return IoError(IoErrorKind::invalid_argument, op, "<dlpack>", "null pointer");
#if defined(__cpp_exceptions)
  try {
    return std::shared_ptr<const void>(std::shared_ptr<Managed>(m, CallDLPackDeleter<Managed>{}));
  } catch (const std::bad_alloc&) {  // shared_ptr already called the deleter
    return IoError::from_shape(ShapeError::out_of_memory(op), "<dlpack>");
  }
#else
  return std::shared_ptr<const void>(std::shared_ptr<Managed>(m, CallDLPackDeleter<Managed>{}));
#endif
}

}  // namespace detail

/// Exports `t` without copying: the returned tensor's `data` points at element [0, ..., 0] (the
/// view offset folded in, byte_offset 0), with int64 shape and strides (in elements, never
/// NULL; negative and zero strides as in t). It holds a reference to t's buffer until the
/// consumer calls its deleter, which must happen exactly once. The memory is shared and strided
/// tensors are immutable: consumers must not write to it (DLPack < 1.0 cannot say so; use
/// to_dlpack_versioned where available, which sets DLPACK_FLAG_BITMASK_READ_ONLY).
/// Returns nullptr only when memory is exhausted or an axis exceeds INT64_MAX elements.
template <Element T>
DLManagedTensor* to_dlpack(const Tensor<T>& t) noexcept {
  return detail::make_dlpack<DLManagedTensor>(t);
}

/// Imports a DLPack tensor without copying, taking ownership of `m` in every case: on success
/// the producer's deleter runs when the last tensor sharing the memory is destroyed; on error
/// it runs before this returns. (`m == nullptr` is an invalid_argument error.)
///
/// Checked: device kDLCPU (unsupported_device); dtype code and bits equal to T's and lanes == 1
/// (dtype_mismatch / unsupported_dtype); 0 <= ndim <= 64, non-negative sizes, a non-NULL shape
/// and data when there are elements, data + byte_offset aligned for T (invalid_argument); NULL
/// strides mean compact row-major; element counts, strides, offsets and byte sizes that
/// overflow (kind shape, wrapping size_overflow). Negative strides are supported.
///
/// Not checkable: how large the producer's buffer is. DLPack carries no length, so the import
/// computes the reach of the shape and strides from data + byte_offset and trusts the producer
/// that those bytes exist for as long as the deleter has not run.
template <Element T>
Result<Tensor<T>, IoError> from_dlpack(DLManagedTensor* m) {
  return detail::guard_io("from_dlpack", "<dlpack>", [&]() -> Result<Tensor<T>, IoError> {
    auto owner = detail::adopt_dlpack(m, "from_dlpack");
    if (!owner) return owner.error();
    return detail::import_dltensor<T>(m->dl_tensor, std::move(*owner), "from_dlpack");
  });
}

/// to_dlpack of the typed tensor `t` holds.
template <class A = AnyTensor>
DLManagedTensor* to_dlpack(const std::type_identity_t<A>& t) noexcept {
  return t.visit([](const auto& typed) { return to_dlpack(typed); });
}

/// from_dlpack with the element type read from the producer's dtype: an AnyTensor of any
/// built-in type. A dtype strided cannot hold (complex, lanes != 1, ...) is unsupported_dtype;
/// everything else as from_dlpack (ownership of `m` is taken in every case).
template <class A = AnyTensor>
Result<A, IoError> from_dlpack_any(DLManagedTensor* m) {
  return detail::guard_io("from_dlpack_any", "<dlpack>", [&]() -> Result<A, IoError> {
    auto owner = detail::adopt_dlpack(m, "from_dlpack_any");
    if (!owner) return owner.error();
    return detail::import_dltensor_any<A>(m->dl_tensor, std::move(*owner), "from_dlpack_any");
  });
}

#if STRIDED_DLPACK_HAS_VERSIONED
/// As to_dlpack, in the DLPack >= 1.0 form: version = this header's DLPACK_MAJOR/MINOR_VERSION
/// and flags = DLPACK_FLAG_BITMASK_READ_ONLY (strided tensors are immutable).
template <Element T>
DLManagedTensorVersioned* to_dlpack_versioned(const Tensor<T>& t) noexcept {
  DLManagedTensorVersioned* m = detail::make_dlpack<DLManagedTensorVersioned>(t);
  if (m != nullptr) {
    m->version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    m->flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  }
  return m;
}

namespace detail {

/// adopt_dlpack, then the version check: a different major version is unsupported_version (the
/// deleter has been taken over and runs either way).
inline Result<std::shared_ptr<const void>, IoError> adopt_dlpack_versioned(
    DLManagedTensorVersioned* m, const char* op) {
  auto owner = adopt_dlpack(m, op);
  if (!owner) return owner.error();
  if (m->version.major != DLPACK_MAJOR_VERSION)
    return IoError(IoErrorKind::unsupported_version, op, "<dlpack>",
                   "DLPack major version " + std::to_string(m->version.major) + ", expected " +
                       std::to_string(DLPACK_MAJOR_VERSION));
  return owner;
}

}  // namespace detail

/// As from_dlpack, for DLPack >= 1.0 tensors. A different major version is
/// unsupported_version (the struct layout may differ; its deleter is still called). The
/// read-only and is-copied flags need nothing: strided never writes.
template <Element T>
Result<Tensor<T>, IoError> from_dlpack_versioned(DLManagedTensorVersioned* m) {
  return detail::guard_io("from_dlpack_versioned", "<dlpack>", [&]() -> Result<Tensor<T>, IoError> {
    const char* op = "from_dlpack_versioned";
    auto owner = detail::adopt_dlpack_versioned(m, op);
    if (!owner) return owner.error();
    return detail::import_dltensor<T>(m->dl_tensor, std::move(*owner), op);
  });
}

/// to_dlpack_versioned of the typed tensor `t` holds.
template <class A = AnyTensor>
DLManagedTensorVersioned* to_dlpack_versioned(const std::type_identity_t<A>& t) noexcept {
  return t.visit([](const auto& typed) { return to_dlpack_versioned(typed); });
}

/// from_dlpack_versioned with the element type read from the producer's dtype.
template <class A = AnyTensor>
Result<A, IoError> from_dlpack_versioned_any(DLManagedTensorVersioned* m) {
  return detail::guard_io("from_dlpack_versioned_any", "<dlpack>", [&]() -> Result<A, IoError> {
    const char* op = "from_dlpack_versioned_any";
    auto owner = detail::adopt_dlpack_versioned(m, op);
    if (!owner) return owner.error();
    return detail::import_dltensor_any<A>(m->dl_tensor, std::move(*owner), op);
  });
}
#endif

}  // namespace strided
