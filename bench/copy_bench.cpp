// Copy engine benchmarks: the case table of issue 8, as ratios to memcpy measured interleaved in
// the same process (method: docs/performance.md, "How it is measured").
//
//   copy_to/<case>     detail::copy_strided into a preallocated destination;
//                      x_memcpy = time / memcpy of the same bytes into a preallocated buffer.
//   contiguous/<case>  allocate through detail::allocate_buffer, copy, free;
//                      x_fresh = time / (allocate_buffer + memcpy of the same bytes + free),
//                      x_memcpy = time / memcpy into a preallocated buffer.
//   eigen/<case>, xtensor/<case>: the peers writing into a preallocated destination (noalias).
//   alloc/<kind>       a fresh 64 MiB buffer + memcpy, with and without huge-page advice.
//   into/<case>        the public Tensor::copy_to / cast_into into a TensorSpan (a strided
//                      destination over a preallocated buffer: slot k of a [B, C, H, W] batch
//                      from an HWC image, the right half of each row of a [C, H, 2W] image);
//                      x_memcpy = time / memcpy of the destination's bytes.
//
// Cases of 64 KiB and less (the `small` ones at the end of the table) time a batch of calls per
// sample (calls_per_sample), the memcpy reference likewise: what they measure is a call's fixed
// cost (planning, dispatch) beside a copy whose bytes stay in L1 / L2 for both.
//
// Layouts are built by hand (shape, element strides) so this file depends on the copy engine only.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_main.hpp"
#include "strided/buffer_cache.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/simd/isa.hpp"
#include "strided/tensor.hpp"
#include "strided/tensor_span.hpp"

#if defined(STRIDED_HAVE_EIGEN)
#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>
#endif
#if defined(STRIDED_HAVE_XTENSOR)
#include <xtensor/xadapt.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xstrided_view.hpp>
#include <xtensor/xview.hpp>
#endif

namespace {

using Clock = std::chrono::steady_clock;
using strided::detail::CopyArgs;

/// A source view over an owned, initialised buffer and a preallocated contiguous-or-strided
/// destination; `bytes` is what memcpy moves for the reference (the view's element bytes).
struct Case {
  std::string name;
  std::vector<std::size_t> shape;
  std::vector<std::ptrdiff_t> src_strides;
  std::vector<std::ptrdiff_t> dst_strides;
  std::size_t elem_size = 4;
  std::size_t src_elems = 0;   // source buffer size (elements)
  std::size_t src_origin = 0;  // element [0..0] of the view, in elements
};

std::size_t numel(const Case& c) {
  std::size_t n = 1;
  for (auto e : c.shape) n *= e;
  return n;
}

std::vector<std::ptrdiff_t> row_major(const std::vector<std::size_t>& shape) {
  std::vector<std::ptrdiff_t> s(shape.size());
  std::ptrdiff_t step = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    s[k] = step;
    step *= static_cast<std::ptrdiff_t>(shape[k]);
  }
  return s;
}

// The view `permute(perm)` of a row-major tensor of `base` shape, copied into a row-major result.
Case permuted(std::string name, const std::vector<std::size_t>& base,
              const std::vector<std::size_t>& perm, std::size_t es) {
  Case c;
  c.name = std::move(name);
  c.elem_size = es;
  const auto base_strides = row_major(base);
  for (std::size_t k = 0; k < perm.size(); ++k) {
    c.shape.push_back(base[perm[k]]);
    c.src_strides.push_back(base_strides[perm[k]]);
  }
  c.dst_strides = row_major(c.shape);
  c.src_elems = numel(c);
  return c;
}

