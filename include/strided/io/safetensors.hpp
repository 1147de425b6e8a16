// safetensors files (https://github.com/huggingface/safetensors): memory-mapped, zero-copy reads
// and a writer. Needs nlohmann/json.hpp (Debian `nlohmann-json3-dev`), only in this header.
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
#include <nlohmann/json.hpp>
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
#include "strided/detail/io/json_tree.hpp"
#include "strided/dtype.hpp"
#include "strided/element.hpp"
#include "strided/io/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/tensor.hpp"

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

namespace detail {

class SafetensorsParser {
 public:
  explicit SafetensorsParser(const std::string& source) : source_(source) {}

  IoError fail(IoErrorKind kind, const std::string& what) const {
    return IoError(kind, "parse_safetensors_header", source_, what);
  }

  /// Parses the JSON (into a tree that is safe to destroy when memory runs out), rejecting
  /// duplicate keys (nlohmann would keep the last silently).
  Result<JsonNode, IoError> parse_json(std::string_view text) const {
    if (text.empty() || text.front() != '{')
      return fail(IoErrorKind::malformed_header, "the header does not start with '{'");
    JsonParse parsed = parse_json_tree(text);
    switch (parsed.status) {
      case JsonParse::Status::syntax_error:
        return fail(IoErrorKind::malformed_header, "the header is not JSON");
      case JsonParse::Status::too_deep:
        return fail(
            IoErrorKind::malformed_header,
            "the header nests deeper than " + std::to_string(JsonNode::max_depth) + " levels");
      case JsonParse::Status::duplicate_key:
        return fail(IoErrorKind::malformed_header,
                    "key \"" + parsed.duplicate + "\" appears twice");
      case JsonParse::Status::ok:
        break;
    }
    if (!parsed.root.is_object())
      return fail(IoErrorKind::malformed_header, "the header is not a JSON object");
    return std::move(parsed.root);
  }

  Result<std::size_t, IoError> unsigned_at(const JsonNode& j, const std::string& what) const {
    if (!j.is_number_unsigned())
      return fail(IoErrorKind::malformed_header,
                  what + " is " + j.dump() + ", not a non-negative integer");
    return static_cast<std::size_t>(j.unsigned_value());
  }

  Result<SafetensorsInfo, IoError> entry(const std::string& name, const JsonNode& j) const {
    const std::string where = "tensor \"" + name + "\"";
    if (!j.is_object()) return fail(IoErrorKind::malformed_header, where + " is not an object");
    for (const auto& [key, value] : j.fields())
      if (key != "dtype" && key != "shape" && key != "data_offsets")
        return fail(IoErrorKind::malformed_header, where + " has an unknown field \"" + key + "\"");
    const JsonNode* dtype = j.find("dtype");
    const JsonNode* shape = j.find("shape");
    const JsonNode* offsets = j.find("data_offsets");
    if (dtype == nullptr || shape == nullptr || offsets == nullptr)
      return fail(IoErrorKind::malformed_header,
                  where + " needs the fields \"dtype\", \"shape\" and \"data_offsets\"");
    if (!dtype->is_string())
      return fail(IoErrorKind::malformed_header, where + ": \"dtype\" is not a string");
    SafetensorsInfo info;
    info.name = name;
    info.dtype = dtype->string();
    if (safetensors_dtype_size(info.dtype) == 0)
      return fail(IoErrorKind::unsupported_dtype, where + ": unknown dtype \"" + info.dtype + "\"");
    if (!shape->is_array())
      return fail(IoErrorKind::malformed_header, where + ": \"shape\" is not an array");
    if (shape->items().size() > max_rank)
      return IoError::from_shape(
          ShapeError::rank_too_large("parse_safetensors_header", shape->items().size()), source_);
    for (const JsonNode& size : shape->items()) {
      auto v = unsigned_at(size, where + ": a \"shape\" entry");
      if (!v) return v.error();
      info.shape.push_back(*v);
    }
    if (!offsets->is_array() || offsets->items().size() != 2)
      return fail(IoErrorKind::malformed_header,
                  where + ": \"data_offsets\" is not an array of two integers");
    auto begin = unsigned_at(offsets->items()[0], where + ": data_offsets[0]");
    if (!begin) return begin.error();
    auto end = unsigned_at(offsets->items()[1], where + ": data_offsets[1]");
    if (!end) return end.error();
    info.begin = *begin;
    info.end = *end;
    return info;
  }

  Result<void, IoError> metadata(const JsonNode& j, std::map<std::string, std::string>& out) const {
    if (!j.is_object())
      return fail(IoErrorKind::malformed_header, "\"__metadata__\" is not an object");
    for (const auto& [key, value] : j.fields()) {
      if (!value.is_string())
        return fail(IoErrorKind::malformed_header,
                    "metadata \"" + key + "\" is " + value.dump() + ", not a string");
      out.emplace(key, value.string());
    }
    return {};
  }

