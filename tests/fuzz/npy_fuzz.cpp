// Fuzz target 2: arbitrary bytes as a .npy image. parse_npy_header either rejects them with an
// IoError or returns a header whose fields are consistent with the bytes; load_npy_bytes<T> for
// the element type the header names either rejects them or returns a tensor whose every element
// is the value stored at its C- or Fortran-order position in the data; the tensor saves back to
// bytes that load to an equal tensor. Any other element type is dtype_mismatch.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "fuzz_support.hpp"
#include "strided/io/npy.hpp"

namespace {

using strided::IoErrorKind;
using strided::NpyHeader;
using strided::Shape;
using strided::Tensor;

#define CHECK STRIDED_FUZZ_CHECK

/// Position of multi-index `idx` in C (row-major) or Fortran (column-major) order.
std::size_t position(const Shape& shape, const Shape& idx, bool fortran) {
  std::size_t p = 0;
  if (fortran) {
    for (std::size_t k = shape.size(); k-- > 0;) p = p * shape[k] + idx[k];
  } else {
    for (std::size_t k = 0; k < shape.size(); ++k) p = p * shape[k] + idx[k];
  }
  return p;
}

template <class T>
void check_load(std::span<const std::byte> bytes, const NpyHeader& h) {
  const auto r = strided::load_npy_bytes<T>(bytes);
  if (!r) {
    CHECK(!r.error().message().empty());
    // The header parsed and names T: only the data can be wrong.
    const auto k = r.error().kind();
    CHECK(k == IoErrorKind::truncated || k == IoErrorKind::size_mismatch ||
          k == IoErrorKind::invalid_value || k == IoErrorKind::shape);
    if (k == IoErrorKind::truncated) CHECK(bytes.size() - h.data_offset < h.data_bytes);
    if (k == IoErrorKind::size_mismatch) CHECK(bytes.size() - h.data_offset > h.data_bytes);
    return;
  }
  const Tensor<T>& t = *r;
  CHECK(bytes.size() - h.data_offset == h.data_bytes);
  CHECK(t.shape() == h.shape);
  CHECK(t.numel() * sizeof(T) == h.data_bytes);
  // Every element, at most the first 4096, read through the tensor and straight from the bytes.
  const std::byte* data = bytes.data() + h.data_offset;
  std::size_t seen = 0;
  Shape idx(t.rank(), 0);
  for (std::size_t i = 0; i < t.numel() && seen < 4096; ++i, ++seen) {
    const auto got = t.get(idx);
    CHECK(got.has_value());
    T want;
    std::memcpy(&want, data + position(t.shape(), idx, h.fortran_order) * sizeof(T), sizeof(T));
    CHECK(std::memcmp(&*got, &want, sizeof(T)) == 0);
    for (std::size_t k = t.rank(); k-- > 0;) {  // next row-major index
      if (++idx[k] < t.shape()[k]) break;
      idx[k] = 0;
    }
  }
  // Round trip: save (C order, version chosen by the writer) and load again, bit-exact.
  const auto saved = strided::save_npy_bytes(t);
  CHECK(saved.has_value());
  const auto again = strided::load_npy_bytes<T>(std::span<const std::byte>(*saved));
  if (!strided::Layout::contiguous(t.shape())) {
    // A Fortran-order file without elements whose C-order strides overflow (e.g. shape
    // (0, 41, 3, 748374836484, 2729, 3, 14) read column-major): written back in C order, its
    // row-major strides do not fit, so the reload is an overflow (kind shape), not a tensor.
    CHECK(h.fortran_order && t.empty());
    CHECK(!again && again.error().kind() == IoErrorKind::shape);
    return;
  }
  CHECK(again.has_value() && again->shape() == t.shape());
  const auto a = t.to_vector(), b = again->to_vector();
  CHECK(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const T x = a[i], y = b[i];
    CHECK(std::memcmp(&x, &y, sizeof(T)) == 0);
  }
}

template <class T, class Other>
void check_types(std::span<const std::byte> bytes, const NpyHeader& h) {
  check_load<T>(bytes, h);
  const auto wrong = strided::load_npy_bytes<Other>(bytes);
  CHECK(!wrong && wrong.error().kind() == IoErrorKind::dtype_mismatch);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  const auto h = strided::parse_npy_header(bytes);
  if (!h) {
    CHECK(!h.error().message().empty());
    // Whatever the header says, the loader must fail the same way.
    const auto r = strided::load_npy_bytes<float>(bytes);
    CHECK(!r && r.error().kind() == h.error().kind());
    return 0;
  }
  CHECK(h->major >= 1 && h->major <= 3 && h->minor == 0);
  CHECK(h->data_offset <= size);
  CHECK(h->shape.size() <= strided::max_rank);
  // The element count ignores the order of the sizes: a zero makes it 0 whatever comes before.
  std::size_t numel = 1;
  const bool has_zero = std::find(h->shape.begin(), h->shape.end(), 0) != h->shape.end();
  if (has_zero)
    numel = 0;
  else
    for (std::size_t d : h->shape) CHECK(!__builtin_mul_overflow(numel, d, &numel));
  CHECK(numel * h->dtype.size == h->data_bytes);
  // parse_npy_header admits exactly the descrs the dtype registry knows.
  const auto dtype = strided::dtype_from_npy(h->dtype.kind, h->dtype.size);
  CHECK(dtype.has_value());
  strided::visit_dtype(*dtype, [&]<class T>(std::type_identity<T>) {
    using Other = std::conditional_t<std::is_same_v<T, std::int64_t>, double, std::int64_t>;
    check_types<T, Other>(bytes, *h);
  });
  const auto any = strided::load_npy_bytes_any(bytes);
  const auto typed_ok = strided::visit_dtype(*dtype, [&]<class T>(std::type_identity<T>) {
    return strided::load_npy_bytes<T>(bytes).has_value();
  });
  CHECK(any.has_value() == typed_ok);
  CHECK(!any || any->dtype() == *dtype);
  return 0;
}