std::vector<Case> cases() {
  std::vector<Case> v;
  {
    Case c{"contiguous_4096x4096_f32", {4096, 4096}, {4096, 1}, {4096, 1}, 4, 4096 * 4096, 0};
    v.push_back(c);
  }
  {
    Case c{"narrow_cols_1000_3048_of_4096x4096_f32",
           {4096, 2048},
           {4096, 1},
           {2048, 1},
           4,
           4096 * 4096,
           1000};
    v.push_back(c);
  }
  {
    Case c{"broadcast_1x4096_to_4096x4096_f32", {4096, 4096}, {0, 1}, {4096, 1}, 4, 4096, 0};
    v.push_back(c);
  }
  v.push_back(permuted("transpose_4104x4104_f32", {4104, 4104}, {1, 0}, 4));
  v.push_back(permuted("transpose_1024x1024_f32", {1024, 1024}, {1, 0}, 4));
  v.push_back(permuted("transpose_4096x4096_f32", {4096, 4096}, {1, 0}, 4));
  v.push_back(permuted("nchw_to_nhwc_32x64x56x56_f32", {32, 64, 56, 56}, {0, 2, 3, 1}, 4));
  v.push_back(permuted("nhwc_to_nchw_32x56x56x64_f32", {32, 56, 56, 64}, {0, 3, 1, 2}, 4));
  v.push_back(
      permuted("permute_rank22_of_2s_f32", std::vector<std::size_t>(22, 2),
               {21, 3, 17, 0, 9, 12, 5, 1, 20, 14, 7, 2, 19, 11, 4, 16, 8, 13, 6, 18, 10, 15}, 4));
  v.push_back(permuted("transpose_8192x8192_u8", {8192, 8192}, {1, 0}, 1));
  v.push_back(permuted("transpose_4096x4096_bf16", {4096, 4096}, {1, 0}, 2));
  v.push_back(permuted("transpose_4096x4096_f64", {4096, 4096}, {1, 0}, 8));
  v.push_back(permuted("batched_transpose_64x512x512_f32", {64, 512, 512}, {0, 2, 1}, 4));
  // Small copies (<= 64 KiB): a call's fixed cost against the copy itself.
  v.push_back(permuted("small_transpose_96x80_f32", {96, 80}, {1, 0}, 4));
  v.push_back(permuted("small_nchw_to_nhwc_1x32x16x16_f32", {1, 32, 16, 16}, {0, 2, 3, 1}, 4));
  v.push_back(permuted("small_nhwc_to_nchw_1x16x16x32_f32", {1, 16, 16, 32}, {0, 3, 1, 2}, 4));
  {
    Case c{"small_narrow_cols_64_192_of_128x256_f32",
           {128, 128},
           {256, 1},
           {128, 1},
           4,
           128 * 256,
           64};
    v.push_back(c);
  }
  v.push_back(permuted("small_transpose_256x256_u8", {256, 256}, {1, 0}, 1));
  v.push_back(permuted("small_transpose_128x128_bf16", {128, 128}, {1, 0}, 2));
  v.push_back(permuted("small_permute_rank5_2x4x8x8x16_f32", {2, 4, 8, 8, 16}, {0, 3, 1, 4, 2}, 4));
  return v;
}

/// A 64-byte aligned, first-touched byte buffer from the library's allocator (the alignment every
/// tensor buffer has, so tiles start on cache-line boundaries as they would in real use).
struct Bytes {
  std::shared_ptr<std::byte> p;
  std::size_t n = 0;
  Bytes() = default;
  Bytes(std::size_t bytes, int seed)
      : p(strided::detail::allocate_buffer<std::byte>(bytes)), n(bytes) {
    for (std::size_t i = 0; i < n; ++i)
      p.get()[i] = static_cast<std::byte>(i * 131 + static_cast<std::size_t>(seed));
  }
  std::byte* data() const { return p.get(); }
  std::size_t size() const { return n; }
};

