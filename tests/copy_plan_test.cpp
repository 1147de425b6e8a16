// The copy planner's choices: which kernel a given view gets.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "catch_shim.hpp"
#include "strided/detail/copy/plan.hpp"
#include "support.hpp"

namespace {

using strided::detail::CopyArgs;
using strided::detail::CopyPlan;
using strided::detail::PlanKind;

CopyPlan plan(std::vector<std::size_t> shape, std::vector<std::ptrdiff_t> ss,
              std::vector<std::ptrdiff_t> ds, std::size_t es = 4) {
  static std::byte src[1], dst[1];
  static std::vector<std::size_t> keep_shape;
  static std::vector<std::ptrdiff_t> keep_ss, keep_ds;
  keep_shape = std::move(shape);
  keep_ss = std::move(ss);
  keep_ds = std::move(ds);
  return strided::detail::plan_copy(CopyArgs{keep_shape, src, keep_ss, dst, keep_ds, es});
}

}  // namespace

TEST_CASE("contiguous and empty copies", "[copy][plan]") {
  CHECK(plan({4096, 4096}, {4096, 1}, {4096, 1}).kind == PlanKind::single_memcpy);
  CHECK(plan({}, {}, {}).kind == PlanKind::single_memcpy);  // rank 0: one element
  CHECK(plan({3, 0, 5}, {5, 5, 1}, {0, 5, 1}).kind == PlanKind::nothing);
  // Size-1 axes with arbitrary strides do not break contiguity.
  const CopyPlan p = plan({1, 8, 1, 16}, {999, 16, -7, 1}, {128, 16, 3, 1});
  CHECK(p.kind == PlanKind::single_memcpy);
  CHECK(p.elem_size == 8 * 16 * 4);
}

TEST_CASE("a narrow picks row-wise memcpy", "[copy][plan]") {
  const CopyPlan p = plan({4096, 2048}, {4096, 1}, {2048, 1});
  CHECK(p.kind == PlanKind::rowwise_memcpy);
  CHECK(p.rank == 1);
  CHECK(p.elem_size == 2048 * 4);
}

TEST_CASE("broadcasts pick row replication or fills", "[copy][plan]") {
  CHECK(plan({4096, 4096}, {0, 1}, {4096, 1}).kind == PlanKind::rowwise_memcpy);
  const CopyPlan fill = plan({4096, 4096}, {1, 0}, {4096, 1});
  CHECK(fill.kind == PlanKind::fill);
  CHECK(fill.axes[0].n == 4096);
}

TEST_CASE("transposes pick the blocked transpose", "[copy][plan]") {
  const CopyPlan t2 = plan({4096, 4096}, {1, 4096}, {4096, 1});
  CHECK(t2.kind == PlanKind::transpose);
  CHECK(t2.nj == 1);
  CHECK(t2.ni == 1);
  // NCHW -> NHWC: H and W merge, leaving a batched 64 x 3136 transpose.
  const CopyPlan nhwc = plan({32, 56, 56, 64}, {200704, 56, 1, 3136}, {200704, 3584, 64, 1});
  CHECK(nhwc.kind == PlanKind::transpose);
  CHECK(nhwc.rank == 3);
  CHECK(nhwc.axes[0].n == 64);
  CHECK(nhwc.axes[nhwc.i_axes[0]].n == 56 * 56);
  // Batched transpose keeps the batch as an outer loop.
  CHECK(plan({64, 512, 512}, {262144, 1, 512}, {262144, 512, 1}).kind == PlanKind::transpose);
  // A flipped destination axis is walked forwards by flipping both views: still a transpose.
  CHECK(plan({64, 64}, {1, 64}, {64, -1}).kind == PlanKind::transpose);
}

TEST_CASE("a rank-22 permute of 2s groups several axes per tile side", "[copy][plan]") {
  const strided_test::Rank22Permute r;
  const CopyPlan p = plan(r.shape, r.src_strides, r.dst_strides);
  REQUIRE(p.kind == PlanKind::transpose);
  std::size_t ej = 1, ei = 1;
  for (std::size_t k = 0; k < p.nj; ++k) ej *= p.axes[k].n;
  for (std::size_t k = 0; k < p.ni; ++k) ei *= p.axes[p.i_axes[k]].n;
  CHECK(ej >= 8);
  CHECK(ei >= 8);
}

