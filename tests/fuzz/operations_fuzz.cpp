// Fuzz target: bytes -> a buffer seen through an arbitrary as_strided layout, then a gather
// (index_select, index_select_into), a bit view (bitcast) and a copy into a strided destination
// (TensorSpan::from_parts, copy_to) checked against a reference model.
//
// The model predicts each call's error from the documented rules alone (docs/operations.md) and,
// when there is none, says for every output element which source bytes it must hold: a gather's
// element [..., j, ...] is the source's [..., indices[j], ...]; a bit view's element holds the
// bytes of the source elements it covers (a part of one when elements shrink, `ratio` of them
// side by side along the last axis when they grow). A destination built by from_parts must lie
// inside its memory and reach no element twice; copy_to into it writes dst[i] = the source
// broadcast to dst's shape at i and nothing else, or fails (broadcast_incompatible,
// memory_overlap when the destination is over the source's own buffer and the extents meet)
// having written nothing.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "fuzz_support.hpp"
#include "strided/gather.hpp"
#include "strided/tensor.hpp"
#include "strided/tensor_span.hpp"

namespace {

using strided::Shape;
using strided::ShapeErrorKind;
using strided::Strides;
using strided::Tensor;
using strided::fuzz::ByteReader;
__extension__ typedef __int128 i128;

constexpr std::size_t kEnumerate = 4096;  // check every element up to this many

#define CHECK STRIDED_FUZZ_CHECK

// Calls f(index) for each multi-index of `shape` in row-major order (nothing when empty).
template <class F>
void for_each_index(const Shape& shape, F&& f) {
  for (std::size_t d : shape)
    if (d == 0) return;
  Shape at(shape.size(), 0);
  while (true) {
    f(at);
    std::size_t d = shape.size();
    while (d > 0 && ++at[d - 1] == shape[d - 1]) at[--d] = 0;
    if (d == 0) return;
  }
}

std::size_t numel_or_max(const Shape& s) {
  std::size_t n = 1;
  for (std::size_t d : s)
    if (d == 0) return 0;
  for (std::size_t d : s)
    if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<std::size_t>::max();
  return n;
}

template <class T>
void check_gather(ByteReader& in, const Tensor<T>& t) {
  const std::size_t axis = in.small(4);
  std::vector<std::int64_t> indices(in.small(12));
  for (auto& i : indices) i = in.signed_arg(8);
  const bool bad_axis = axis >= t.rank();
  bool bad_index = false;
  for (std::int64_t i : indices)
    bad_index = bad_index || bad_axis || i < 0 || static_cast<std::size_t>(i) >= t.shape()[axis];
  Shape out_shape = t.shape();
  if (!bad_axis) out_shape[axis] = indices.size();
  const std::size_t n = numel_or_max(out_shape);
  std::vector<T> out(in.small(40), T{7});
  const auto into = strided::index_select_into(t, axis, indices, std::span<T>(out));
  if (!bad_axis && !bad_index && n > kEnumerate) {  // a broadcast source: too large to allocate
    CHECK(!into);
    return;
  }
  const auto got = strided::index_select(t, axis, indices);
  if (bad_axis || bad_index) {
    const auto kind =
        bad_axis ? ShapeErrorKind::axis_out_of_range : ShapeErrorKind::index_out_of_range;
    CHECK(!got && got.error().kind() == kind);
    CHECK(!into && into.error().kind() == kind);
    for (const T& v : out) CHECK(v == T{7});  // nothing written before the error
    return;
  }
  if (!got) {  // only an output too large for the machine may fail
    CHECK(got.error().kind() == ShapeErrorKind::size_overflow ||
          got.error().kind() == ShapeErrorKind::allocation_failed);
    // (an empty shape may still have row-major strides that overflow, e.g. [0, 2^62, 2^62])
    CHECK(!strided::Layout::contiguous(out_shape));
    return;
  }
  CHECK(got->shape() == out_shape);
  CHECK(got->is_contiguous());
  CHECK(static_cast<bool>(into) == (out.size() == n));
  if (!into) {
    CHECK(into.error().kind() == ShapeErrorKind::element_count_mismatch);
    for (const T& v : out) CHECK(v == T{7});
  }
  const auto values = got->as_slice().value();
  std::size_t e = 0;
  for_each_index(out_shape, [&](const Shape& at) {
    Shape src = at;
    src[axis] = static_cast<std::size_t>(indices[at[axis]]);
    CHECK(values[e] == *t.get(src));
    if (into) CHECK(out[e] == values[e]);
    ++e;
  });
}

// The bytes of source element `at` (a valid index of t).
template <class T>
const std::byte* bytes_at(const Tensor<T>& t, const Shape& at) {
  i128 s = t.offset();
  for (std::size_t k = 0; k < at.size(); ++k) s += i128(at[k]) * t.strides()[k];
  return reinterpret_cast<const std::byte*>(t.storage().get() + static_cast<std::size_t>(s));
}

template <class T, class U>
void check_bitcast(const Tensor<T>& t) {
  const auto got = t.template bitcast<U>();
  constexpr std::size_t from = sizeof(T), to = sizeof(U);
  const std::size_t rank = t.rank();
  bool refused = false;
  if (from != to) {
    refused = rank == 0 || t.strides()[rank - 1] != 1;
    if (!refused && to > from) {
      const std::size_t r = to / from;
      refused = t.shape()[rank - 1] % r != 0 || t.offset() % r != 0;
      for (std::size_t k = 0; k + 1 < rank; ++k)
        refused = refused || t.strides()[k] % static_cast<std::ptrdiff_t>(r) != 0;
    }
  }
  if (refused) {
    CHECK(!got && got.error().kind() == ShapeErrorKind::invalid_argument);
    return;
  }
  if (!got) {  // shrinking scales sizes, strides and the offset up: they may overflow
    CHECK(to < from && got.error().kind() == ShapeErrorKind::size_overflow);
    return;
  }
  CHECK(got->storage().get() == static_cast<const void*>(t.storage().get()));
  CHECK(got->rank() == rank);
  if (numel_or_max(got->shape()) > kEnumerate) return;
  for_each_index(got->shape(), [&](const Shape& at) {
    const U value = *got->get(at);
    Shape src = at;
    std::size_t skip = 0;  // bytes into the source element
    if (from > to) {
      src[rank - 1] = at[rank - 1] / (from / to);
      skip = at[rank - 1] % (from / to) * to;
    }
    for (std::size_t q = 0; q < std::max<std::size_t>(1, to / from); ++q) {
      if (to > from) src[rank - 1] = at[rank - 1] * (to / from) + q;
      const std::size_t len = std::min(from, to);
      CHECK(std::memcmp(reinterpret_cast<const std::byte*>(&value) + q * from,
                        bytes_at(t, src) + skip, len) == 0);
    }
  });
}

// Lowest and highest storage index `layout` reaches (numel > 0), by enumeration.
std::pair<std::ptrdiff_t, std::ptrdiff_t> extent(const strided::Layout& layout) {
  std::ptrdiff_t low = std::numeric_limits<std::ptrdiff_t>::max(), high = -1;
  for_each_index(layout.shape(), [&](const Shape& at) {
    const auto s = static_cast<std::ptrdiff_t>(layout.storage_index(at));
    low = std::min(low, s);
    high = std::max(high, s);
  });
  return {low, high};
}

// The source index that destination index `at` reads under NumPy broadcasting.
Shape broadcast_source_index(const Shape& src_shape, const Shape& at) {
  Shape index(src_shape.size(), 0);
  const std::size_t lead = at.size() - src_shape.size();
  for (std::size_t k = 0; k < src_shape.size(); ++k)
    index[k] = src_shape[k] == 1 ? 0 : at[lead + k];
  return index;
}

bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  for (std::size_t k = 0; k < from.size(); ++k) {
    const std::size_t d = from[from.size() - 1 - k], e = to[to.size() - 1 - k];
    if (d != 1 && d != e) return false;
  }
  return true;
}