/// Buffers shared by the strided and peer benchmarks of one case.
struct Buffers {
  Bytes src, dst, ref_src, ref_dst;
  explicit Buffers(const Case& c) {
    const std::size_t bytes = numel(c) * c.elem_size;
    src = Bytes(c.src_elems * c.elem_size, 7);
    dst = Bytes(bytes, 1);
    ref_src = Bytes(bytes, 2);
    ref_dst = Bytes(bytes, 3);
  }
};

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// Calls of a case timed as one sample: 1 for copies of more than 64 KiB; for smaller ones enough
/// to move ~1 MiB, so that the clock's own cost and the first (colder) call of a batch vanish
/// beside the batch.
std::size_t calls_per_sample(std::size_t bytes) {
  constexpr std::size_t small = std::size_t{64} << 10, batch = std::size_t{1} << 20;
  return bytes > small ? 1 : (batch + bytes - 1) / bytes;
}

/// Runs `work` against an interleaved memcpy of `bytes` (alternating which goes first), each
/// calls_per_sample(bytes) times per sample (an iteration: its time is the batch's, counter
/// `calls`), and sets x_memcpy to the ratio of the sums.
template <class Work>
void ratio_to_memcpy(benchmark::State& state, Buffers& b, std::size_t bytes, Work&& work) {
  double t_work = 0, t_ref = 0;
  bool work_first = false;
  const std::size_t calls = calls_per_sample(bytes);
  auto works = [&] {
    for (std::size_t i = 0; i < calls; ++i) work();
  };
  auto memcpys = [&] {
    for (std::size_t i = 0; i < calls; ++i) {
      std::memcpy(b.ref_dst.data(), b.ref_src.data(), bytes);
      benchmark::ClobberMemory();
    }
  };
  for (auto _ : state) {
    work_first = !work_first;
    if (work_first) {
      const auto t0 = Clock::now();
      works();
      const auto t1 = Clock::now();
      memcpys();
      const auto t2 = Clock::now();
      t_work += seconds(t0, t1);
      t_ref += seconds(t1, t2);
      state.SetIterationTime(seconds(t0, t1));
    } else {
      const auto t0 = Clock::now();
      memcpys();
      const auto t1 = Clock::now();
      works();
      const auto t2 = Clock::now();
      t_ref += seconds(t0, t1);
      t_work += seconds(t1, t2);
      state.SetIterationTime(seconds(t1, t2));
    }
  }
  state.counters["x_memcpy"] = t_work / t_ref;
  state.counters["calls"] = static_cast<double>(calls);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes * calls));
}

CopyArgs args_for(const Case& c, Buffers& b, std::byte* dst) {
  CopyArgs a;
  a.shape = c.shape;
  a.src = b.src.data() + c.src_origin * c.elem_size;
  a.src_strides = c.src_strides;
  a.dst = dst;
  a.dst_strides = c.dst_strides;
  a.elem_size = c.elem_size;
  return a;
}

void bench_copy_to(benchmark::State& state, const Case& c) {
  Buffers b(c);
  const CopyArgs a = args_for(c, b, b.dst.data());
  const std::size_t bytes = numel(c) * c.elem_size;
  ratio_to_memcpy(state, b, bytes, [&] {
    strided::detail::copy_strided(a);
    benchmark::ClobberMemory();
  });
  state.SetLabel(std::string(strided::detail::plan_kind_name(strided::detail::plan_copy(a).kind)));
}

