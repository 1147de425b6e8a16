// The .npy header: magic, version, and the Python-literal dictionary
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } — parsed strictly, written the way
// NumPy writes it (padded with spaces to a multiple of 64 bytes, ending in '\n').
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "strided/detail/io/file.hpp"
#include "strided/dtype.hpp"
#include "strided/io/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"

namespace strided {

/// The element type a .npy `descr` names: NumPy's kind character ('b' bool, 'i' signed,
/// 'u' unsigned, 'f' IEEE float) and the item size in bytes.
struct NpyDtype {
  char kind = 0;         ///< 'b', 'i', 'u' or 'f'
  std::size_t size = 0;  ///< bytes per element
  /// Same kind and size.
  friend bool operator==(const NpyDtype&, const NpyDtype&) = default;
};

/// Everything the header of a .npy file says.
struct NpyHeader {
  int major = 1;                ///< format version: 1, 2 or 3
  int minor = 0;                ///< always 0
  std::string descr;            ///< as written, e.g. "<f4"
  NpyDtype dtype;               ///< descr decoded (little-endian or byte-order-free types only)
  bool fortran_order = false;   ///< column-major data (loads as a transposed view)
  Shape shape;                  ///< the array's shape
  std::size_t data_offset = 0;  ///< bytes from the start of the file to the first element
  std::size_t data_bytes = 0;   ///< numel x item size
};

/// The largest header this reader accepts (NumPy's own reader stops at 10 000 bytes by default;
/// ours is generous but keeps a hostile 4 GiB header length from being trusted).
inline constexpr std::size_t npy_max_header_size = std::size_t{1} << 20;

namespace detail {

inline constexpr std::string_view npy_magic = "\x93NUMPY";

/// A tokenizer-parser for the header dictionary: exactly the Python literal subset NumPy writes
/// (strings, True/False, tuples of non-negative integers), with a position for error messages.

}  // namespace detail

/// Decodes a descr: '<' (little), '=' (native, which is little here) or '|' (no byte order,
/// 1-byte types); kinds b1, i1/2/4/8, u1/2/4/8, f2/4/8. Big-endian ('>', '!') multi-byte types
/// and everything else (complex, strings, structured, datetime, object) are unsupported_dtype.
STRIDED_FUNC Result<NpyDtype, IoError> parse_npy_descr(std::string_view descr,
                                                       const std::string& source = "<memory>");

/// Parses and validates the header at the start of `bytes` (a whole file or a prefix of one):
/// magic, version (1.0, 2.0, 3.0), header length (<= npy_max_header_size and inside `bytes`),
/// the dictionary, the descr, and that numel x item size fits. It does not check that the data
/// is all there (load_npy does). This is the fuzzing entry point of the .npy reader.
STRIDED_FUNC Result<NpyHeader, IoError> parse_npy_header(std::span<const std::byte> bytes,
                                                         const std::string& source = "<memory>");

namespace detail {

/// The header text NumPy writes for this dtype/shape, padded so that the data starts at a
/// multiple of 64 bytes, preceded by the preamble of `major` (0 = 1.0 when it fits, else 2.0).
STRIDED_FUNC Result<std::vector<std::byte>, IoError> make_npy_header(std::string_view descr,
                                                                     const Shape& shape, int major,
                                                                     const std::string& source);

/// What reading a .npy image as elements of one type needs to know of that type.
struct NpyTarget {
  std::string_view descr;   ///< the type's descr ("<f4"); empty: NumPy has no such dtype
  std::string_view name;    ///< the type's name in messages (element_traits<T>::name)
  std::string_view advice;  ///< appended to the message when NumPy has no such dtype
  std::size_t size = 0;     ///< bytes per element
  std::size_t align = 0;    ///< the alignment the data needs
  bool is_bool = false;     ///< every byte must be 0 or 1
};

/// The data of a .npy image, checked for a target type.
struct NpyImage {
  std::shared_ptr<const std::byte> data;  ///< aligned for the target type
  std::size_t numel = 0;
  Layout layout;  ///< row-major, or the transposed view of a Fortran-order file
};

/// The data of the whole .npy image `file` read as elements of `target`: its header parsed, the
/// dtype and the data's size checked; aliases `file` when `may_alias` and the data is aligned,
/// else copies it into a fresh aligned buffer. Typed load_npy forms wrap it in a Tensor.
STRIDED_FUNC Result<NpyImage, IoError> npy_image(const SharedBytes& file, bool may_alias,
                                                 const NpyTarget& target, const char* op,
                                                 const std::string& source);

}  // namespace detail

}  // namespace strided

#if STRIDED_HEADER_ONLY
#include "strided/io/npy_header-inl.hpp"
#endif