TEST_CASE("reversals and steps pick the strided loop", "[copy][plan]") {
  CHECK(plan({1000}, {-1}, {1}).kind == PlanKind::strided);
  CHECK(plan({1000}, {2}, {1}).kind == PlanKind::strided);
  // Short rows fold into wider elements: 3 floats become one 12-byte element.
  const CopyPlan p = plan({100, 3}, {7, 1}, {3, 1});
  CHECK(p.kind == PlanKind::strided);
  CHECK(p.elem_size == 12);
}

TEST_CASE("channel-last to channel-first images pick deinterleave", "[copy][plan]") {
  // [64, 224, 224, 3] u8 NHWC viewed as NCHW: pixels packed 3 apart, channels the unit axis.
  const CopyPlan p = plan({64, 3, 224, 224}, {150528, 1, 672, 3}, {150528, 50176, 224, 1}, 1);
  CHECK(p.kind == PlanKind::deinterleave);
  CHECK(p.axes[0].n == 224 * 224);  // H and W merge into one pixel axis
  CHECK(p.axes[p.i_axes[0]].n == 3);
  for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}})
    for (std::ptrdiff_t c = 2; c <= 4; ++c) {
      CAPTURE(es, c);
      CHECK(plan({8, static_cast<std::size_t>(c), 5, 7}, {35 * c, 1, 7 * c, c}, {35 * c, 35, 7, 1},
                 es)
                .kind == PlanKind::deinterleave);
    }
}

TEST_CASE("channel-first to channel-last images pick interleave", "[copy][plan]") {
  // [64, 3, 224, 224] i8 NCHW viewed as NHWC.
  const CopyPlan p = plan({64, 224, 224, 3}, {150528, 224, 1, 50176}, {150528, 672, 3, 1}, 1);
  CHECK(p.kind == PlanKind::interleave);
  CHECK(p.axes[0].n == 3);
  CHECK(p.axes[p.i_axes[0]].n == 224 * 224);
  // A narrowed image: rows of 100 of 224 pixels stay separate axes; still interleave.
  CHECK(plan({2, 50, 100, 4}, {4 * 224 * 224, 224, 1, 224 * 224}, {20000, 400, 4, 1}, 4).kind ==
        PlanKind::interleave);
  // Flipped rows (negative source stride of H) keep the unit-stride pixel axis.
  CHECK(plan({7, 9, 2}, {-9, 1, 63}, {18, 2, 1}, 8).kind == PlanKind::interleave);
}

TEST_CASE("channel shapes the (de)interleave kernels do not take", "[copy][plan]") {
  // 5 channels: a transpose or the strided loop, not the channel kernels.
  const PlanKind five = plan({8, 5, 64, 64}, {20480, 1, 320, 5}, {20480, 4096, 64, 1}).kind;
  CHECK(five != PlanKind::deinterleave);
  CHECK(five != PlanKind::interleave);
  // Elements of 16 bytes (folded rows) are not a kernel size.
  CHECK(plan({3, 4096}, {1, 3}, {4096, 1}, 16).kind != PlanKind::deinterleave);
  // Padded pixels (RGBA storage, 3 channels read): not packed in the source.
  CHECK(plan({3, 4096}, {1, 4}, {4096, 1}).kind != PlanKind::deinterleave);
  // Many channels stay on the transpose (NCHW -> NHWC with 64 channels).
  CHECK(plan({32, 56, 56, 64}, {200704, 56, 1, 3136}, {200704, 3584, 64, 1}).kind ==
        PlanKind::transpose);
}

TEST_CASE("a backwards source unit axis is read forwards", "[copy][plan]") {
  // Reversed channels (packed RGB -> BGR planes): the channel axis has source stride -1; it is
  // flipped in both views, so the planes are written last to first.
  const CopyPlan bgr = plan({3, 4096}, {-1, 3}, {4096, 1});
  CHECK(bgr.kind == PlanKind::deinterleave);
  CHECK(bgr.axes[bgr.i_axes[0]].ss == 4);
  CHECK(bgr.axes[bgr.i_axes[0]].ds == -4096 * 4);
  CHECK(bgr.src_offset == -2 * 4);  // channel 2, the first in memory
  CHECK(bgr.dst_offset == 2 * 4096 * 4);
  // A transpose of a view whose rows are reversed ([::-1] on the contiguous axis, then .T): was
  // the strided loop with the reversed axis outermost (one source sweep per index of it).
  const CopyPlan t = plan({479, 171, 159}, {27189, -1, 171}, {171 * 159, 159, 1}, 1);
  CHECK(t.kind == PlanKind::transpose);
  CHECK(t.axes[t.i_axes[0]].ss == 1);
  CHECK(t.axes[t.i_axes[0]].ds == -159);
  // With a forward unit axis elsewhere nothing is flipped.
  CHECK(plan({64, 64}, {1, -64}, {64, 1}).kind == PlanKind::transpose);
  CHECK(plan({64, 64}, {1, -64}, {64, 1}).dst_offset == 0);
}