// `memory` (len elements) seen as a destination from the fuzz bytes; src's shape half the time.
template <class T>
void check_copy_into(ByteReader& in, const Tensor<T>& src, T* memory, std::size_t len,
                     bool over_source) {
  const bool same_shape = in.small(1) == 0;
  Shape shape = src.shape();
  if (!same_shape) {
    shape = Shape(in.small(4), 0);
    for (auto& d : shape) d = in.size_arg(6);
  }
  Strides strides(shape.size(), 0);
  for (auto& s : strides) s = in.signed_arg(12);
  auto dst = strided::TensorSpan<T>::from_parts(std::span<T>(memory, len), shape, strides,
                                                in.size_arg(16));
  if (!dst) {
    const auto kind = dst.error().kind();
    CHECK(kind == ShapeErrorKind::storage_out_of_bounds || kind == ShapeErrorKind::size_overflow ||
          kind == ShapeErrorKind::memory_overlap);
    return;
  }
  const std::size_t n = numel_or_max(shape);
  // The reference enumerates both sides (a source of many elements over few, by zero strides,
  // costs nothing to make and would take the fuzzer's whole time budget to walk).
  if (n > kEnumerate || numel_or_max(src.shape()) > kEnumerate) return;
  std::vector<std::size_t> reached;  // in bounds, and no element twice
  for_each_index(shape,
                 [&](const Shape& at) { reached.push_back(dst->layout().storage_index(at)); });
  std::sort(reached.begin(), reached.end());
  CHECK(std::adjacent_find(reached.begin(), reached.end()) == reached.end());
  CHECK(reached.empty() || reached.back() < len);
  const std::vector<T> before(memory, memory + len);
  bool overlap = false;
  if (over_source && n > 0 && !src.empty()) {
    const auto [a, b] = extent(src.layout());
    const auto [c, d] = extent(dst->layout());
    overlap = a <= d && c <= b;
  }
  const auto done = src.copy_to(*dst);
  if (!broadcasts_to(src.shape(), shape) || overlap) {
    CHECK(!done);
    CHECK(done.error().kind() == (overlap && broadcasts_to(src.shape(), shape)
                                      ? ShapeErrorKind::memory_overlap
                                      : ShapeErrorKind::broadcast_incompatible));
    CHECK(std::equal(before.begin(), before.end(), memory));
    return;
  }
  CHECK(done.has_value());
  std::vector<T> expected = before;  // read the source from `before` when it shares the memory
  for_each_index(shape, [&](const Shape& at) {
    const std::size_t s = src.layout().storage_index(broadcast_source_index(src.shape(), at));
    expected[dst->layout().storage_index(at)] = over_source ? before[s] : src.storage().get()[s];
  });
  CHECK(std::equal(expected.begin(), expected.end(), memory));
}