  /// The data section must be covered exactly, in offset order: no hole, no overlap, each entry
  /// numel x element size long, the last one ending at the end of the file.
  Result<void, IoError> check_offsets(std::vector<SafetensorsInfo>& tensors,
                                      std::size_t data_len) const {
    std::sort(tensors.begin(), tensors.end(), [](const auto& a, const auto& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    std::size_t expected = 0;
    for (const SafetensorsInfo& t : tensors) {
      const std::string where = "tensor \"" + t.name + "\" ";
      if (t.end < t.begin)
        return fail(IoErrorKind::invalid_offsets, where + "ends (" + std::to_string(t.end) +
                                                      ") before it begins (" +
                                                      std::to_string(t.begin) + ")");
      if (t.begin != expected)
        return fail(IoErrorKind::invalid_offsets,
                    where + "begins at " + std::to_string(t.begin) + ", expected " +
                        std::to_string(expected) +
                        (t.begin > expected ? " (a hole)" : " (an overlap)"));
      const auto numel = checked_numel(t.shape);
      std::size_t bytes = 0;
      if (!numel || __builtin_mul_overflow(*numel, safetensors_dtype_size(t.dtype), &bytes))
        return IoError::from_shape(ShapeError::size_overflow("parse_safetensors_header", t.shape),
                                   source_);
      if (t.end - t.begin != bytes)
        return fail(IoErrorKind::size_mismatch, where + "has " + std::to_string(t.end - t.begin) +
                                                    " bytes; shape " + dims_string(t.shape) +
                                                    " of " + t.dtype + " needs " +
                                                    std::to_string(bytes));
      expected = t.end;
    }
    if (expected != data_len)
      return fail(IoErrorKind::size_mismatch, "the tensors cover " + std::to_string(expected) +
                                                  " bytes, the data section has " +
                                                  std::to_string(data_len));
    return {};
  }

 private:
  const std::string& source_;
};

}  // namespace detail

/// Parses and fully validates a whole safetensors file image: size prefix, header size limit
/// (safetensors_max_header_size), the header inside the file, JSON syntax (no duplicate keys),
/// every field's type, known dtypes, rank <= 64, sizes = numel x element size, offsets in order
/// without holes or overlaps, and the data section ending exactly at the end of the file. This
/// is the fuzzing entry point of the safetensors reader.
inline Result<SafetensorsHeader, IoError> parse_safetensors_header(
    std::span<const std::byte> file, const std::string& source = "<memory>") {
  return detail::guard_io(
      "parse_safetensors_header", source, [&]() -> Result<SafetensorsHeader, IoError> {
        detail::SafetensorsParser parser(source);
        if (file.size() < 8)
          return parser.fail(
              IoErrorKind::truncated,
              std::to_string(file.size()) + " bytes, shorter than the 8-byte size prefix");
        // A size prefix that cannot be right usually means another kind of file: say so first.
        if (std::memcmp(file.data(), "\x93NUMPY", 6) == 0)
          return parser.fail(IoErrorKind::bad_magic,
                             "not a safetensors file: it starts with the .npy magic \\x93NUMPY "
                             "(read it with strided::load_npy)");
        const std::uint64_t n = detail::load_le<8>(file.data());
        if (n > safetensors_max_header_size)
          return parser.fail(IoErrorKind::header_too_large,
                             "not a safetensors file (or a damaged one): its 8-byte size prefix "
                             "announces a header of " +
                                 std::to_string(n) + " bytes, above the limit " +
                                 std::to_string(safetensors_max_header_size));
        if (n > file.size() - 8)
          return parser.fail(IoErrorKind::truncated,
                             "not a safetensors file (or a truncated one): its 8-byte size prefix "
                             "announces a header of " +
                                 std::to_string(n) + " bytes but only " +
                                 std::to_string(file.size() - 8) + " bytes follow");
        const std::string_view text(reinterpret_cast<const char*>(file.data() + 8),
                                    static_cast<std::size_t>(n));
        auto json = parser.parse_json(text);
        if (!json) return json.error();
        SafetensorsHeader header;
        header.data_offset = 8 + static_cast<std::size_t>(n);
        for (const auto& [key, value] : json->fields()) {
          if (key == "__metadata__") {
            if (auto ok = parser.metadata(value, header.metadata); !ok) return ok.error();
            continue;
          }
          auto info = parser.entry(key, value);
          if (!info) return info.error();
          header.tensors.push_back(std::move(*info));
        }
        if (auto ok = parser.check_offsets(header.tensors, file.size() - header.data_offset); !ok)
          return ok.error();
        return header;
      });
}

/// An open safetensors file (or image): its validated header and the bytes, shared with every
/// tensor get() returns. Copies share the mapping.
class SafetensorsFile {
 public:
  /// Maps `path` read-only and validates it.
  static Result<SafetensorsFile, IoError> open(const std::string& path) {
    return detail::guard_io("SafetensorsFile::open", path,
                            [&]() -> Result<SafetensorsFile, IoError> {
                              auto bytes = detail::map_file(path, "SafetensorsFile::open");
                              if (!bytes) return bytes.error();
                              return make(std::move(*bytes), path);
                            });
  }

