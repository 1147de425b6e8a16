// safetensors files (https://github.com/huggingface/safetensors): memory-mapped, zero-copy reads
// and a writer. Parsing the JSON header needs nlohmann/json.hpp (Debian `nlohmann-json3-dev`), in
// safetensors-inl.hpp only: with strided::compiled built where nlohmann was found, not at all.
//
// File layout: an 8-byte little-endian header size N, N bytes of JSON
//   {"__metadata__": {"k": "v"}, "name": {"dtype": "F32", "shape": [3, 4],
//                                        "data_offsets": [begin, end]}, ...}
// (padded with spaces), then the data section; offsets are relative to the data section.
//
//   parse_safetensors_header(bytes)      validate a whole file image (the fuzzing entry point)
//   SafetensorsFile::open(path)          mmap + validate; list names, dtypes, shapes, metadata
//   file.get<T>(name)                    zero-copy tensor keeping the mapping alive
//   file.get_any(name) / file.all()      the same with the dtype read from the header (AnyTensor)
//   save_safetensors(path, {{"w", w}, ...}, metadata) / save_safetensors_bytes(...)
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "strided/any_tensor.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/io/file.hpp"
#include "strided/dtype.hpp"
#include "strided/element.hpp"
#include "strided/io/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/tensor.hpp"

// libstrided holds the JSON half when it was built with nlohmann_json (it then defines
// STRIDED_COMPILED_SAFETENSORS); otherwise every translation unit compiles it.
#if defined(STRIDED_COMPILED_SAFETENSORS)
#define STRIDED_SAFETENSORS_FUNC
#else
#define STRIDED_SAFETENSORS_FUNC inline
#endif

namespace strided {

/// The largest JSON header accepted: the limit of the reference (Rust) implementation.
inline constexpr std::size_t safetensors_max_header_size = 100'000'000;

/// The safetensors dtype of `T` ("F32", "BOOL", ... from the dtype registry), or empty for
/// types the format lacks.
template <class T>
constexpr std::string_view safetensors_dtype() noexcept {
  if constexpr (BuiltinElement<T>)
    return dtype_info(dtype_of<T>).safetensors;
  else
    return {};
}

/// Bytes per element of a safetensors dtype name, 0 when unknown. The 8-bit float types are
/// known (and can be inspected) though no strided element type reads them.
inline std::size_t safetensors_dtype_size(std::string_view dtype) noexcept {
  if (auto d = dtype_from_safetensors(dtype)) return dtype_size(*d);
  for (const ForeignDType& f : safetensors_foreign_dtypes)
    if (f.safetensors == dtype) return f.size;
  return 0;
}

/// One tensor entry of a header.
struct SafetensorsInfo {
  std::string name;       ///< the tensor's key in the header
  std::string dtype;      ///< e.g. "F32"
  Shape shape;            ///< the tensor's shape
  std::size_t begin = 0;  ///< byte offsets into the data section, [begin, end)
  std::size_t end = 0;    ///< end of the tensor's bytes (exclusive)
};

/// A validated header: the entries in data order, the metadata, where the data starts.
struct SafetensorsHeader {
  std::vector<SafetensorsInfo> tensors;         ///< the entries, in data order
  std::map<std::string, std::string> metadata;  ///< the "__metadata__" strings
  std::size_t data_offset = 0;                  ///< 8 + N: file offset of the data section
};

/// Parses and fully validates a whole safetensors file image: size prefix, header size limit
/// (safetensors_max_header_size), the header inside the file, JSON syntax (no duplicate keys),
/// every field's type, known dtypes, rank <= 64, sizes = numel x element size, offsets in order
/// without holes or overlaps, and the data section ending exactly at the end of the file. This
/// is the fuzzing entry point of the safetensors reader.
STRIDED_SAFETENSORS_FUNC Result<SafetensorsHeader, IoError> parse_safetensors_header(
    std::span<const std::byte> file, const std::string& source = "<memory>");

namespace detail {

/// What SafetensorsFile::get<T> asks of an entry: T's safetensors dtype (empty when the format
/// has none), T's name for messages, its size and alignment, and whether its bytes must be 0 or 1.
struct SafetensorsTarget {
  std::string_view dtype;
  std::string_view element_name;
  std::size_t size = 0;
  std::size_t align = 0;
  bool is_bool = false;
};

/// An entry's elements: aligned for the target (the mapping itself, or a copy), their count and
/// their row-major layout. get<T> wraps them in a Tensor<T>.
struct SafetensorsImage {
  std::shared_ptr<const std::byte> data;
  std::size_t numel = 0;
  Layout layout;
};

/// SafetensorsFile::get<T>'s checks and bytes, the part that does not depend on T: `info`, the
/// entry `name` (null when the file has none: not_found), read as elements of `target` from
/// `bytes`, whose data section starts at `data_offset`; `source` names the file in errors.
STRIDED_SAFETENSORS_FUNC Result<SafetensorsImage, IoError> safetensors_entry_image(
    const SharedBytes& bytes, std::size_t data_offset, const std::string& source,
    std::string_view name, const SafetensorsInfo* info, const SafetensorsTarget& target);

}  // namespace detail

/// An open safetensors file (or image): its validated header and the bytes, shared with every
/// tensor get() returns. Copies share the mapping.
class SafetensorsFile {
 public:
  /// Maps `path` read-only and validates it.
  STRIDED_SAFETENSORS_FUNC static Result<SafetensorsFile, IoError> open(const std::string& path);