void bench_contiguous(benchmark::State& state, const Case& c) {
  Buffers b(c);
  const std::size_t bytes = numel(c) * c.elem_size;
  double t_work = 0, t_fresh = 0, t_ref = 0;
  const std::size_t calls = calls_per_sample(bytes);
  for (auto _ : state) {
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < calls; ++i) {
      auto out = strided::detail::allocate_buffer<std::byte>(bytes);
      strided::detail::copy_strided(args_for(c, b, out.get()));
      benchmark::DoNotOptimize(out.get());
      benchmark::ClobberMemory();
    }
    const auto t1 = Clock::now();
    for (std::size_t i = 0; i < calls; ++i) {
      auto out = strided::detail::allocate_buffer<std::byte>(bytes);
      std::memcpy(out.get(), b.ref_src.data(), bytes);
      benchmark::DoNotOptimize(out.get());
      benchmark::ClobberMemory();
    }
    const auto t2 = Clock::now();
    for (std::size_t i = 0; i < calls; ++i) {
      std::memcpy(b.ref_dst.data(), b.ref_src.data(), bytes);
      benchmark::ClobberMemory();
    }
    const auto t3 = Clock::now();
    t_work += seconds(t0, t1);
    t_fresh += seconds(t1, t2);
    t_ref += seconds(t2, t3);
    state.SetIterationTime(seconds(t0, t1));
  }
  state.counters["x_fresh"] = t_work / t_fresh;
  state.counters["x_memcpy"] = t_work / t_ref;
  state.counters["calls"] = static_cast<double>(calls);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes * calls));
}

// A fresh 64 MiB buffer + memcpy, ratio to memcpy into a preallocated buffer: what huge-page
// advice buys (allocate_buffer advises MADV_HUGEPAGE; plain operator new does not). The buffer
// cache is off here, or every allocation after the first would reuse warm pages.
void bench_alloc(benchmark::State& state, bool huge) {
  constexpr std::size_t bytes = std::size_t{64} << 20;
  Case c{"", {bytes}, {1}, {1}, 1, bytes, 0};
  Buffers b(c);
  const std::size_t cache_limit = strided::buffer_cache_limit();
  strided::set_buffer_cache_limit(0);
  struct Restore {
    std::size_t limit;
    ~Restore() { strided::set_buffer_cache_limit(limit); }
  } restore{cache_limit};
  ratio_to_memcpy(state, b, bytes, [&] {
    if (huge) {
      auto out = strided::detail::allocate_buffer<std::byte>(bytes);
      std::memcpy(out.get(), b.src.data(), bytes);
      benchmark::DoNotOptimize(out.get());
    } else {
      std::unique_ptr<std::byte[]> out(new std::byte[bytes]);
      std::memcpy(out.get(), b.src.data(), bytes);
      benchmark::DoNotOptimize(out.get());
    }
    benchmark::ClobberMemory();
  });
}

#if defined(STRIDED_HAVE_EIGEN)
template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class T>
void eigen_transpose(benchmark::State& state, const Case& c) {
  Buffers b(c);
  const auto r = static_cast<Eigen::Index>(c.shape[1]), k = static_cast<Eigen::Index>(c.shape[0]);
  Eigen::Map<const RowMat<T>> src(reinterpret_cast<const T*>(b.src.data()), r, k);
  Eigen::Map<RowMat<T>> dst(reinterpret_cast<T*>(b.dst.data()), k, r);
  ratio_to_memcpy(state, b, numel(c) * sizeof(T), [&] {
    dst.noalias() = src.transpose();
    benchmark::ClobberMemory();
  });
}

void eigen_batched(benchmark::State& state, const Case& c) {
  Buffers b(c);
  const auto n = static_cast<Eigen::Index>(c.shape[1]);
  ratio_to_memcpy(state, b, numel(c) * 4, [&] {
    for (std::size_t m = 0; m < c.shape[0]; ++m) {
      const auto off = m * c.shape[1] * c.shape[2];
      Eigen::Map<const RowMat<float>> src(reinterpret_cast<const float*>(b.src.data()) + off, n, n);
      Eigen::Map<RowMat<float>> dst(reinterpret_cast<float*>(b.dst.data()) + off, n, n);
      dst.noalias() = src.transpose();
    }
    benchmark::ClobberMemory();
  });
}

