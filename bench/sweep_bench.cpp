// Random shape sweep: views users have rather than a fixed table of shapes, each copied into a
// preallocated row-major destination and reported as a ratio to memcpy of the same bytes measured
// interleaved in the same process (docs/performance.md, "Random shape sweep").
//
//   sweep/<isa>/vNNN      200 random views from a fixed seed (printed): ranks 2-6, view extents
//                         1-5000 (with axes of 1-5, 7, 28, 56, 224 drawn often), a random permute,
//                         narrows, flips and a broadcast, elements of 1/2/4/8 bytes, outputs of
//                         4-64 MiB.
//   channels/<isa>/<name> channel-last <-> channel-first images with 1-4 channels (and one with
//                         128), the data loader's transforms: batches of 64, and single RGB
//                         images that stay in L2.
//
// Every view runs at every ISA level the CPU has. After the run the p50 / p90 / max of x_memcpy
// per level is printed. `sweep_bench --dump_views` prints the views (one a line) instead of
// running; bench/peers_sweep.py reads that to time the same views through NumPy and PyTorch.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_main.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/simd/isa.hpp"

namespace {

/// The thread's CPU time: on a 2-core machine shared with compilers, wall time charges whichever
/// side was running when the scheduler took the core; CPU time charges neither.
struct Clock {
  using time_point = double;
  static double now() noexcept {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  }
};
using strided::detail::Isa;

constexpr std::uint64_t sweep_seed = 20261203;
constexpr std::size_t sweep_views = 200;
constexpr double min_out = 4.0 * (1 << 20), max_out = 64.0 * (1 << 20);

/// splitmix64: the sequence is fixed by the seed on every platform (std distributions are not).
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }
};

/// A view of a row-major base tensor: per base axis an extent, a narrow start, a flip or a
/// broadcast (base extent 1, stride 0), then a permute of the axes.
struct View {
  std::string name;
  std::size_t es = 4;
  std::vector<std::size_t> base, len, start, perm;
  std::vector<bool> flip, bcast;
};

std::size_t product(const std::vector<std::size_t>& v) {
  std::size_t n = 1;
  for (auto e : v) n *= e;
  return n;
}

// Brings the view's output into [min_out, max_out] bytes by growing or shrinking free axes;
// false when it cannot (every axis pinned).
bool fit_output(Rng& rng, View& v, const std::vector<bool>& pinned) {
  for (int step = 0; step < 400; ++step) {
    const double bytes = static_cast<double>(product(v.len) * v.es);
    if (bytes >= min_out && bytes <= max_out) return true;
    const std::size_t k = rng.below(v.len.size());
    if (pinned[k]) continue;
    if (bytes < min_out && v.len[k] < 5000)
      v.len[k] = std::min<std::size_t>(5000, v.len[k] + v.len[k] / 4 + 1);
    else if (bytes > max_out && v.len[k] > 1)
      v.len[k] = v.len[k] * 4 / 5;
  }
  return false;
}