  /// Validates an image held in memory; the bytes are copied into an aligned buffer.
  STRIDED_SAFETENSORS_FUNC static Result<SafetensorsFile, IoError> from_bytes(
      std::span<const std::byte> bytes);

  /// Tensor names in data order.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const SafetensorsInfo& t : header_.tensors) out.push_back(t.name);
    return out;
  }
  /// Every entry (name, dtype, shape, offsets) in data order.
  const std::vector<SafetensorsInfo>& tensors() const noexcept { return header_.tensors; }
  /// The "__metadata__" key-value strings.
  const std::map<std::string, std::string>& metadata() const noexcept { return header_.metadata; }
  /// The entry named `name`, or nullptr.
  const SafetensorsInfo* find(std::string_view name) const noexcept {
    for (const SafetensorsInfo& t : header_.tensors)
      if (t.name == name) return &t;
    return nullptr;
  }
  /// The path given to open(), or "<memory>".
  const std::string& source() const noexcept { return source_; }

  /// The tensor `name` as a row-major Tensor<T>; T must match its dtype exactly. Zero-copy (the
  /// tensor keeps the mapping alive) unless the data is not aligned for T, then copied.
  /// Errors: not_found, dtype_mismatch / unsupported_dtype, invalid_value (bool bytes).
  template <Element T>
  Result<Tensor<T>, IoError> get(std::string_view name) const {
    return detail::guard_io("SafetensorsFile::get", source_, [&]() -> Result<Tensor<T>, IoError> {
      const detail::SafetensorsTarget target{safetensors_dtype<T>(), element_traits<T>::name,
                                             sizeof(T), alignof(T), std::is_same_v<T, bool>};
      auto image = detail::safetensors_entry_image(bytes_, header_.data_offset, source_, name,
                                                   find(name), target);
      if (!image) return image.error();
      const auto* elements = reinterpret_cast<const T*>(image->data.get());
      std::shared_ptr<const T> buffer(std::move(image->data), elements);
      auto tensor =
          Tensor<T>::from_shared(std::move(buffer), image->numel, std::move(image->layout));
      if (!tensor)
        return IoError::from_shape(std::move(tensor).error().in("SafetensorsFile::get"), source_);
      return std::move(*tensor);
    });
  }

  /// The tensor `name` as an AnyTensor of the dtype the header names (zero-copy as get<T>).
  /// Errors: not_found; unsupported_dtype for a dtype strided cannot hold (F8_E5M2, F8_E4M3);
  /// invalid_value (bool bytes).
  template <class A = AnyTensor>
  Result<A, IoError> get_any(std::string_view name) const {
    return detail::guard_io("SafetensorsFile::get_any", source_, [&]() -> Result<A, IoError> {
      const SafetensorsInfo* info = find(name);
      if (info == nullptr)
        return IoError(IoErrorKind::not_found, "SafetensorsFile::get_any", source_,
                       "no tensor named \"" + std::string(name) + "\"");
      return entry_any<A>(*info);
    });
  }

  /// Every tensor of the file, in data order, as (name, AnyTensor) pairs sharing the mapping;
  /// the first entry that cannot be read stops it (as get_any).
  template <class A = AnyTensor>
  Result<std::vector<std::pair<std::string, A>>, IoError> all() const {
    using Out = std::vector<std::pair<std::string, A>>;
    return detail::guard_io("SafetensorsFile::all", source_, [&]() -> Result<Out, IoError> {
      Out out;
      for (const SafetensorsInfo& info : header_.tensors) {
        auto t = entry_any<A>(info);
        if (!t) return t.error();
        out.emplace_back(info.name, std::move(*t));
      }
      return out;
    });
  }