void eigen_2d(benchmark::State& state, const Case& c, int kind) {
  Buffers b(c);
  const auto rows = static_cast<Eigen::Index>(c.shape[0]),
             cols = static_cast<Eigen::Index>(c.shape[1]);
  Eigen::Map<RowMat<float>> dst(reinterpret_cast<float*>(b.dst.data()), rows, cols);
  ratio_to_memcpy(state, b, numel(c) * 4, [&] {
    if (kind == 0) {
      Eigen::Map<const RowMat<float>> src(reinterpret_cast<const float*>(b.src.data()), rows, cols);
      dst.noalias() = src;
    } else if (kind == 1) {  // columns [src_origin, src_origin + cols) of rows src_strides[0] long
      Eigen::Map<const RowMat<float>> src(reinterpret_cast<const float*>(b.src.data()), rows,
                                          static_cast<Eigen::Index>(c.src_strides[0]));
      dst.noalias() = src.middleCols(static_cast<Eigen::Index>(c.src_origin), cols);
    } else {
      Eigen::Map<const RowMat<float>> row(reinterpret_cast<const float*>(b.src.data()), 1, 4096);
      dst.noalias() = row.replicate(4096, 1);
    }
    benchmark::ClobberMemory();
  });
}

void eigen_nchw(benchmark::State& state, const Case& c, bool to_nhwc) {
  Buffers b(c);
  using TMap = Eigen::TensorMap<Eigen::Tensor<float, 4, Eigen::RowMajor>>;
  using CMap = Eigen::TensorMap<const Eigen::Tensor<const float, 4, Eigen::RowMajor>>;
  // c.shape is the destination's; the source's is it permuted back.
  const auto d = [&](std::size_t k) { return static_cast<Eigen::Index>(c.shape[k]); };
  CMap src(reinterpret_cast<const float*>(b.src.data()), d(0), to_nhwc ? d(3) : d(2),
           to_nhwc ? d(1) : d(3), to_nhwc ? d(2) : d(1));
  const Eigen::array<Eigen::Index, 4> perm = to_nhwc ? Eigen::array<Eigen::Index, 4>{0, 2, 3, 1}
                                                     : Eigen::array<Eigen::Index, 4>{0, 3, 1, 2};
  TMap dst(reinterpret_cast<float*>(b.dst.data()), d(0), d(1), d(2), d(3));
  ratio_to_memcpy(state, b, numel(c) * 4, [&] {
    dst = src.shuffle(perm);
    benchmark::ClobberMemory();
  });
}
#endif

#if defined(STRIDED_HAVE_XTENSOR)
template <class T>
void xtensor_permute(benchmark::State& state, const Case& c, std::vector<std::size_t> base,
                     std::vector<std::size_t> perm) {
  Buffers b(c);
  const std::size_t n = numel(c);
  auto src = xt::adapt(reinterpret_cast<const T*>(b.src.data()), n, xt::no_ownership(), base);
  auto dst = xt::adapt(reinterpret_cast<T*>(b.dst.data()), n, xt::no_ownership(), c.shape);
  ratio_to_memcpy(state, b, n * sizeof(T), [&] {
    xt::noalias(dst) = xt::transpose(src, perm);
    benchmark::ClobberMemory();
  });
}

void xtensor_2d(benchmark::State& state, const Case& c, int kind) {
  Buffers b(c);
  const std::size_t n = numel(c);
  auto dst = xt::adapt(reinterpret_cast<float*>(b.dst.data()), n, xt::no_ownership(), c.shape);
  ratio_to_memcpy(state, b, n * 4, [&] {
    if (kind == 0) {
      auto src =
          xt::adapt(reinterpret_cast<const float*>(b.src.data()), n, xt::no_ownership(), c.shape);
      xt::noalias(dst) = src;
    } else if (kind == 1) {  // columns [src_origin, src_origin + cols) of rows src_strides[0] long
      const auto width = static_cast<std::size_t>(c.src_strides[0]);
      auto src = xt::adapt(reinterpret_cast<const float*>(b.src.data()), c.src_elems,
                           xt::no_ownership(), std::vector<std::size_t>{c.shape[0], width});
      xt::noalias(dst) =
          xt::view(src, xt::all(), xt::range(c.src_origin, c.src_origin + c.shape[1]));
    } else {
      auto row = xt::adapt(reinterpret_cast<const float*>(b.src.data()), std::size_t{4096},
                           xt::no_ownership(), std::vector<std::size_t>{1, 4096});
      xt::noalias(dst) = xt::broadcast(row, std::vector<std::size_t>{4096, 4096});
    }
    benchmark::ClobberMemory();
  });
}
#endif