  /// Validates an image held in memory; the bytes are copied into an aligned buffer.
  static Result<SafetensorsFile, IoError> from_bytes(std::span<const std::byte> bytes) {
    return detail::guard_io(
        "SafetensorsFile::from_bytes", "<memory>", [&]() -> Result<SafetensorsFile, IoError> {
          auto copy = detail::copy_bytes(bytes, "SafetensorsFile::from_bytes", "<memory>");
          if (!copy) return copy.error();
          return make(std::move(*copy), "<memory>");
        });
  }

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
      const char* op = "SafetensorsFile::get";
      const SafetensorsInfo* info = find(name);
      if (info == nullptr)
        return IoError(IoErrorKind::not_found, op, source_,
                       "no tensor named \"" + std::string(name) + "\"");
      constexpr std::string_view want = safetensors_dtype<T>();
      if (want.empty())
        return IoError(IoErrorKind::unsupported_dtype, op, source_,
                       std::string("element type ") + std::string(element_traits<T>::name) +
                           " has no safetensors dtype");
      if (info->dtype != want)
        return IoError(
            IoErrorKind::dtype_mismatch, op, source_,
            "tensor \"" + info->name + "\" is " + info->dtype + ", not " + std::string(want));
      const std::byte* data = bytes_.data.get() + header_.data_offset + info->begin;
      const std::size_t size = info->end - info->begin;
      if constexpr (std::is_same_v<T, bool>) {
        if (!detail::valid_bool_bytes({data, size}))
          return IoError(IoErrorKind::invalid_value, op, source_,
                         "tensor \"" + info->name + "\" has a BOOL byte that is neither 0 nor 1");
      }
      const std::size_t numel = size / sizeof(T);
      std::shared_ptr<const T> buffer;
      if (reinterpret_cast<std::uintptr_t>(data) % alignof(T) == 0) {
        buffer = std::shared_ptr<const T>(bytes_.data, reinterpret_cast<const T*>(data));
      } else {
        std::shared_ptr<T> fresh = detail::try_allocate_buffer<T>(numel);
        if (fresh == nullptr)
          return IoError::from_shape(ShapeError::allocation_failed(op, numel), source_);
        if (size != 0) std::memcpy(fresh.get(), data, size);
        buffer = std::move(fresh);
      }
      auto layout = Layout::contiguous(info->shape);
      if (!layout) return IoError::from_shape(layout.error().in(op), source_);
      auto tensor = Tensor<T>::from_shared(std::move(buffer), numel, std::move(*layout));
      if (!tensor) return IoError::from_shape(tensor.error(), op, source_);
      return std::move(*tensor);
    });
  }

  /// The tensor `name` as an AnyTensor of the dtype the header names (zero-copy as get<T>).
  /// Errors: not_found; unsupported_dtype for a dtype strided cannot hold (F8_E5M2, F8_E4M3);
  /// invalid_value (bool bytes).
  template <class A = AnyTensor>
  Result<A, IoError> get_any(std::string_view name) const {
    const SafetensorsInfo* info = find(name);
    if (info == nullptr)
      return IoError(IoErrorKind::not_found, "SafetensorsFile::get_any", source_,
                     "no tensor named \"" + std::string(name) + "\"");
    return entry_any<A>(*info);
  }

  /// Every tensor of the file, in data order, as (name, AnyTensor) pairs sharing the mapping;
  /// the first entry that cannot be read stops it (as get_any).
  template <class A = AnyTensor>
  Result<std::vector<std::pair<std::string, A>>, IoError> all() const {
    std::vector<std::pair<std::string, A>> out;
    for (const SafetensorsInfo& info : header_.tensors) {
      auto t = entry_any<A>(info);
      if (!t) return t.error();
      out.emplace_back(info.name, std::move(*t));
    }
    return out;
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
inline std::string json_string(const std::string& s, bool& valid) {
  using Handler = nlohmann::json::error_handler_t;
  const nlohmann::json j(s);  // a scalar: its destructor allocates nothing
  std::string text = j.dump(-1, ' ', false, Handler::replace);
  if (text != j.dump(-1, ' ', false, Handler::ignore)) valid = false;
  return text;
}

/// Appends `[3,4]`: a shape as a compact JSON array.
inline void append_json_dims(std::string& out, const Shape& shape) {
  append_list(out, shape.span(), {.separator = ","});
}

/// The padded header (size prefix included) and the entries in data order: larger elements
/// first, then by name, so that every tensor is aligned for its type when the data section is.
inline Result<std::vector<std::byte>, IoError> safetensors_prefix(
    const std::vector<SafetensorsEntry>& entries, const std::map<std::string, std::string>& meta,
    std::vector<const SafetensorsEntry*>& order, const std::string& source) {
  const char* op = "save_safetensors";
  for (const SafetensorsEntry& e : entries) order.push_back(&e);
  std::sort(order.begin(), order.end(), [](const SafetensorsEntry* a, const SafetensorsEntry* b) {
    const std::size_t sa = safetensors_dtype_size(a->dtype()),
                      sb = safetensors_dtype_size(b->dtype());
    return sa != sb ? sa > sb : a->name() < b->name();
  });
  // Written by hand rather than through a nlohmann::json tree, whose destructor allocates.
  bool valid_utf8 = true;
  std::string text = "{";
  if (!meta.empty()) {
    text += "\"__metadata__\":{";
    for (const auto& [key, value] : meta) {
      if (text.back() != '{') text += ',';
      text += json_string(key, valid_utf8);
      text += ':';
      text += json_string(value, valid_utf8);
    }
    text += '}';
  }
  std::set<std::string_view> names;
  std::size_t offset = 0;
  for (const SafetensorsEntry* entry : order) {
    const SafetensorsEntry& e = *entry;
    if (e.name() == "__metadata__" || !names.insert(e.name()).second)
      return IoError(IoErrorKind::invalid_argument, op, source,
                     "tensor name \"" + e.name() + "\" is reserved or appears twice");
    if (text.size() > 1) text += ',';
    text += json_string(e.name(), valid_utf8);
    text += ":{\"dtype\":\"";
    text += e.dtype();
    text += "\",\"shape\":";
    append_json_dims(text, e.shape());
    text += ",\"data_offsets\":[";
    text += std::to_string(offset);
    text += ',';
    text += std::to_string(offset + e.bytes().size());
    text += "]}";
    offset += e.bytes().size();
  }
  text += '}';
  if (!valid_utf8)
    return IoError(IoErrorKind::invalid_argument, op, source,
                   "a tensor name or metadata string is not valid UTF-8");
  text.append((8 - text.size() % 8) % 8, ' ');  // the data section starts 8-byte aligned
  std::vector<std::byte> out;
  out.reserve(8 + text.size());
  store_le<8>(out, text.size());
  for (char c : text) out.push_back(static_cast<std::byte>(c));
  return out;
}

}  // namespace detail

