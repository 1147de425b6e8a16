// The streaming copy (copy/stream.hpp, stream_copy) at every level: a plain head up to a line,
// whole streamed lines, a plain tail. Every destination offset within a line and lengths around the
// four-register and one-line loops, against memcpy, with the bytes either side left alone.
#include "strided/detail/copy/stream.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "catch_shim.hpp"
#include "strided/detail/simd/isa.hpp"
#include "support.hpp"

namespace {

constexpr std::size_t guard = 64;  // bytes either side of the destination that must not change

// Copies n bytes with stream_copy to `offset` bytes past a line of a fresh buffer; true when the
// destination holds the source and the guard bytes either side still hold their fill.
bool stream_copy_matches(std::mt19937_64& rng, std::size_t offset, std::size_t n) {
  std::vector<std::byte> src(n + 1), storage(n + 2 * guard + 128, std::byte{0xA5});
  for (std::byte& b : src) b = static_cast<std::byte>(rng());
  std::byte* line = storage.data() + (64 - reinterpret_cast<std::uintptr_t>(storage.data()) % 64);
  std::byte* d = line + guard + offset;
  // From one byte into the source: the loads take any address.
  strided::detail::copy_impl::stream_copy(d, src.data() + 1, n);
  strided::detail::copy_impl::stream_fence();
  if (n != 0 && std::memcmp(d, src.data() + 1, n) != 0) return false;
  for (std::byte* p = storage.data(); p < d; ++p)
    if (*p != std::byte{0xA5}) return false;
  for (std::byte* p = d + n; p < storage.data() + storage.size(); ++p)
    if (*p != std::byte{0xA5}) return false;
  return true;
}

}  // namespace

TEST_CASE("stream_copy copies every offset and length, at every ISA level", "[stream]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  const int levels = strided_test::testable_levels("streaming copies");
  for (int level = 0; level < levels; ++level) {
    strided::detail::ScopedIsa isa(static_cast<strided::detail::Isa>(level));
    for (std::size_t offset = 0; offset < 64; ++offset)
      for (std::size_t n = 0; n <= 4 * 64 + 2; ++n) {
        CAPTURE(level, offset, n);
        REQUIRE(stream_copy_matches(rng, offset, n));
      }
    for (const std::size_t n : {std::size_t{1000}, std::size_t{4097}, std::size_t{65536 + 33}}) {
      const std::size_t offset = rng() % 64;
      CAPTURE(level, offset, n);
      REQUIRE(stream_copy_matches(rng, offset, n));
    }
  }
}
