// The non-template half of the safetensors reader and writer (declared in safetensors.hpp): the
// header's parser and validation and the string escaping, the only code that needs
// nlohmann/json.hpp, then opening a file, an entry's checks and the writers. Included by
// safetensors.hpp, or compiled into libstrided (STRIDED_COMPILED_SAFETENSORS).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strided/detail/io/json_tree.hpp"
#include "strided/io/safetensors.hpp"

namespace strided {

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

STRIDED_SAFETENSORS_FUNC Result<SafetensorsHeader, IoError> parse_safetensors_header(
    std::span<const std::byte> file, const std::string& source) {
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

namespace detail {

STRIDED_SAFETENSORS_FUNC std::string json_string(const std::string& s, bool& valid) {
  using Handler = nlohmann::json::error_handler_t;
  const nlohmann::json j(s);  // a scalar: its destructor allocates nothing
  std::string text = j.dump(-1, ' ', false, Handler::replace);
  if (text != j.dump(-1, ' ', false, Handler::ignore)) valid = false;
  return text;
}

STRIDED_SAFETENSORS_FUNC Result<std::vector<std::byte>, IoError> safetensors_prefix(
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

STRIDED_SAFETENSORS_FUNC Result<SafetensorsFile, IoError> SafetensorsFile::open(
    const std::string& path) {
  return detail::guard_io("SafetensorsFile::open", path, [&]() -> Result<SafetensorsFile, IoError> {
    auto bytes = detail::map_file(path, "SafetensorsFile::open");
    if (!bytes) return bytes.error();
    return make(std::move(*bytes), path);
  });
}

STRIDED_SAFETENSORS_FUNC Result<SafetensorsFile, IoError> SafetensorsFile::from_bytes(
    std::span<const std::byte> bytes) {
  return detail::guard_io(
      "SafetensorsFile::from_bytes", "<memory>", [&]() -> Result<SafetensorsFile, IoError> {
        auto copy = detail::copy_bytes(bytes, "SafetensorsFile::from_bytes", "<memory>");
        if (!copy) return copy.error();
        return make(std::move(*copy), "<memory>");
      });
}

namespace detail {

STRIDED_SAFETENSORS_FUNC Result<SafetensorsImage, IoError> safetensors_entry_image(
    const SharedBytes& bytes, std::size_t data_offset, const std::string& source,
    std::string_view name, const SafetensorsInfo* info, const SafetensorsTarget& target) {
  const char* op = "SafetensorsFile::get";
  if (info == nullptr)
    return IoError(IoErrorKind::not_found, op, source,
                   "no tensor named \"" + std::string(name) + "\"");
  if (target.dtype.empty())
    return IoError(
        IoErrorKind::unsupported_dtype, op, source,
        "element type " + std::string(target.element_name) + " has no safetensors dtype");
  if (info->dtype != target.dtype)
    return IoError(
        IoErrorKind::dtype_mismatch, op, source,
        "tensor \"" + info->name + "\" is " + info->dtype + ", not " + std::string(target.dtype));
  const std::byte* data = bytes.data.get() + data_offset + info->begin;
  const std::size_t size = info->end - info->begin;
  if (target.is_bool && !valid_bool_bytes({data, size}))
    return IoError(IoErrorKind::invalid_value, op, source,
                   "tensor \"" + info->name + "\" has a BOOL byte that is neither 0 nor 1");
  const std::size_t numel = size / target.size;
  std::shared_ptr<const std::byte> elements;
  if (reinterpret_cast<std::uintptr_t>(data) % target.align == 0) {
    elements = std::shared_ptr<const std::byte>(bytes.data, data);
  } else {
    std::shared_ptr<std::byte> fresh = try_allocate_buffer<std::byte>(size);
    if (fresh == nullptr)
      return IoError::from_shape(ShapeError::allocation_failed(op, numel), source);
    if (size != 0) std::memcpy(fresh.get(), data, size);
    elements = std::move(fresh);
  }
  auto layout = Layout::contiguous(info->shape);
  if (!layout) return IoError::from_shape(layout.error().in(op), source);
  return SafetensorsImage{std::move(elements), numel, std::move(*layout)};
}

}  // namespace detail

STRIDED_SAFETENSORS_FUNC Result<std::vector<std::byte>, IoError> save_safetensors_bytes(
    const std::vector<SafetensorsEntry>& tensors,
    const std::map<std::string, std::string>& metadata) {
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

STRIDED_SAFETENSORS_FUNC Result<void, IoError> save_safetensors(
    const std::string& path, const std::vector<SafetensorsEntry>& tensors,
    const std::map<std::string, std::string>& metadata) {
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