/// The safetensors image of `tensors` (names unique, not "__metadata__") and `metadata`.
inline Result<std::vector<std::byte>, IoError> save_safetensors_bytes(
    const std::vector<SafetensorsEntry>& tensors,
    const std::map<std::string, std::string>& metadata = {}) {
  return detail::guard_io(
      "save_safetensors_bytes", "<memory>", [&]() -> Result<std::vector<std::byte>, IoError> {
        std::vector<const SafetensorsEntry*> order;
        auto out = detail::safetensors_prefix(tensors, metadata, order, "<memory>");
        if (!out) return out;
        for (const SafetensorsEntry* e : order)
          out->insert(out->end(), e->bytes().begin(), e->bytes().end());
        return out;
      });
}

/// Writes `tensors` and `metadata` as a safetensors file at `path` (replacing it). The header is
/// space-padded to a multiple of 8 bytes and tensors are ordered by element size, so every
/// tensor of the written file is aligned for its type in a mapping.
inline Result<void, IoError> save_safetensors(
    const std::string& path, const std::vector<SafetensorsEntry>& tensors,
    const std::map<std::string, std::string>& metadata = {}) {
  return detail::guard_io("save_safetensors", path, [&]() -> Result<void, IoError> {
    std::vector<const SafetensorsEntry*> order;
    auto prefix = detail::safetensors_prefix(tensors, metadata, order, path);
    if (!prefix) return prefix.error();
    std::vector<std::span<const std::byte>> parts{std::span<const std::byte>(*prefix)};
    for (const SafetensorsEntry* e : order) parts.push_back(e->bytes());
    return detail::write_file(path, parts, "save_safetensors");
  });
}

}  // namespace strided