template <class T>
void run(ByteReader& in) {
  const std::size_t len = in.small(96);
  std::vector<T> data(len);
  for (std::size_t i = 0; i < len; ++i) data[i] = static_cast<T>(i * 0x9E3779B97F4A7C15ull >> 7);
  const Tensor<T> base = Tensor<T>::from_vector(std::move(data), {len}).value();
  const std::size_t rank = in.small(4);
  Shape shape(rank, 0);
  Strides strides(rank, 0);
  for (auto& d : shape) d = in.size_arg(6);
  for (auto& s : strides) s = in.signed_arg(12);
  const auto view = base.as_strided(shape, strides, in.size_arg(16));
  if (!view) return;  // outside the buffer: as_strided's own rules, fuzzed by views_fuzz
  check_gather(in, *view);
  if (in.small(1) == 0) {  // a separate buffer, or (memory_overlap cases) the source's own
    std::vector<T> other(in.small(96), T(0x5A));
    check_copy_into(in, *view, other.data(), other.size(), false);
  } else {
    T* own = const_cast<T*>(base.storage().get());  // this function's own fresh buffer
    check_copy_into(in, *view, own, len, true);
  }
  switch (in.small(3)) {
    case 0:
      return check_bitcast<T, std::uint8_t>(*view);
    case 1:
      return check_bitcast<T, std::uint16_t>(*view);
    case 2:
      return check_bitcast<T, std::uint32_t>(*view);
    default:
      return check_bitcast<T, std::uint64_t>(*view);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader in(std::span<const std::uint8_t>(data, size));
  switch (in.small(3)) {
    case 0:
      run<std::uint8_t>(in);
      break;
    case 1:
      run<std::uint16_t>(in);
      break;
    case 2:
      run<std::uint32_t>(in);
      break;
    default:
      run<std::uint64_t>(in);
      break;
  }
  return 0;
}