 private:
  SafetensorsFile(detail::SharedBytes bytes, SafetensorsHeader header, std::string source)
      : bytes_(std::move(bytes)), header_(std::move(header)), source_(std::move(source)) {}

  template <class A = AnyTensor>
  Result<A, IoError> entry_any(const SafetensorsInfo& info) const {
    const auto dtype = dtype_from_safetensors(info.dtype);
    if (!dtype)
      return IoError(IoErrorKind::unsupported_dtype, "SafetensorsFile::get_any", source_,
                     "tensor \"" + info.name + "\" is " + info.dtype +
                         ", which no strided element type holds");
    return visit_dtype(*dtype, [&]<class T>(std::type_identity<T>) -> Result<A, IoError> {
      return detail::lift_any(get<T>(info.name));
    });
  }

  static Result<SafetensorsFile, IoError> make(detail::SharedBytes bytes, std::string source) {
    auto header = parse_safetensors_header(bytes.span(), source);
    if (!header) return header.error();
    return SafetensorsFile(std::move(bytes), std::move(*header), std::move(source));
  }

  detail::SharedBytes bytes_;
  SafetensorsHeader header_;
  std::string source_;
};

/// One tensor to write: its name, dtype and row-major bytes (a view is materialised once; a
/// contiguous tensor's buffer is shared, not copied).
class SafetensorsEntry {
 public:
  /// `t` under `name`; T must have a safetensors dtype (checked at compile time).
  template <Element T>
  SafetensorsEntry(std::string name, const Tensor<T>& t)
      : name_(std::move(name)), dtype_(safetensors_dtype<T>()), shape_(t.shape()) {
    static_assert(!safetensors_dtype<T>().empty(), "this element type has no safetensors dtype");
    Tensor<T> dense = t.contiguous();  // std::bad_alloc if a view cannot be materialised
    const auto values = dense.as_slice().value();
    bytes_ = std::as_bytes(values);
    keep_ = dense.storage();
  }

  /// `t` under `name`, whatever its dtype (every DType has a safetensors name).
  template <class A = AnyTensor>
  SafetensorsEntry(std::string name, const std::type_identity_t<A>& t)
      : SafetensorsEntry(
            t.visit([&](const auto& typed) { return SafetensorsEntry(name, typed); })) {}

  /// @name What is written
  ///@{

  /// The entry's name (dtype(): e.g. "F32"; shape(); bytes(): the row-major data).
  const std::string& name() const noexcept { return name_; }
  std::string_view dtype() const noexcept { return dtype_; }
  const Shape& shape() const noexcept { return shape_; }
  std::span<const std::byte> bytes() const noexcept { return bytes_; }
  ///@}

 private:
  std::string name_;
  std::string_view dtype_;
  Shape shape_;
  std::span<const std::byte> bytes_;
  std::shared_ptr<const void> keep_;
};

namespace detail {

/// `s` as a JSON string literal; clears `valid` when `s` is not valid UTF-8.
STRIDED_SAFETENSORS_FUNC std::string json_string(const std::string& s, bool& valid);

/// Appends `[3,4]`: a shape as a compact JSON array.
inline void append_json_dims(std::string& out, const Shape& shape) {
  append_list(out, shape.span(), {.separator = ","});
}

/// The padded header (size prefix included) and the entries in data order: larger elements
/// first, then by name, so that every tensor is aligned for its type when the data section is.
STRIDED_SAFETENSORS_FUNC Result<std::vector<std::byte>, IoError> safetensors_prefix(
    const std::vector<SafetensorsEntry>& entries, const std::map<std::string, std::string>& meta,
    std::vector<const SafetensorsEntry*>& order, const std::string& source);

}  // namespace detail

/// The safetensors image of `tensors` (names unique, not "__metadata__") and `metadata`.
STRIDED_SAFETENSORS_FUNC Result<std::vector<std::byte>, IoError> save_safetensors_bytes(
    const std::vector<SafetensorsEntry>& tensors,
    const std::map<std::string, std::string>& metadata = {});

/// Writes `tensors` and `metadata` as a safetensors file at `path` (replacing it). The header is
/// space-padded to a multiple of 8 bytes and tensors are ordered by element size, so every
/// tensor of the written file is aligned for its type in a mapping.
STRIDED_SAFETENSORS_FUNC Result<void, IoError> save_safetensors(
    const std::string& path, const std::vector<SafetensorsEntry>& tensors,
    const std::map<std::string, std::string>& metadata = {});

}  // namespace strided

#if !defined(STRIDED_COMPILED_SAFETENSORS)
#include "strided/io/safetensors-inl.hpp"
#endif
