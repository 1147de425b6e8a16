// The .npy header's parser and writer (declared in npy_header.hpp). Included by npy_header.hpp in
// header-only mode, compiled into libstrided otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "strided/detail/buffer.hpp"
#include "strided/io/npy_header.hpp"
#include "strided/shape_error.hpp"

namespace strided {

namespace detail {

class NpyDictParser {
 public:
  NpyDictParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  Result<NpyHeader, IoError> parse() {
    NpyHeader h;
    bool have_descr = false, have_order = false, have_shape = false;
    if (!eat('{')) return fail("expected '{'");
    while (true) {
      skip_space();
      if (eat('}')) break;
      std::string key;
      if (!string(key)) return fail("expected a quoted key or '}'");
      if (!eat(':')) return fail("expected ':' after '" + key + "'");
      bool* seen = nullptr;
      if (key == "descr") {
        seen = &have_descr;
        if (!string(h.descr))
          return fail(
              "'descr' must be a string (structured dtypes are not "
              "supported)");
      } else if (key == "fortran_order") {
        seen = &have_order;
        if (!boolean(h.fortran_order)) return fail("'fortran_order' must be True or False");
      } else if (key == "shape") {
        seen = &have_shape;
        if (auto r = tuple(h.shape); !r) return r.error();
      } else {
        return fail("unknown key '" + key + "'");
      }
      if (*seen) return fail("key '" + key + "' appears twice");
      *seen = true;
      skip_space();
      if (eat('}')) break;
      if (!eat(',')) return fail("expected ',' or '}'");
    }
    skip_space();
    if (pos_ != text_.size()) return fail("unexpected text after '}'");
    if (!have_descr || !have_order || !have_shape)
      return fail("the header needs the keys 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  IoError fail(const std::string& what) const {
    return IoError(IoErrorKind::malformed_header, "parse_npy_header", source_,
                   what + " at header byte " + std::to_string(pos_));
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool string(std::string& out) {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return false;
    const char quote = text_[pos_];
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return false;
    const std::string_view body = text_.substr(pos_ + 1, end - pos_ - 1);
    if (body.find('\\') != std::string_view::npos) return false;  // NumPy never escapes
    out.assign(body);
    pos_ = end + 1;
    return true;
  }
  bool word(std::string_view w) {
    skip_space();
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  bool boolean(bool& out) {
    if (word("True")) {
      out = true;
      return true;
    }
    if (word("False")) {
      out = false;
      return true;
    }
    return false;
  }
  Result<void, IoError> tuple(Shape& out) {
    if (!eat('(')) return fail("'shape' must be a tuple");
    while (true) {
      skip_space();
      if (eat(')')) break;
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
        return fail("expected a non-negative integer in 'shape'");
      std::uint64_t v = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        const auto digit = static_cast<std::uint64_t>(text_[pos_] - '0');
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, digit, &v))
          return fail("a 'shape' entry does not fit 64 bits");
        ++pos_;
      }
      if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 long suffix
      if (out.size() == max_rank) return fail("'shape' has more than 64 entries");
      out.push_back(static_cast<std::size_t>(v));
      skip_space();
      if (eat(')')) break;
      if (!eat(',')) return fail("expected ',' or ')' in 'shape'");
    }
    return {};
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

}  // namespace detail

STRIDED_FUNC Result<NpyDtype, IoError> parse_npy_descr(std::string_view descr,
                                                       const std::string& source) {
  auto bad = [&](const std::string& why) {
    return IoError(IoErrorKind::unsupported_dtype, "parse_npy_descr", source,
                   "descr '" + std::string(descr) + "': " + why);
  };
  if (descr.size() < 3 || descr.size() > 4) return bad("not a supported NumPy type");
  const char order = descr[0], kind = descr[1];
  std::size_t size = 0;
  for (char c : descr.substr(2)) {
    if (c < '0' || c > '9') return bad("not a supported NumPy type");
    size = size * 10 + static_cast<std::size_t>(c - '0');
  }
  if (!dtype_from_npy(kind, size)) return bad("not a supported NumPy type");
  if (size > 1 && (order == '>' || order == '!'))
    return bad(
        "big-endian data is not supported (convert with arr.astype(arr.dtype.newbyteorder('<')))");
  if (size > 1 && order == '|') return bad("a multi-byte type needs a byte order");
  if (order != '<' && order != '=' && order != '|' && order != '>' && order != '!')
    return bad("unknown byte-order character");
  return NpyDtype{kind, size};
}

STRIDED_FUNC Result<NpyHeader, IoError> parse_npy_header(std::span<const std::byte> bytes,
                                                         const std::string& source) {
  return detail::guard_io("parse_npy_header", source, [&]() -> Result<NpyHeader, IoError> {
    const char* op = "parse_npy_header";
    if (bytes.size() < 10)
      return IoError(
          IoErrorKind::truncated, op, source,
          "only " + std::to_string(bytes.size()) + " bytes, shorter than a .npy preamble");
    if (std::string_view(reinterpret_cast<const char*>(bytes.data()), 6) != detail::npy_magic)
      return IoError(IoErrorKind::bad_magic, op, source, "does not start with \"\\x93NUMPY\"");
    const int major = std::to_integer<int>(bytes[6]), minor = std::to_integer<int>(bytes[7]);
    if (major < 1 || major > 3 || minor != 0)
      return IoError(IoErrorKind::unsupported_version, op, source,
                     "format version " + std::to_string(major) + "." + std::to_string(minor) +
                         " (supported: 1.0, 2.0, 3.0)");
    const std::size_t preamble = major == 1 ? 10 : 12;
    if (bytes.size() < preamble)
      return IoError(IoErrorKind::truncated, op, source, "the preamble is cut short");
    const std::uint64_t header_len =
        major == 1 ? detail::load_le<2>(bytes.data() + 8) : detail::load_le<4>(bytes.data() + 8);
    if (header_len > npy_max_header_size)
      return IoError(IoErrorKind::header_too_large, op, source,
                     "header length " + std::to_string(header_len) + " exceeds the limit " +
                         std::to_string(npy_max_header_size));
    if (bytes.size() - preamble < header_len)
      return IoError(IoErrorKind::truncated, op, source,
                     "header length " + std::to_string(header_len) + " but only " +
                         std::to_string(bytes.size() - preamble) + " bytes follow the preamble");
    const std::string_view text(reinterpret_cast<const char*>(bytes.data() + preamble),
                                static_cast<std::size_t>(header_len));
    auto header = detail::NpyDictParser(text, source).parse();
    if (!header) return header;
    header->major = major;
    header->minor = minor;
    header->data_offset = preamble + static_cast<std::size_t>(header_len);
    auto dtype = parse_npy_descr(header->descr, source);
    if (!dtype) return dtype.error();
    header->dtype = *dtype;
    const auto numel = detail::checked_numel(header->shape);
    if (!numel || __builtin_mul_overflow(*numel, dtype->size, &header->data_bytes) ||
        header->data_bytes > static_cast<std::size_t>(detail::max_index))
      return IoError::from_shape(ShapeError::size_overflow(op, header->shape), source);
    return header;
  });
}

namespace detail {

STRIDED_FUNC Result<std::vector<std::byte>, IoError> make_npy_header(std::string_view descr,
                                                                     const Shape& shape, int major,
                                                                     const std::string& source) {
  std::string dict = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (";
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (k != 0) dict += ", ";
    dict += std::to_string(shape[k]);
  }
  dict += shape.size() == 1 ? ",), }" : "), }";
  auto padded = [&](std::size_t preamble) {
    const std::size_t unpadded = preamble + dict.size() + 1;  // + '\n'
    return (unpadded + 63) / 64 * 64 - preamble;
  };
  if (major == 0) major = padded(10) <= 0xFFFF ? 1 : 2;
  if (major < 1 || major > 3)
    return IoError(IoErrorKind::unsupported_version, "save_npy", source,
                   "format version " + std::to_string(major) + ".0 (supported: 1, 2, 3)");
  const std::size_t preamble = major == 1 ? 10 : 12;
  const std::size_t len = padded(preamble);
  if (major == 1 && len > 0xFFFF)
    return IoError(IoErrorKind::header_too_large, "save_npy", source,
                   "the header needs " + std::to_string(len) + " bytes; version 1.0 holds 65535");
  std::vector<std::byte> out;
  out.reserve(preamble + len);
  for (char c : npy_magic) out.push_back(static_cast<std::byte>(c));
  out.push_back(static_cast<std::byte>(major));
  out.push_back(std::byte{0});
  if (major == 1)
    store_le<2>(out, len);
  else
    store_le<4>(out, len);
  for (char c : dict) out.push_back(static_cast<std::byte>(c));
  while (out.size() < preamble + len - 1) out.push_back(static_cast<std::byte>(' '));
  out.push_back(static_cast<std::byte>('\n'));
  return out;
}

namespace npy_impl {

/// The check of the header's dtype against the target's (NumPy's kind character and size).
inline Result<void, IoError> check_dtype(const NpyHeader& h, const NpyTarget& target,
                                         const char* op, const std::string& source) {
  if (target.descr.empty())
    return IoError(IoErrorKind::unsupported_dtype, op, source,
                   "element type " + std::string(target.name) + " has no NumPy dtype" +
                       std::string(target.advice));
  const NpyDtype expected{target.descr[1], target.size};
  if (h.dtype != expected)
    return IoError(IoErrorKind::dtype_mismatch, op, source,
                   "the file holds descr '" + h.descr + "', not " + std::string(target.name) +
                       " ('" + std::string(target.descr) + "')");
  return {};
}

/// The layout of the data: row-major, or for Fortran order the reversed shape laid out
/// row-major and then permuted back (a zero-copy transposed view).
inline Result<Layout> layout_of(const NpyHeader& h) {
  if (!h.fortran_order) return Layout::contiguous(h.shape, 0);
  const std::size_t rank = h.shape.size();
  Shape reversed(rank, 0), perm(rank, 0);
  for (std::size_t k = 0; k < rank; ++k) {
    reversed[k] = h.shape[rank - 1 - k];
    perm[k] = rank - 1 - k;
  }
  auto layout = Layout::contiguous(reversed, 0);
  if (!layout) return layout;
  return layout->permute(perm);
}

}  // namespace npy_impl

STRIDED_FUNC Result<NpyImage, IoError> npy_image(const SharedBytes& file, bool may_alias,
                                                 const NpyTarget& target, const char* op,
                                                 const std::string& source) {
  auto header = parse_npy_header(file.span(), source);
  if (!header) return header.error();
  if (auto ok = npy_impl::check_dtype(*header, target, op, source); !ok) return ok.error();
  const std::size_t available = file.size - header->data_offset;
  if (available < header->data_bytes)
    return IoError(IoErrorKind::truncated, op, source,
                   "shape " + dims_string(header->shape) + " of '" + header->descr + "' needs " +
                       std::to_string(header->data_bytes) + " data bytes, the file has " +
                       std::to_string(available));
  if (available > header->data_bytes)
    return IoError(IoErrorKind::size_mismatch, op, source,
                   std::to_string(available - header->data_bytes) +
                       " bytes follow the data of shape " + dims_string(header->shape));
  const std::byte* data = file.data.get() + header->data_offset;
  if (target.is_bool && !valid_bool_bytes({data, header->data_bytes}))
    return IoError(IoErrorKind::invalid_value, op, source, "a bool byte is neither 0 nor 1");
  NpyImage image;
  image.numel = header->data_bytes / target.size;
  if (may_alias && reinterpret_cast<std::uintptr_t>(data) % target.align == 0) {
    image.data = std::shared_ptr<const std::byte>(file.data, data);
  } else {
    // try_allocate_buffer aligns every buffer to at least buffer_alignment, more than any
    // element type needs.
    std::shared_ptr<std::byte> fresh = try_allocate_buffer<std::byte>(header->data_bytes);
    if (fresh == nullptr)
      return IoError::from_shape(ShapeError::allocation_failed(op, image.numel), source);
    if (header->data_bytes != 0) std::memcpy(fresh.get(), data, header->data_bytes);
    image.data = std::move(fresh);
  }
  auto layout = npy_impl::layout_of(*header);
  if (!layout) return IoError::from_shape(layout.error().in(op), source);
  image.layout = std::move(*layout);
  return image;
}

}  // namespace detail

}  // namespace strided