View random_view(Rng& rng, std::size_t id) {
  static constexpr std::size_t small[] = {1, 2, 3, 4, 5, 7, 28, 56, 224};
  static constexpr std::size_t sizes[] = {1, 2, 4, 8};
  for (;;) {
    View v;
    v.name = std::to_string(1000 + id);
    v.name[0] = 'v';  // v000 .. v199
    v.es = sizes[rng.below(4)];
    const std::size_t rank = 2 + rng.below(5);
    const double target = std::exp(std::log(min_out) + rng.unit() * std::log(max_out / min_out));
    std::vector<bool> pinned(rank);
    double small_product = 1;
    for (std::size_t k = 0; k < rank; ++k)
      if (rng.chance(0.35)) {
        pinned[k] = true;
        v.len.push_back(small[rng.below(std::size(small))]);
        small_product *= static_cast<double>(v.len.back());
      } else {
        v.len.push_back(0);
      }
    const auto free_axes = static_cast<double>(std::count(pinned.begin(), pinned.end(), false));
    if (free_axes == 0) continue;
    const double each = std::pow(target / static_cast<double>(v.es) / small_product, 1 / free_axes);
    for (std::size_t k = 0; k < rank; ++k)
      if (!pinned[k]) {
        const double jitter = std::exp((rng.unit() - 0.5) * 1.5);
        v.len[k] = std::clamp<std::size_t>(static_cast<std::size_t>(each * jitter), 1, 5000);
      }
    if (!fit_output(rng, v, pinned)) continue;
    v.base = v.len;
    v.start.assign(rank, 0);
    v.flip.assign(rank, false);
    v.bcast.assign(rank, false);
    const bool broadcast = rng.chance(0.2);
    const std::size_t b_axis = rng.below(rank);
    for (std::size_t k = 0; k < rank; ++k) {
      if (broadcast && k == b_axis && v.len[k] > 1) {
        v.bcast[k] = true;
        v.base[k] = 1;
        continue;
      }
      if (rng.chance(0.3) && v.len[k] < 5000) {
        const std::size_t room = std::min<std::size_t>({5000 - v.len[k], 64, v.len[k] / 2 + 1});
        const std::size_t extra = 1 + rng.below(room);
        v.base[k] = v.len[k] + extra;
        v.start[k] = rng.below(extra + 1);
      }
      v.flip[k] = v.len[k] > 1 && rng.chance(0.15);
    }
    // Narrows of several short axes multiply: keep the source within twice the output.
    for (std::size_t k = 0; k < rank && product(v.base) > 2 * product(v.len); ++k) {
      v.base[k] = v.bcast[k] ? 1 : v.len[k];
      v.start[k] = 0;
    }
    v.perm.resize(rank);
    for (std::size_t k = 0; k < rank; ++k) v.perm[k] = k;
    if (rng.chance(0.9))
      for (std::size_t k = rank; k-- > 1;) std::swap(v.perm[k], v.perm[rng.below(k + 1)]);
    return v;
  }
}

/// `perm` of a contiguous `base` of `es`-byte elements (the named channel cases).
View permuted(std::string name, std::vector<std::size_t> base, std::vector<std::size_t> perm,
              std::size_t es) {
  View v;
  v.name = std::move(name);
  v.es = es;
  v.len = base;
  v.base = std::move(base);
  v.start.assign(v.base.size(), 0);
  v.flip.assign(v.base.size(), false);
  v.bcast.assign(v.base.size(), false);
  v.perm = std::move(perm);
  return v;
}

std::vector<View> channel_views() {
  std::vector<View> v;
  const std::vector<std::size_t> to_last{0, 2, 3, 1}, to_first{0, 3, 1, 2};
  for (std::size_t c = 1; c <= 4; ++c) {
    const std::string cs = std::to_string(c);
    for (std::size_t es : {std::size_t{1}, std::size_t{4}}) {
      const std::string t = es == 1 ? "u8" : "f32";
      v.push_back(
          permuted("nhwc_to_nchw_64x224x224x" + cs + "_" + t, {64, 224, 224, c}, to_first, es));
      v.push_back(
          permuted("nchw_to_nhwc_64x" + cs + "x224x224_" + t, {64, c, 224, 224}, to_last, es));
    }
  }
  v.push_back(permuted("nchw_to_nhwc_64x3x224x224_i8", {64, 3, 224, 224}, to_last, 1));
  v.push_back(permuted("nhwc_to_nchw_64x224x224x3_bf16", {64, 224, 224, 3}, to_first, 2));
  v.push_back(permuted("nchw_to_nhwc_64x4x224x224_f64", {64, 4, 224, 224}, to_last, 8));
  v.push_back(permuted("nchw_to_nhwc_32x128x28x28_f64", {32, 128, 28, 28}, to_last, 8));
  v.push_back(permuted("nhwc_to_nchw_32x28x28x128_f64", {32, 28, 28, 128}, to_first, 8));
  v.push_back(permuted("hwc_to_chw_64x224x224x3_f32", {64, 224, 224, 3}, {0, 3, 1, 2}, 4));
  // One image (147 KiB, in L2): the kernels' own speed, which memory hides in the batches above.
  v.push_back(permuted("nhwc_to_nchw_1x224x224x3_u8", {1, 224, 224, 3}, to_first, 1));
  v.push_back(permuted("nchw_to_nhwc_1x3x224x224_u8", {1, 3, 224, 224}, to_last, 1));
  return v;
}

