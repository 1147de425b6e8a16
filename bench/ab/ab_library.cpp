// One side of bench/ab/ab_compare: the library compiled into a namespace of its own, so that two
// builds of it (two git revisions, or a change and its base) run in one process. Compiled twice,
// with STRIDED_AB_SIDE defined to `base` and to `new` and the include path of that side's tree.
// Each side has its own thread pool and buffer cache; ab_compare.cpp calls them in turn.
#include <cstddef>
#include <cstdlib>

#ifndef STRIDED_AB_SIDE
#error "define STRIDED_AB_SIDE to base or new"
#endif
#define STRIDED_AB_CAT2(a, b) a##b
#define STRIDED_AB_CAT(a, b) STRIDED_AB_CAT2(a, b)
#define STRIDED_AB_STR2(a) #a
#define STRIDED_AB_STR(a) STRIDED_AB_STR2(a)

// Every `strided` token below, the library's namespace included, becomes strided_ab_<side>:
// the two sides' inline functions then have different names and are not merged by the linker.
#define strided STRIDED_AB_CAT(strided_ab_, STRIDED_AB_SIDE)
#include "../memcpy_on_pool.hpp"
#include "ab_library.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/map.hpp"
#include "strided/parallel.hpp"
#include "strided/tensor.hpp"

namespace {

// STRIDED_AB_ISA_<side> = a level's name (isa_name) forces this side's level, if the CPU runs it
// (STRIDED_ISA, read by the library, forces both).
void force_level_once() {
  static const bool done = [] {
    const char* level = std::getenv("STRIDED_AB_ISA_" STRIDED_AB_STR(STRIDED_AB_SIDE));
    for (int l = 0; level != nullptr && l < strided::detail::available_isa_count(); ++l)
      if (strided::detail::isa_name(static_cast<strided::detail::Isa>(l)) == level)
        strided::detail::isa_impl::override_level.store(l);
    return true;
  }();
  static_cast<void>(done);
}

}  // namespace

extern "C" void STRIDED_AB_CAT(strided_ab_copy_, STRIDED_AB_SIDE)(const strided_ab::Copy* c) {
  force_level_once();
  if (strided::num_threads() != c->threads) strided::set_num_threads(c->threads);
  const strided::detail::CopyArgs args{{c->shape, c->rank},       c->src,
                                       {c->src_strides, c->rank}, c->dst,
                                       {c->dst_strides, c->rank}, c->elem_size};
  strided::detail::copy_strided(args);
}

extern "C" void STRIDED_AB_CAT(strided_ab_memcpy_all_,
                               STRIDED_AB_SIDE)(std::byte* dst, const std::byte* src,
                                                std::size_t bytes, std::size_t threads) {
  if (strided::num_threads() != threads) strided::set_num_threads(threads);
  strided_bench::memcpy_on_pool(dst, src, bytes, threads);
}

namespace {

// The matrix as a tensor that does not own it (an empty owner aliasing the caller's pointer).
strided::Tensor<float> matrix(const strided_ab::Op& op) {
  const std::shared_ptr<const float> view(std::shared_ptr<const float>(), op.src);
  return strided::Tensor<float>::from_shared(
             view, op.rows * op.cols, strided::Layout::contiguous({op.rows, op.cols}).value())
      .value();
}

template <class T>
double first(const strided::Tensor<T>& t) {
  return static_cast<double>(static_cast<float>(t.values()[0]));
}

}  // namespace

extern "C" double STRIDED_AB_CAT(strided_ab_op_, STRIDED_AB_SIDE)(const strided_ab::Op* op) {
  force_level_once();
  if (strided::num_threads() != op->threads) strided::set_num_threads(op->threads);
  const auto m = matrix(*op);
  const auto twice_plus_one = [](float x) { return 2.0f * x + 1.0f; };
  switch (op->kind) {
    case 0:
      return first(m.cast<strided::f16>().value());
    case 1:
      return first(m.transpose(0, 1).value().cast<strided::bf16>().value());
    case 2:
      return first(m.cast<double>().value());
    case 3:
      return first(strided::map(m, twice_plus_one).value());
    case 4:
      return first(strided::map(m.transpose(0, 1).value(), twice_plus_one).value());
    default:
      return first(
          strided::zip_with([](float a, float b) { return a + b; }, m, m.transpose(0, 1).value())
              .value());
  }
}
