// The copy planner's choices: which kernel a given view gets.
#include <cstddef>
#include <vector>

#include "catch_shim.hpp"
#include "strided/detail/copy/plan.hpp"

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
  const std::size_t perm[22] = {21, 3,  17, 0, 9,  12, 5,  1, 20, 14, 7,
                                2,  19, 11, 4, 16, 8,  13, 6, 18, 10, 15};
  std::vector<std::size_t> shape(22, 2);
  std::vector<std::ptrdiff_t> ss(22), ds(22);
  for (std::size_t k = 0; k < 22; ++k) {
    ss[k] = std::ptrdiff_t{1} << (21 - perm[k]);
    ds[k] = std::ptrdiff_t{1} << (21 - k);
  }
  const CopyPlan p = plan(shape, ss, ds);
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