// ----- into/: the public API writing a strided destination -------------------------------------

constexpr std::size_t into_b = 4, into_c = 3, into_h = 448, into_w = 448;

/// An HWC image of `T` whose values are not all equal.
template <class T>
strided::Tensor<T> hwc_image() {
  std::vector<T> v(into_h * into_w * into_c);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(i % 251);
  return strided::Tensor<T>::from_vector(std::move(v), {into_h, into_w, into_c}).value();
}

/// copy_to (T = float) or cast_into (T = u8) of the CHW view of an HWC image into slot k.
template <class T>
void bench_into_slot(benchmark::State& state) {
  const auto chw = hwc_image<T>().permute({2, 0, 1}).value();
  std::vector<float> batch(into_b * into_c * into_h * into_w);
  const auto slot = strided::TensorSpan<float>::dense(batch, {into_b, into_c, into_h, into_w})
                        .value()
                        .select(0, 2)
                        .value();
  const Case c{"slot", {into_c, into_h, into_w}, {}, {}, 4, 1, 0};
  Buffers b(c);
  ratio_to_memcpy(state, b, numel(c) * 4, [&] {
    if constexpr (std::is_same_v<T, float>)
      benchmark::DoNotOptimize(chw.copy_to(slot));
    else
      benchmark::DoNotOptimize(chw.template cast_into<float>(slot));
    benchmark::ClobberMemory();
  });
}

/// copy_to of a CHW view of an HWC image into the right half of each row of a [C, H, 2W] image.
void bench_into_half_width(benchmark::State& state) {
  const auto chw = hwc_image<float>().permute({2, 0, 1}).value();
  std::vector<float> wide(into_c * into_h * 2 * into_w);
  const auto half = strided::TensorSpan<float>::dense(wide, {into_c, into_h, 2 * into_w})
                        .value()
                        .narrow(2, into_w, into_w)
                        .value();
  const Case c{"half", {into_c, into_h, into_w}, {}, {}, 4, 1, 0};
  Buffers b(c);
  ratio_to_memcpy(state, b, numel(c) * 4, [&] {
    benchmark::DoNotOptimize(chw.copy_to(half));
    benchmark::ClobberMemory();
  });
}

/// Whether case c is of `kind` (its name's first word, after "small_" for the small cases).
bool is(const Case& c, const std::string& kind) {
  const std::string small = "small_";
  const std::size_t at = c.name.rfind(small, 0) == 0 ? small.size() : 0;
  return c.name.compare(at, kind.size(), kind) == 0;
}

template <class Fn>
void add(const std::string& name, Fn&& fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn))
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Repetitions(9)
      ->ReportAggregatesOnly(true)
      ->MinTime(0.1);
}