std::vector<View> sweep_views_list() {
  Rng rng{sweep_seed};
  std::vector<View> v;
  for (std::size_t i = 0; i < sweep_views; ++i) v.push_back(random_view(rng, i));
  return v;
}

/// Source and destination strides (elements) and the view origin, from the base's row-major
/// layout.
struct Layout {
  std::vector<std::size_t> shape;
  std::vector<std::ptrdiff_t> src, dst;
  std::ptrdiff_t origin = 0;
};

Layout layout_of(const View& v) {
  const std::size_t r = v.base.size();
  std::vector<std::ptrdiff_t> base_stride(r), stride(r);
  std::ptrdiff_t step = 1;
  for (std::size_t k = r; k-- > 0;) {
    base_stride[k] = step;
    step *= static_cast<std::ptrdiff_t>(v.base[k]);
  }
  Layout l;
  for (std::size_t k = 0; k < r; ++k) {
    const std::ptrdiff_t s = v.bcast[k] ? 0 : base_stride[k];
    l.origin += static_cast<std::ptrdiff_t>(v.start[k]) * s;
    if (v.flip[k]) l.origin += static_cast<std::ptrdiff_t>(v.len[k] - 1) * s;
    stride[k] = v.flip[k] ? -s : s;
  }
  for (std::size_t k = 0; k < r; ++k) {
    l.shape.push_back(v.len[v.perm[k]]);
    l.src.push_back(stride[v.perm[k]]);
  }
  l.dst.resize(r);
  step = 1;
  for (std::size_t k = r; k-- > 0;) {
    l.dst[k] = step;
    step *= static_cast<std::ptrdiff_t>(l.shape[k]);
  }
  return l;
}

std::string join(const std::vector<std::size_t>& v) {
  std::string s;
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (k > 0) s += ',';
    s += std::to_string(v[k]);
  }
  return s;
}

std::string flags(const std::vector<bool>& v) {
  std::string s;
  for (bool b : v) s += b ? '1' : '0';
  return s;
}

/// One line per view: name es base len start flip bcast perm (read by bench/peers_sweep.py).
void dump(const std::vector<View>& views) {
  for (const View& v : views)
    std::printf("%s %zu %s %s %s %s %s %s\n", v.name.c_str(), v.es, join(v.base).c_str(),
                join(v.len).c_str(), join(v.start).c_str(), flags(v.flip).c_str(),
                flags(v.bcast).c_str(), join(v.perm).c_str());
}

std::shared_ptr<std::byte> filled(std::size_t bytes, unsigned seed) {
  auto p = strided::detail::allocate_buffer<std::byte>(bytes);
  for (std::size_t i = 0; i < bytes; ++i) p.get()[i] = static_cast<std::byte>(i * 131 + seed);
  return p;
}

double seconds(double a, double b) { return b - a; }

// x_memcpy of every view (of every repetition when --benchmark_repetitions is given), per group
// and level, for the summary printed after the run (each view counts once, with its median).
using Ratios = std::map<std::string, std::map<std::string, std::vector<double>>>;
Ratios& ratios() {
  static Ratios r;
  return r;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
  return v[std::min(k, v.size() - 1)];
}