TEST_CASE("a flip inside the source's contiguous axes stays in the transpose's group",
          "[copy][plan]") {
  // u8 [3013, 3, 1610] from a [1610, 3013, 3] image with its 3013 axis flipped, permuted (1, 2, 0):
  // the channel axis (stride 1) and the flipped pixel axis (stride -3) form one group of 9039
  // source-contiguous bytes once the pixel axis is reversed in both views; before, the group
  // stopped at the 3 channels.
  const CopyPlan p = plan({3013, 3, 1610}, {-3, 1, 9039}, {4830, 1610, 1}, 1);
  REQUIRE(p.kind == PlanKind::transpose);
  REQUIRE(p.ni == 2);
  const auto& pixels = p.axes[p.i_axes[1]];
  CHECK(pixels.n == 3013);
  CHECK(pixels.ss == 3);
  CHECK(pixels.ds == -4830);
  CHECK(p.src_offset == -3012 * 3);
  CHECK(p.dst_offset == 3012 * 4830);
  // With both directions present the forward axis is taken and nothing is reversed.
  const CopyPlan f = plan({64, 64, 8}, {-64, 1, 64 * 64}, {512, 8, 1}, 4);
  REQUIRE(f.kind == PlanKind::transpose);
  CHECK(f.axes[f.i_axes[0]].ss == 4);
}

TEST_CASE("tiles narrower than 16 bytes pick the strided loop", "[copy][plan]") {
  // Below every vector kernel (16 u8, 8 u16 elements a side) the scalar tiles lost to the strided
  // loop: u8 [224 x 22] x 15 bytes measured 25x memcpy tiled, 10x in the loop.
  CHECK(plan({15, 1000}, {1, 15}, {1000, 1}, 1).kind == PlanKind::strided);
  CHECK(plan({16, 1000}, {1, 16}, {1000, 1}, 1).kind == PlanKind::transpose);
  CHECK(plan({7, 1000}, {1, 7}, {1000, 1}, 2).kind == PlanKind::strided);
  CHECK(plan({8, 1000}, {1, 8}, {1000, 1}, 2).kind == PlanKind::transpose);
  CHECK(plan({1000, 5}, {1, 1000}, {5, 1}, 4).kind == PlanKind::transpose);
  CHECK(plan({3, 1000}, {1, 5}, {1000, 1}, 8).kind == PlanKind::strided);  // 3 of 5 channels
  // The side's length decides, not the longer side: 15 x 64 is not a 16 x 1 tile.
  CHECK(plan({15, 64}, {1, 15}, {64, 1}, 1).kind == PlanKind::strided);
}

// Planning sorts its axes with an insertion sort of its own (no heap buffer, unlike
// std::stable_sort): it must order them as std::stable_sort does, equal keys kept in order.
TEST_CASE("planning's axis sort is std::stable_sort without a buffer", "[copy][plan]") {
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return static_cast<std::size_t>(state >> 33);
  };
  using Item = std::pair<std::size_t, std::size_t>;  // (key, original position)
  auto by_key = [](const Item& x, const Item& y) { return x.first < y.first; };
  for (std::size_t n = 0; n <= strided::detail::plan_max_rank; ++n)
    for (std::size_t keys : {std::size_t{1}, std::size_t{3}, std::size_t{1000}}) {
      std::vector<Item> items(n);
      for (std::size_t k = 0; k < n; ++k) items[k] = {next() % keys, k};
      std::vector<Item> want = items;
      std::stable_sort(want.begin(), want.end(), by_key);
      strided::detail::plan_impl::stable_sort_axes(items.begin(), items.end(), by_key);
      CAPTURE(n, keys);
      CHECK(items == want);
    }
}
