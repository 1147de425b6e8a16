// The copy kernels' loops (copy/loops.hpp): for_each_index_ahead against a list of every index's
// offsets built by plain nested counting, and the row fill against element-by-element copies.
#include "strided/detail/copy/loops.hpp"

#include <cstddef>
#include <random>
#include <vector>

#include "catch_shim.hpp"
#include "support.hpp"

namespace {

using strided::detail::copy_impl::PlanLoops;

struct Visit {
  std::ptrdiff_t src, dst, ahead;
};

// Every index of `loops`, innermost fastest: its source and destination offsets.
std::vector<Visit> reference_offsets(const PlanLoops& loops) {
  std::vector<Visit> out{{0, 0, 0}};
  for (std::size_t k = 0; k < loops.rank; ++k) {  // axis k varies slower than those before it
    std::vector<Visit> next;
    for (std::size_t i = 0; i < loops.extent[k]; ++i)
      for (const Visit& v : out) {
        const auto step = static_cast<std::ptrdiff_t>(i);
        next.push_back({v.src + step * loops.stride[0][k], v.dst + step * loops.stride[1][k], 0});
      }
    out = next;
  }
  return out;
}

PlanLoops random_loops(std::mt19937_64& rng) {
  PlanLoops loops;
  const std::size_t rank = rng() % 6;
  for (std::size_t k = 0; k < rank; ++k) {
    const auto stride = [&] { return static_cast<std::ptrdiff_t>(rng() % 4096) - 2048; };
    loops.push_outer(1 + rng() % 3, {stride(), stride()});
  }
  return loops;
}

}  // namespace

TEST_CASE("for_each_index_ahead visits every index and names the one `distance` on",
          "[copy][loops]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  // Offsets stay within +-5 axes * 2 steps * 2048 bytes of the middle of these.
  constexpr std::size_t reach = 5 * 2 * 2048;
  std::vector<std::byte> src(2 * reach + 1), dst(2 * reach + 1);
  const std::byte* const base = src.data() + reach;
  std::byte* const dst_base = dst.data() + reach;
  for (int rep = 0; rep < 300; ++rep) {
    const PlanLoops loops = random_loops(rng);
    const std::size_t distance = rng() % 5;
    CAPTURE(rep, loops.rank, distance);
    const std::vector<Visit> want = reference_offsets(loops);
    std::vector<Visit> got;
    strided::detail::copy_impl::for_each_index_ahead(
        loops, base, dst_base, distance, [&](const std::byte* s, std::byte* d, std::ptrdiff_t a) {
          got.push_back({s - base, d - dst_base, a});
        });
    REQUIRE(got.size() == want.size());
    for (std::size_t n = 0; n < want.size(); ++n) {
      CAPTURE(n);
      CHECK(got[n].src == want[n].src);
      CHECK(got[n].dst == want[n].dst);
      const bool leads = distance > 0 && n + distance < want.size();
      CHECK(got[n].ahead == (leads ? want[n + distance].src - want[n].src : 0));
    }
  }
}

TEST_CASE("fill_row writes n copies of the element and nothing else", "[copy][loops]") {
  // Every element size the switch names and two it does not, rows from empty to several 64-byte
  // blocks (shorter than a block, whole blocks, a last block moved back), at every misalignment.
  constexpr std::size_t guard = 80;
  for (const std::size_t es : {1u, 2u, 4u, 8u, 3u, 16u}) {
    std::vector<std::byte> elem(es);
    for (std::size_t b = 0; b < es; ++b) elem[b] = static_cast<std::byte>(0xA0 + b);
    for (std::size_t n = 0; n <= 200; ++n)
      for (std::size_t misalign = 0; misalign < 8; ++misalign) {
        CAPTURE(es, n, misalign);
        std::vector<std::byte> row(guard + misalign + n * es + guard, std::byte{0x5C});
        strided::detail::copy_impl::fill_row(elem.data(), row.data() + guard + misalign, n, es);
        std::size_t wrong = 0;
        for (std::size_t at = 0; at < row.size(); ++at) {
          const std::size_t from = at - guard - misalign;  // wraps for the guard before the row
          const bool inside = at >= guard + misalign && from < n * es;
          wrong += row[at] != (inside ? elem[from % es] : std::byte{0x5C});
        }
        CHECK(wrong == 0);
      }
  }
}