void register_all() {
  static const std::vector<Case> all = cases();
  for (const Case& c : all) {
    add("copy_to/" + c.name, [&c](benchmark::State& s) { bench_copy_to(s, c); });
    add("contiguous/" + c.name, [&c](benchmark::State& s) { bench_contiguous(s, c); });
  }
  add("into/slot_hwc_to_chw_448x448_f32", bench_into_slot<float>);
  add("into/slot_hwc_u8_to_chw_448x448_f32_cast", bench_into_slot<std::uint8_t>);
  add("into/half_width_hwc_to_chw_448x448_f32", bench_into_half_width);
  add("alloc/fresh_64MiB_plain_new", [](benchmark::State& s) { bench_alloc(s, false); });
  add("alloc/fresh_64MiB_allocate_buffer", [](benchmark::State& s) { bench_alloc(s, true); });
#if defined(STRIDED_HAVE_EIGEN)
  for (const Case& c : all) {
    const std::string n = "eigen/" + c.name;
    if (is(c, "contiguous")) add(n, [&c](benchmark::State& s) { eigen_2d(s, c, 0); });
    if (is(c, "narrow")) add(n, [&c](benchmark::State& s) { eigen_2d(s, c, 1); });
    if (is(c, "broadcast")) add(n, [&c](benchmark::State& s) { eigen_2d(s, c, 2); });
    if (is(c, "transpose")) {
      if (c.elem_size == 1)
        add(n, [&c](benchmark::State& s) { eigen_transpose<std::uint8_t>(s, c); });
      if (c.elem_size == 2)
        add(n, [&c](benchmark::State& s) { eigen_transpose<std::uint16_t>(s, c); });
      if (c.elem_size == 4) add(n, [&c](benchmark::State& s) { eigen_transpose<float>(s, c); });
      if (c.elem_size == 8) add(n, [&c](benchmark::State& s) { eigen_transpose<double>(s, c); });
    }
    if (is(c, "nchw")) add(n, [&c](benchmark::State& s) { eigen_nchw(s, c, true); });
    if (is(c, "nhwc")) add(n, [&c](benchmark::State& s) { eigen_nchw(s, c, false); });
    if (is(c, "batched")) add(n, [&c](benchmark::State& s) { eigen_batched(s, c); });
  }
#endif
#if defined(STRIDED_HAVE_XTENSOR)
  for (const Case& c : all) {
    const std::string n = "xtensor/" + c.name;
    if (is(c, "contiguous")) add(n, [&c](benchmark::State& s) { xtensor_2d(s, c, 0); });
    if (is(c, "narrow")) add(n, [&c](benchmark::State& s) { xtensor_2d(s, c, 1); });
    if (is(c, "broadcast")) add(n, [&c](benchmark::State& s) { xtensor_2d(s, c, 2); });
    // Every permuted case: the base shape is the destination shape un-permuted.
    if (c.src_strides != c.dst_strides && !is(c, "narrow") && !is(c, "broadcast")) {
      const Case* cp = &c;
      // Recover the permutation from the strides: base axis order = source strides descending.
      std::vector<std::size_t> order(c.shape.size());
      for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::sort(order.begin(), order.end(), [cp](std::size_t x, std::size_t y) {
        return cp->src_strides[x] > cp->src_strides[y];
      });
      std::vector<std::size_t> base(order.size()), perm(order.size());
      for (std::size_t k = 0; k < order.size(); ++k) base[k] = c.shape[order[k]];
      for (std::size_t k = 0; k < order.size(); ++k)  // dst axis k = base axis perm[k]
        for (std::size_t m = 0; m < order.size(); ++m)
          if (order[m] == k) perm[k] = m;
      if (c.elem_size == 1)
        add(n, [cp, base, perm](benchmark::State& s) {
          xtensor_permute<std::uint8_t>(s, *cp, base, perm);
        });
      if (c.elem_size == 2)
        add(n, [cp, base, perm](benchmark::State& s) {
          xtensor_permute<std::uint16_t>(s, *cp, base, perm);
        });
      if (c.elem_size == 4)
        add(n,
            [cp, base, perm](benchmark::State& s) { xtensor_permute<float>(s, *cp, base, perm); });
      if (c.elem_size == 8)
        add(n,
            [cp, base, perm](benchmark::State& s) { xtensor_permute<double>(s, *cp, base, perm); });
    }
  }
#endif
}

}  // namespace

int main(int argc, char** argv) {
  return strided_bench::run(argc, argv, "copy_bench", register_all);
}
