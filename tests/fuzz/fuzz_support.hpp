// Shared by the fuzz targets: a byte reader that turns fuzzer input into arguments (biased
// towards small, valid values, with arbitrary ones mixed in so that error paths are reached),
// and a check macro that aborts with a message (libFuzzer and the replay driver both report an
// abort as a finding, with the input that caused it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>

namespace strided::fuzz {

[[noreturn]] inline void check_failed(const char* what, const char* file, int line) {
  std::fprintf(stderr, "FUZZ CHECK FAILED: %s at %s:%d\n", what, file, line);
  std::abort();
}

#define STRIDED_FUZZ_CHECK(cond)                                           \
  do {                                                                     \
    if (!(cond)) ::strided::fuzz::check_failed(#cond, __FILE__, __LINE__); \
  } while (0)

/// Reads arguments from the front of the input; once the input is used up every read returns 0,
/// so any input is a complete, deterministic program.
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  bool done() const noexcept { return pos_ >= bytes_.size(); }
  std::size_t remaining() const noexcept { return done() ? 0 : bytes_.size() - pos_; }

  std::uint8_t byte() noexcept { return done() ? 0 : bytes_[pos_++]; }

  /// A raw little-endian integer of sizeof(I) bytes.
  template <class I>
  I raw() noexcept {
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < sizeof(I); ++k) v |= std::uint64_t{byte()} << (8 * k);
    I out;
    std::memcpy(&out, &v, sizeof(I));
    return out;
  }

  /// In [0, bound] (bound < 256 keeps it one byte).
  std::size_t small(std::size_t bound) noexcept {
    const std::uint8_t b = byte();
    return bound >= 255 ? b : static_cast<std::size_t>(b) % (bound + 1);
  }

  /// Usually in [0, bound]; one time in 16 an arbitrary 64-bit value or an edge value.
  std::size_t size_arg(std::size_t bound) noexcept {
    const std::uint8_t b = byte();
    if (b < 240) return bound >= 255 ? b : static_cast<std::size_t>(b) % (bound + 1);
    switch (b & 3) {
      case 0:
        return std::numeric_limits<std::size_t>::max();  // also strided::infer
      case 1:
        return static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max());
      case 2:
        return std::size_t{1} << (byte() % 64);
      default:
        return raw<std::size_t>();
    }
  }

  /// Usually in [-bound, bound]; one time in 16 an arbitrary or edge value.
  std::ptrdiff_t signed_arg(std::ptrdiff_t bound) noexcept {
    const std::uint8_t b = byte();
    if (b < 240) {
      const auto span = static_cast<std::size_t>(2 * bound + 1);
      return static_cast<std::ptrdiff_t>(static_cast<std::size_t>(b) % span) - bound;
    }
    switch (b & 3) {
      case 0:
        return std::numeric_limits<std::ptrdiff_t>::min();  // also strided::slice_end
      case 1:
        return std::numeric_limits<std::ptrdiff_t>::max();
      case 2:
        return (byte() & 1 ? -1 : 1) * (std::ptrdiff_t{1} << (byte() % 63));
      default:
        return raw<std::ptrdiff_t>();
    }
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

}  // namespace strided::fuzz
