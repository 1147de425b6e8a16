// Two builds of the library, one process: a permuted copy timed with each in turn, beside a
// one-thread memcpy and an all-thread memcpy of the same bytes. Between separate processes this
// VM's memory moved a case by 10-30 % from one run to the next, more than the changes we weigh;
// here both builds see the same state (identical builds: within 2-10 % out of cache or on one
// thread; in cache on two threads up to 40 % apart, too noisy to decide). Usage
// (bench/ab/ab_compare.sh builds it from two trees):
//
//   ab_compare <shape> <permutation> <element bytes> <threads> [calls]
//   ab_compare 8192,8192 1,0 1 2 31      # a transpose of 8192^2 bytes on two threads
//
// The source is row-major in `shape`; the copy writes its permuted view row-major. Each round
// times the memcpys, then the two builds in alternating order, each after a pause and an untimed
// run of its own (the first copy after another build's ran up to 15 % slow out of cache; in cache
// on two threads beside the other build's spinning pool, up to 40 %), both into the same
// destination (a buffer each moved one build's figure by up to 30 %). Prints medians, x the
// one-thread and x the all-thread memcpy. Checks that both builds wrote the same bytes, unless
// STRIDED_AB_SAME_BYTES=no.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "ab_library.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// "8192,8192" -> {8192, 8192}; empty when any item is not a number.
std::vector<std::size_t> parse_list(const char* text) {
  std::vector<std::size_t> out;
  for (const char* p = text;; ++p) {
    char* end = nullptr;
    out.push_back(std::strtoull(p, &end, 10));
    if (end == p || (*end != ',' && *end != '\0')) return {};
    if (*end == '\0') return out;
    p = end;
  }
}

struct Buffer {
  std::unique_ptr<std::byte, decltype(&std::free)> bytes{nullptr, &std::free};
  explicit Buffer(std::size_t n, unsigned seed)
      : bytes(static_cast<std::byte*>(std::aligned_alloc(64, (n + 63) / 64 * 64)), &std::free) {
    for (std::size_t i = 0; i < n; ++i) bytes.get()[i] = static_cast<std::byte>(i * 131 + seed);
  }
  std::byte* get() const { return bytes.get(); }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s <shape> <permutation> <element bytes> <threads> [calls]\n",
                 argv[0]);
    return 2;
  }
  const std::vector<std::size_t> shape = parse_list(argv[1]), perm = parse_list(argv[2]);
  const std::size_t es = std::strtoull(argv[3], nullptr, 10);
  const std::size_t threads = std::strtoull(argv[4], nullptr, 10);
  const int calls = argc > 5 ? std::atoi(argv[5]) : 31;
  const std::size_t rank = shape.size();
  if (rank == 0) {
    std::fprintf(stderr, "the shape is a list of extents: 8192,8192\n");
    return 2;
  }
  std::vector<bool> seen(rank);
  for (const std::size_t p : perm)
    if (p < rank) seen[p] = true;
  if (perm.size() != rank || std::count(seen.begin(), seen.end(), true) != std::ptrdiff_t(rank) ||
      es == 0 || threads == 0 || calls < 1) {
    std::fprintf(stderr, "the permutation must name each of the %zu axes once\n", rank);
    return 2;
  }
  std::vector<std::ptrdiff_t> row_major(rank);
  std::size_t elements = 1;
  for (std::size_t k = rank; k-- > 0;) {
    row_major[k] = static_cast<std::ptrdiff_t>(elements);
    elements *= shape[k];
  }
  std::vector<std::size_t> view_shape(rank);
  std::vector<std::ptrdiff_t> src_strides(rank), dst_strides(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    view_shape[k] = shape[perm[k]];
    src_strides[k] = row_major[perm[k]];
  }
  std::size_t step = 1;
  for (std::size_t k = rank; k-- > 0;) {
    dst_strides[k] = static_cast<std::ptrdiff_t>(step);
    step *= view_shape[k];
  }
  const std::size_t bytes = elements * es;
  const Buffer src(bytes, 1), dst(bytes, 2), check(bytes, 3), ms(bytes, 4), md(bytes, 5),
      as(bytes, 6), ad(bytes, 7);
  const strided_ab::Copy into_dst{
      view_shape.data(),  rank, src.get(), src_strides.data(), dst.get(),
      dst_strides.data(), es,   threads};
  strided_ab::Copy into_check = into_dst;
  into_check.dst = check.get();

  std::vector<double> t_memcpy, t_all, t_base, t_new;
  // Every timed run follows a pause (the pool that ran last spins for 250 us, beside the next
  // run otherwise) and one untimed run of the same thing (its own pool's workers are then awake
  // and the data where its last run left them, whatever ran before).
  const auto measure = [](std::vector<double>& into, auto&& run) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    run();
    const auto start = Clock::now();
    run();
    into.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  };
  const auto base = [&] { measure(t_base, [&] { strided_ab_copy_base(&into_dst); }); };
  const auto next = [&] { measure(t_new, [&] { strided_ab_copy_new(&into_dst); }); };
  for (int call = 0; call < calls; ++call) {
    measure(t_memcpy, [&] { std::memcpy(md.get(), ms.get(), bytes); });
    // On each build's pool in turn: the build whose pool also ran this reference measured up to
    // 40 % faster in cache on two threads than the same code beside it.
    measure(t_all, [&] {
      (call % 2 == 0 ? strided_ab_memcpy_all_base : strided_ab_memcpy_all_new)(ad.get(), as.get(),
                                                                               bytes, threads);
    });
    if (call % 2 == 0)
      base(), next();
    else
      next(), base();
  }
  // STRIDED_AB_SAME_BYTES=no: the new build is not a copy (line_copy_kernels.sh).
  const char* same = std::getenv("STRIDED_AB_SAME_BYTES");
  strided_ab_copy_base(&into_check);
  if ((same == nullptr || std::strcmp(same, "no") != 0) &&
      std::memcmp(dst.get(), check.get(), bytes) != 0) {
    std::puts("the two builds wrote different bytes");
    return 1;
  }
  const double m = median(t_memcpy), all = median(t_all);
  std::printf(
      "%s perm %s, %zu-byte elements, %zu threads, %d calls: memcpy %.0f us, all-thread "
      "memcpy %.0f us | base %.2f / %.2f  new %.2f / %.2f  (x memcpy / x all-thread)\n",
      argv[1], argv[2], es, threads, calls, m * 1e6, all * 1e6, median(t_base) / m,
      median(t_base) / all, median(t_new) / m, median(t_new) / all);
  return 0;
}
