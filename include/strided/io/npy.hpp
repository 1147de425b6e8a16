// NumPy .npy files: load_npy<T> / save_npy and their in-memory forms. Format versions 1.0, 2.0
// and 3.0, little-endian, every built-in element type NumPy has (bf16 has no NumPy dtype).
// Fortran-order files load as a zero-copy transposed view. Needs only the standard library.
//
//   parse_npy_header(bytes)         the header alone (strided/io/npy_header.hpp)
//   load_npy<T>(path)               whole file read into one aligned buffer, tensor aliases it
//   load_npy_bytes<T>(bytes)        copies the data out of caller-owned bytes
//   save_npy(path, t [, options])   writes row-major data, version 1.0 unless asked otherwise
//   save_npy_bytes(t [, options])   the same bytes, in memory
//   load_npy_any(path) / load_npy_bytes_any(bytes)   the dtype read from the file: AnyTensor
//   save_npy / save_npy_bytes also take an AnyTensor
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "strided/any_tensor.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/io/file.hpp"
#include "strided/dtype.hpp"
#include "strided/element.hpp"
#include "strided/io/error.hpp"
#include "strided/io/npy_header.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/tensor.hpp"

namespace strided {

/// The .npy descr of `T` (from the dtype registry), or an empty view when NumPy has no such
/// dtype (bf16, user types).
template <class T>
constexpr std::string_view npy_descr() noexcept {
  if constexpr (BuiltinElement<T>)
    return dtype_info(dtype_of<T>).npy_descr;
  else
    return {};
}

/// How save_npy writes. `version` 0 picks 1.0, or 2.0 when the header needs more than 64 KiB.
struct NpySaveOptions {
  int version = 0;  ///< 1, 2 or 3 to force a format version; 0 chooses
};

namespace detail {

// What to do instead, for a type without a NumPy dtype: bf16 (the common case) goes through
// f32 exactly, which NumPy reads; a user type has no general answer.
template <class T>
constexpr const char* npy_advice(bool saving) noexcept {
  if constexpr (std::is_same_v<T, bf16>)
    return saving ? "; save t.cast<float>() (exact) and cast back after loading"
                  : "; load the file as float and cast<bf16>() it";
  else
    return "";
}

/// The tensor of a whole .npy image (npy_image: aliased when `may_alias` and aligned for T).
template <Element T>
Result<Tensor<T>, IoError> npy_tensor(const SharedBytes& file, bool may_alias, const char* op,
                                      const std::string& source) {
  const NpyTarget target{npy_descr<T>(), element_traits<T>::name, npy_advice<T>(false), sizeof(T),
                         alignof(T),     std::is_same_v<T, bool>};
  auto image = npy_image(file, may_alias, target, op, source);
  if (!image) return image.error();
  const auto* elements = reinterpret_cast<const T*>(image->data.get());
  std::shared_ptr<const T> buffer(std::move(image->data), elements);
  auto tensor = Tensor<T>::from_shared(std::move(buffer), image->numel, std::move(image->layout));
  if (!tensor) return IoError::from_shape(tensor.error().in(op), source);
  return std::move(*tensor);
}

template <Element T>
Result<std::vector<std::byte>, IoError> npy_header_for(const Tensor<T>& t, NpySaveOptions options,
                                                       const std::string& source) {
  constexpr std::string_view descr = npy_descr<T>();
  if constexpr (descr.empty()) {
    return IoError(IoErrorKind::unsupported_dtype, "save_npy", source,
                   std::string("element type ") + std::string(element_traits<T>::name) +
                       " has no NumPy dtype" + npy_advice<T>(true));
  } else {
    return make_npy_header(descr, t.shape(), options.version, source);
  }
}

}  // namespace detail

/// Loads a .npy file as a Tensor<T>; T must match the file's dtype exactly (no conversion).
/// The file is read into one 64-byte aligned buffer that the tensor aliases.
template <Element T>
Result<Tensor<T>, IoError> load_npy(const std::string& path) {
  return detail::guard_io("load_npy", path, [&]() -> Result<Tensor<T>, IoError> {
    auto file = detail::read_file(path, "load_npy");
    if (!file) return file.error();
    return detail::npy_tensor<T>(*file, true, "load_npy", path);
  });
}

/// Loads a .npy image held in memory; the data is copied (the caller keeps its bytes).
template <Element T>
Result<Tensor<T>, IoError> load_npy_bytes(std::span<const std::byte> bytes) {
  return detail::guard_io("load_npy_bytes", "<memory>", [&]() -> Result<Tensor<T>, IoError> {
    // A non-owning view: npy_tensor copies because may_alias is false.
    const detail::SharedBytes view{
        std::shared_ptr<const std::byte>(std::shared_ptr<void>(), bytes.data()), bytes.size()};
    return detail::npy_tensor<T>(view, false, "load_npy_bytes", "<memory>");
  });
}

/// The .npy image of `t` (row-major data, C order), in memory.
template <Element T>
Result<std::vector<std::byte>, IoError> save_npy_bytes(const Tensor<T>& t,
                                                       NpySaveOptions options = {}) {
  return detail::guard_io("save_npy_bytes", "<memory>",
                          [&]() -> Result<std::vector<std::byte>, IoError> {
                            auto out = detail::npy_header_for(t, options, "<memory>");
                            if (!out) return out;
                            const HostSlice<T> values = t.host_slice();
                            const auto* p = reinterpret_cast<const std::byte*>(values.data());
                            out->insert(out->end(), p, p + values.size() * sizeof(T));
                            return out;
                          });
}

/// Writes `t` as a .npy file (row-major data, C order), replacing `path`.
template <Element T>
Result<void, IoError> save_npy(const std::string& path, const Tensor<T>& t,
                               NpySaveOptions options = {}) {
  return detail::guard_io("save_npy", path, [&]() -> Result<void, IoError> {
    auto header = detail::npy_header_for(t, options, path);
    if (!header) return header.error();
    const HostSlice<T> values = t.host_slice();
    const std::span<const std::byte> parts[] = {
        std::span<const std::byte>(*header),
        std::as_bytes(std::span<const T>(values.data(), values.size()))};
    return detail::write_file(path, parts, "save_npy");
  });
}

namespace detail {

/// The tensor of a whole .npy image, with the element type the header names.
template <class A = AnyTensor>
Result<A, IoError> npy_any_tensor(const SharedBytes& file, bool may_alias, const char* op,
                                  const std::string& source) {
  auto header = parse_npy_header(file.span(), source);
  if (!header) return header.error();
  // parse_npy_header accepts exactly the descrs the registry knows.
  const DType dtype = dtype_from_npy(header->dtype.kind, header->dtype.size).value();
  return visit_dtype(dtype, [&]<class T>(std::type_identity<T>) -> Result<A, IoError> {
    return detail::lift_any(npy_tensor<T>(file, may_alias, op, source));
  });
}

}  // namespace detail

/// Loads a .npy file whose dtype is not known in advance: an AnyTensor of the dtype the file
/// names (aliasing one aligned buffer, as load_npy).
template <class A = AnyTensor>
Result<A, IoError> load_npy_any(const std::string& path) {
  return detail::guard_io("load_npy_any", path, [&]() -> Result<A, IoError> {
    auto file = detail::read_file(path, "load_npy_any");
    if (!file) return file.error();
    return detail::npy_any_tensor<A>(*file, true, "load_npy_any", path);
  });
}

/// load_npy_any of an image held in memory; the data is copied.
template <class A = AnyTensor>
Result<A, IoError> load_npy_bytes_any(std::span<const std::byte> bytes) {
  return detail::guard_io("load_npy_bytes_any", "<memory>", [&]() -> Result<A, IoError> {
    const detail::SharedBytes view{
        std::shared_ptr<const std::byte>(std::shared_ptr<void>(), bytes.data()), bytes.size()};
    return detail::npy_any_tensor<A>(view, false, "load_npy_bytes_any", "<memory>");
  });
}

/// save_npy_bytes of the typed tensor `t` holds (bf16 is unsupported_dtype: NumPy lacks it).
template <class A = AnyTensor>
Result<std::vector<std::byte>, IoError> save_npy_bytes(const std::type_identity_t<A>& t,
                                                       NpySaveOptions options = {}) {
  return t.visit([&](const auto& typed) { return save_npy_bytes(typed, options); });
}

/// save_npy of the typed tensor `t` holds.
template <class A = AnyTensor>
Result<void, IoError> save_npy(const std::string& path, const std::type_identity_t<A>& t,
                               NpySaveOptions options = {}) {
  return t.visit([&](const auto& typed) { return save_npy(path, typed, options); });
}

}  // namespace strided