/// The plan's kind, element size (bytes, rows folded in) and, for the tiled kernels, the extents
/// of the destination- and source-contiguous groups: where a slow view's time goes.
std::string plan_label(const strided::detail::CopyPlan& p) {
  std::string s = strided::detail::plan_kind_name(p.kind);
  s += " es=" + std::to_string(p.elem_size);
  if (p.kind == strided::detail::PlanKind::transpose ||
      p.kind == strided::detail::PlanKind::interleave ||
      p.kind == strided::detail::PlanKind::deinterleave) {
    using strided::detail::plan_impl::group_extent;
    s += " J=" + std::to_string(group_extent(p, p.nj, nullptr)) +
         " I=" + std::to_string(group_extent(p, p.ni, p.i_axes.data()));
  }
  s += " rank=" + std::to_string(p.rank);
  return s;
}

void bench_view(benchmark::State& state, const View& v, Isa isa, const std::string& group) {
  const strided::detail::ScopedIsa scoped(isa);
  const Layout l = layout_of(v);
  const std::size_t bytes = product(v.len) * v.es;
  const auto src = filled(product(v.base) * v.es, 7), dst = filled(bytes, 1);
  const auto ref_src = filled(bytes, 2), ref_dst = filled(bytes, 3);
  const strided::detail::CopyArgs a{
      l.shape, src.get() + l.origin * static_cast<std::ptrdiff_t>(v.es), l.src, dst.get(), l.dst,
      v.es};
  auto work = [&] {
    strided::detail::copy_strided(a);
    benchmark::ClobberMemory();
  };
  auto reference = [&] {
    std::memcpy(ref_dst.get(), ref_src.get(), bytes);
    benchmark::ClobberMemory();
  };
  work();  // first touch of the destination pages
  // Each iteration is one interleaved pair (alternating which goes first); the figure is the
  // median of the pairs' ratios: on a shared 2-core machine a ratio of sums is dominated by the
  // pairs in which another process took the core.
  std::vector<double> pair_ratios;
  bool work_first = false;
  for (auto _ : state) {
    work_first = !work_first;
    const auto t0 = Clock::now();
    work_first ? work() : reference();
    const auto t1 = Clock::now();
    work_first ? reference() : work();
    const auto t2 = Clock::now();
    const double first = seconds(t0, t1), second = seconds(t1, t2);
    pair_ratios.push_back(work_first ? first / second : second / first);
    state.SetIterationTime(work_first ? first : second);
  }
  const double x = percentile(pair_ratios, 0.5);
  state.counters["x_memcpy"] = x;
  state.SetLabel(plan_label(strided::detail::plan_copy(a)));
  ratios()[group + "/" + std::string(strided::detail::isa_name(isa))][v.name].push_back(x);
}

void register_views(const std::vector<View>& views, const std::string& group) {
  for (int level = 0; level < strided::detail::available_isa_count(); ++level) {
    const auto isa = static_cast<Isa>(level);
    if (isa == Isa::scalar) continue;  // the SIMD levels are what users run
    for (const View& v : views)
      benchmark::RegisterBenchmark(
          (group + "/" + std::string(strided::detail::isa_name(isa)) + "/" + v.name).c_str(),
          [&v, isa, group](benchmark::State& s) { bench_view(s, v, isa, group); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(9);
  }
}

}  // namespace

int main(int argc, char** argv) {
  strided_bench::one_thread_unless_asked();
  static const std::vector<View> sweep = sweep_views_list();
  static const std::vector<View> channels = channel_views();
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--dump_views") == 0) {
      dump(sweep);
      dump(channels);
      return 0;
    }
  std::printf(
      "sweep seed %llu, %zu views; CPU level %s\n", static_cast<unsigned long long>(sweep_seed),
      sweep.size(),
      std::string(strided::detail::isa_name(strided::detail::cpu_features().level)).c_str());
  register_views(sweep, "sweep");
  register_views(channels, "channels");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const auto& [key, per_view] : ratios()) {
    std::vector<double> x;
    for (const auto& [name, reps] : per_view) x.push_back(percentile(reps, 0.5));
    std::printf("summary %-16s views %3zu  p50 %.2f  p90 %.2f  max %.2f (x memcpy)\n", key.c_str(),
                x.size(), percentile(x, 0.5), percentile(x, 0.9), percentile(x, 1.0));
  }
  return 0;
}
