// Fuzz target 4: bytes -> a DLManagedTensor description (device, dtype, ndim, shape, strides or
// NULL, data pointer into a 4 KiB buffer or NULL, byte_offset) -> from_dlpack<T>.
//
// Checked: the import fails exactly when one of the documented conditions holds (non-CPU
// device, lanes != 1, another dtype, ndim outside [0, 64], a negative size, NULL shape or data
// where needed, misaligned data, overflowing sizes), with a kind that condition names; the
// producer's deleter runs exactly once, before the import returns on error and when the last
// tensor dies on success; and a tensor that imports addresses exactly the bytes the description
// names: element i is at data + byte_offset + sum(i_k * stride_k) * sizeof(T) (compared as
// addresses for every element, and as values when those bytes lie inside the buffer: DLPack
// carries no length, so the import has to trust the producer for that).
#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "fuzz_support.hpp"
#include "strided/interop/dlpack.hpp"

namespace {

using strided::IoErrorKind;
using strided::Shape;
using strided::Tensor;
using strided::fuzz::ByteReader;
__extension__ typedef __int128 i128;

#define CHECK STRIDED_FUZZ_CHECK

constexpr std::size_t kBufferBytes = 4096;
alignas(64) unsigned char g_buffer[kBufferBytes];
int g_deleted = 0;

void count_delete(DLManagedTensor*) { ++g_deleted; }

struct Expect {
  bool ok = true;
  unsigned kinds = 0;
  void add(IoErrorKind k) {
    ok = false;
    kinds |= 1u << static_cast<unsigned>(k);
  }
  void allow(IoErrorKind k) { kinds |= 1u << static_cast<unsigned>(k); }
  bool allows(IoErrorKind k) const { return (kinds >> static_cast<unsigned>(k)) & 1u; }
};

template <class T>
void run(ByteReader& in) {
  constexpr DLDataType want = *strided::dlpack_dtype<T>();
  DLManagedTensor m{};
  DLTensor& dl = m.dl_tensor;
  std::int64_t shape[strided::max_rank + 2] = {};
  std::int64_t strides[strided::max_rank + 2] = {};
  dl.device = DLDevice{in.byte() < 245 ? kDLCPU : static_cast<DLDeviceType>(2 + in.byte() % 12), 0};
  dl.dtype = want;
  if (in.byte() >= 240) dl.dtype = DLDataType{in.byte(), in.byte(), in.raw<std::uint16_t>()};
  dl.ndim = in.byte() < 245 ? static_cast<int>(in.small(5)) : in.raw<std::int32_t>();
  const std::size_t filled =
      dl.ndim > 0 ? std::min<std::size_t>(static_cast<std::size_t>(dl.ndim), strided::max_rank + 2)
                  : 0;
  for (std::size_t k = 0; k < filled; ++k) {
    shape[k] = in.byte() < 245 ? static_cast<std::int64_t>(in.small(6))
                               : static_cast<std::int64_t>(in.signed_arg(6));
    strides[k] = static_cast<std::int64_t>(in.signed_arg(24));
  }
  const bool null_strides = in.byte() < 64;
  dl.shape = in.byte() < 250 ? shape : nullptr;
  dl.strides = null_strides ? nullptr : strides;
  const std::size_t base = in.small(255) * 8 + (in.byte() >= 245 ? 1 : 0);
  dl.data = in.byte() < 250 ? g_buffer + base : nullptr;
  dl.byte_offset = in.byte() < 245 ? in.small(64) * sizeof(T) : in.raw<std::uint64_t>();
  m.deleter = &count_delete;

  // The documented outcome.
  Expect e;
  if (dl.device.device_type != kDLCPU) e.add(IoErrorKind::unsupported_device);
  if (dl.dtype.lanes != 1) e.add(IoErrorKind::unsupported_dtype);
  if (dl.dtype.code != want.code || dl.dtype.bits != want.bits) e.add(IoErrorKind::dtype_mismatch);
  const bool rank_ok = dl.ndim >= 0 && static_cast<std::size_t>(dl.ndim) <= strided::max_rank;
  if (!rank_ok) e.add(IoErrorKind::invalid_argument);
  const std::size_t rank = rank_ok ? static_cast<std::size_t>(dl.ndim) : 0;
  bool empty = false, sizes_ok = rank_ok;
  if (rank > 0 && dl.shape == nullptr) {
    e.add(IoErrorKind::invalid_argument);
    sizes_ok = false;
  }
  std::vector<i128> st(rank, 0);
  if (rank_ok && (rank == 0 || dl.shape != nullptr)) {
    for (std::size_t k = 0; k < rank; ++k) {
      if (shape[k] < 0) {
        e.add(IoErrorKind::invalid_argument);
        sizes_ok = false;
      }
      empty |= shape[k] == 0;
    }
    // Row-major element strides when NULL, else as given.
    i128 step = 1;
    for (std::size_t k = rank; k-- > 0;) {
      st[k] = null_strides ? step : i128(strides[k]);
      step *= shape[k] < 0 ? 0 : shape[k];
      if (step > std::numeric_limits<std::ptrdiff_t>::max()) {
        step = 0;
        if (null_strides) e.add(IoErrorKind::shape);  // the row-major strides do not fit
      }
    }
  }
  i128 low = 0, high = 0;
  if (sizes_ok && !empty) {
    std::size_t numel = 1;
    for (std::size_t k = 0; k < rank; ++k) {
      if (__builtin_mul_overflow(numel, static_cast<std::size_t>(shape[k]), &numel))
        e.add(IoErrorKind::shape);
      const i128 term = (i128(shape[k]) - 1) * st[k];
      if (term > std::numeric_limits<std::ptrdiff_t>::max() ||
          term < std::numeric_limits<std::ptrdiff_t>::min()) {
        e.add(IoErrorKind::shape);  // not summed: 64 such terms could overflow even 128 bits
        continue;
      }
      (term < 0 ? low : high) += term;
    }
  }
  if (sizes_ok && empty) {
    // No elements: nothing is reached, but a layout whose sizes or strides overflow before the
    // zero-size axis is met may still be rejected as overflowing (never required).
    std::size_t numel = 1;
    i128 lo = 0, hi = 0;
    for (std::size_t k = 0; k < rank && shape[k] != 0; ++k) {
      bool over = __builtin_mul_overflow(numel, static_cast<std::size_t>(shape[k]), &numel);
      const i128 term = (i128(shape[k]) - 1) * st[k];
      if (term > std::numeric_limits<std::ptrdiff_t>::max() ||
          term < std::numeric_limits<std::ptrdiff_t>::min()) {
        e.allow(IoErrorKind::shape);
        break;
      }
      (term < 0 ? lo : hi) += term;
      over |= hi > std::numeric_limits<std::ptrdiff_t>::max() ||
              lo < std::numeric_limits<std::ptrdiff_t>::min();
      if (over) e.allow(IoErrorKind::shape);
    }
  }
  // Byte extents of the reach must fit std::ptrdiff_t.
  if ((high - low + 1) * i128(sizeof(T)) > std::numeric_limits<std::ptrdiff_t>::max())
    e.add(IoErrorKind::shape);
  const auto address = reinterpret_cast<std::uintptr_t>(dl.data);
  const i128 start = i128(address) + dl.byte_offset;
  if (!empty && sizes_ok) {
    if (dl.data == nullptr) e.add(IoErrorKind::invalid_argument);
    if (start > i128(std::numeric_limits<std::uintptr_t>::max()) || start % alignof(T) != 0)
      e.add(IoErrorKind::invalid_argument);
    if (start + low * i128(sizeof(T)) < 0) e.add(IoErrorKind::invalid_argument);
  }

  g_deleted = 0;
  {
    auto r = strided::from_dlpack<T>(&m);
    if (!r) {
      CHECK(!r.error().message().empty());
      CHECK(e.allows(r.error().kind()));
      CHECK(g_deleted == 1);  // on error, before from_dlpack returns
      return;
    }
    CHECK(e.ok);
    CHECK(g_deleted == 0);
    const Tensor<T>& t = *r;
    CHECK(t.rank() == rank);
    for (std::size_t k = 0; k < rank; ++k)
      CHECK(t.shape()[k] == static_cast<std::size_t>(shape[k]));
    if (!t.empty()) {
      // Addresses, element by element (at most 4096 of them).
      const bool inside =
          start + low * i128(sizeof(T)) >= i128(reinterpret_cast<std::uintptr_t>(g_buffer)) &&
          start + (high + 1) * i128(sizeof(T)) <=
              i128(reinterpret_cast<std::uintptr_t>(g_buffer + kBufferBytes));
      Shape idx(rank, 0);
      for (std::size_t n = 0; n < t.numel() && n < 4096; ++n) {
        i128 want_at = start;
        i128 storage = t.offset();
        for (std::size_t k = 0; k < rank; ++k) {
          want_at += i128(idx[k]) * st[k] * i128(sizeof(T));
          storage += i128(idx[k]) * t.strides()[k];
        }
        CHECK(storage >= 0 && storage < i128(t.storage_len()));
        // As integers: a description that lies about its memory yields a base pointer far from
        // any object, and pointer arithmetic on it would itself be undefined.
        const i128 at =
            i128(reinterpret_cast<std::uintptr_t>(t.storage().get())) + storage * i128(sizeof(T));
        CHECK(at == want_at);
        if (inside) {
          const auto got = t.get(idx);
          const auto offset = static_cast<std::size_t>(
              at - i128(reinterpret_cast<std::uintptr_t>(static_cast<const void*>(g_buffer))));
          CHECK(got.has_value() && std::memcmp(&*got, g_buffer + offset, sizeof(T)) == 0);
        }
        for (std::size_t k = rank; k-- > 0;) {
          if (++idx[k] < t.shape()[k]) break;
          idx[k] = 0;
        }
      }
      if (inside && t.numel() <= 4096) {
        // Bitwise (the bytes may hold NaNs, which strided::equal rightly calls unequal).
        const auto dense = t.contiguous();
        const auto values = t.values();
        const auto slice = dense.as_slice().value();
        CHECK(slice.size() == values.size());
        for (std::size_t i = 0; i < slice.size(); ++i) {
          const T v = values[i];
          CHECK(std::memcmp(&slice[i], &v, sizeof(T)) == 0);
        }
      }
    }
  }
  CHECK(g_deleted == 1);  // the tensor died: the producer's memory is released exactly once
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool filled = [] {
    for (std::size_t i = 0; i < kBufferBytes; ++i)
      g_buffer[i] = static_cast<unsigned char>(i * 131u + 7u);
    for (std::size_t i = 0; i < kBufferBytes; ++i)
      if (i % 8 == 0) g_buffer[i] &= 1u;  // some valid bools
    return true;
  }();
  (void)filled;
  ByteReader in(std::span<const std::uint8_t>(data, size));
  switch (in.small(5)) {
    case 0:
      run<float>(in);
      break;
    case 1:
      run<std::int16_t>(in);
      break;
    case 2:
      run<std::uint8_t>(in);
      break;
    case 3:
      run<double>(in);
      break;
    case 4:
      run<strided::f16>(in);
      break;
    default:
      run<std::int64_t>(in);
      break;
  }
  return 0;
}
