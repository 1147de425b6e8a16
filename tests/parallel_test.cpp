// The threads layer (strided/parallel.hpp, detail/parallel/*): large copies, casts and batches cut
// into chunks and run on the pool (or an executor) give the same bytes as the serial path at every
// thread count; chunks tile the copy exactly and own whole destination cache lines; small work
// never starts a thread; nested and concurrent use runs inline instead of deadlocking; a fork in
// the middle of a parallel copy leaves a working library in parent and child.
#include "strided/parallel.hpp"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "catch_shim.hpp"
#include "strided/batch.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/parallel/copy_chunks.hpp"
#include "strided/tensor.hpp"

namespace {

using strided::Shape;
using strided::Tensor;
using strided::detail::CopyArgs;
using strided::detail::parallel_threshold_bytes;

// Sets the thread count for one test and restores the default (and the pool) after it.
struct ThreadsFor {
  explicit ThreadsFor(std::size_t n) { strided::set_num_threads(n); }
  ~ThreadsFor() {
    strided::set_num_threads(0);
    strided::set_parallel_executor({});
  }
  ThreadsFor(const ThreadsFor&) = delete;
  ThreadsFor& operator=(const ThreadsFor&) = delete;
};

// One copy problem over owned byte buffers: the source a view of `src_bytes` (permuted, flipped,
// broadcast or narrowed as the case says), the destination row-major (or flipped) in `dst_bytes`.
struct Problem {
  std::vector<std::size_t> shape;
  std::vector<std::ptrdiff_t> src_strides, dst_strides;
  std::size_t es = 1;
  std::vector<std::byte> src_bytes, dst_bytes;
  std::size_t src_origin = 0, dst_origin = 0;

  CopyArgs args() {
    return {shape,       src_bytes.data() + src_origin,
            src_strides, dst_bytes.data() + dst_origin,
            dst_strides, es};
  }
};

std::vector<std::ptrdiff_t> row_major(const std::vector<std::size_t>& shape) {
  const strided::Strides s = strided::detail::row_major_strides(strided::Shape(shape)).value();
  return {s.begin(), s.end()};
}

std::size_t count(const std::vector<std::size_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
}

// The source is a row-major block of `stored` permuted by `perm` (out axis k = stored axis
// perm[k]), each axis flipped where `flip` says, broadcast (stride 0) where `broadcast` says.
// `narrow` (when not 0) keeps only the first `narrow` indices of the last view axis.
Problem make_problem(const std::vector<std::size_t>& stored, const std::vector<std::size_t>& perm,
                     std::size_t es, std::uint64_t flips, std::uint64_t broadcasts,
                     bool flip_dst = false, std::size_t narrow = 0) {
  Problem p;
  p.es = es;
  const auto stored_strides = row_major(stored);
  std::ptrdiff_t origin = 0;
  for (std::size_t k = 0; k < perm.size(); ++k) {
    std::size_t n = stored[perm[k]];
    if (narrow != 0 && k + 1 == perm.size()) n = narrow;
    std::ptrdiff_t s = stored_strides[perm[k]];
    if ((broadcasts >> k) & 1) s = 0;
    if ((flips >> k) & 1) {
      origin += (static_cast<std::ptrdiff_t>(n) - 1) * s;
      s = -s;
    }
    p.shape.push_back(n);
    p.src_strides.push_back(s);
  }
  p.src_bytes.resize(count(stored) * es);
  std::mt19937_64 rng(count(stored) * 31 + es);
  for (auto& b : p.src_bytes) b = static_cast<std::byte>(rng());
  p.src_origin = static_cast<std::size_t>(origin) * es;
  p.dst_strides = row_major(p.shape);
  std::ptrdiff_t dst_origin = 0;
  if (flip_dst) {
    dst_origin = (static_cast<std::ptrdiff_t>(p.shape[0]) - 1) * p.dst_strides[0];
    p.dst_strides[0] = -p.dst_strides[0];
  }
  p.dst_origin = static_cast<std::size_t>(dst_origin) * es;
  p.dst_bytes.assign(count(p.shape) * es, std::byte{0xAB});
  return p;
}

// Copies through copy_strided at `threads` and checks the bytes (those outside the destination
// view too) against the serial path, which copy_test checks against a naive reference.
void check_parallel_copy(Problem p, std::size_t threads) {
  std::vector<std::byte> want = p.dst_bytes;
  {
    CopyArgs a = p.args();
    a.dst = want.data() + p.dst_origin;
    strided::detail::copy_strided_serial(a);
  }
  strided::set_num_threads(threads);
  strided::detail::copy_strided(p.args());
  strided::set_num_threads(0);
  REQUIRE(p.dst_bytes == want);
}

struct Case {
  const char* name;
  std::vector<std::size_t> stored, perm;
  std::uint64_t flips, broadcasts;
  bool flip_dst;
  std::size_t narrow = 0;
};

// One case per plan kind (and then some), each of about 1 MiB at 4-byte elements.
std::vector<Case> plan_cases() {
  return {
      {"narrow of rows (rowwise_memcpy)", {700, 391}, {0, 1}, 0, 0, false, 300},
      {"contiguous (single_memcpy)", {700, 391}, {0, 1}, 0, 0, false},
      {"transpose 2-D", {509, 517}, {1, 0}, 0, 0, false},
      {"NCHW to NHWC", {4, 24, 37, 41}, {0, 2, 3, 1}, 0, 0, false},
      {"broadcast rows (fill)", {1, 700, 1}, {1, 0, 2}, 0, 0b001, false},
      {"flipped inner axis (strided)", {613, 421}, {0, 1}, 0b10, 0, false},
      {"flipped destination", {300, 7, 129}, {0, 2, 1}, 0b001, 0, true},
      {"rank-18 permute of 2s",
       std::vector<std::size_t>(18, 2),
       {17, 3, 9, 0, 12, 5, 1, 15, 7, 11, 2, 16, 4, 13, 8, 6, 14, 10},
       0,
       0,
       false},
      {"short outer axis: [3, 5, big]", {3, 5, 20011}, {1, 0, 2}, 0b100, 0, false},
  };
}

TEST_CASE("every plan kind and element size at 1, 2, 3 and 8 threads equals the serial copy") {
  const ThreadsFor restore(0);
  std::set<strided::detail::PlanKind> kinds;
  for (const Case& c : plan_cases()) {
    for (std::size_t es : {1u, 2u, 3u, 4u, 8u, 16u}) {
      Problem p = make_problem(c.stored, c.perm, es, c.flips, c.broadcasts, c.flip_dst, c.narrow);
      if (c.name[0] ==
          'b') {  // the broadcast case: a source of 1 x 700 x 1 stretched by 3 x 1 x 400
        p.shape = {3, 700, 400};
        p.src_strides = {0, 1, 0};
        p.dst_strides = row_major(p.shape);
        p.dst_bytes.assign(count(p.shape) * es, std::byte{0xAB});
      }
      kinds.insert(strided::detail::plan_copy(p.args()).kind);
      for (std::size_t threads : {1u, 2u, 3u, 8u}) {
        INFO(c.name << ", element size " << es << ", threads " << threads);
        check_parallel_copy(p, threads);
      }
    }
  }
  using K = strided::detail::PlanKind;
  for (K k : {K::single_memcpy, K::rowwise_memcpy, K::fill, K::transpose, K::strided}) {
    INFO(strided::detail::plan_kind_name(k));
    CHECK(kinds.count(k) == 1);
  }
  CHECK(strided::detail::pool_worker_count() >= 7);  // 8 threads ran: the caller and 7 workers
}

// Runs every chunk of `chunks` with a recording copy: which chunk wrote each destination byte.
// A byte written twice is marked -2.
std::vector<int> writers(const CopyArgs& a, const strided::detail::CopyChunks& chunks,
                         std::size_t dst_len, const std::byte* dst_base) {
  std::vector<int> who(dst_len, -1);
  for (std::size_t c = 0; c < chunks.count(); ++c) {
    chunks.run(c, [&](const CopyArgs& sub) {
      // Walk the sub-copy element by element and mark what it writes.
      std::vector<std::size_t> idx(sub.shape.size(), 0);
      const std::size_t n = count({sub.shape.begin(), sub.shape.end()});
      for (std::size_t e = 0; e < n; ++e) {
        std::ptrdiff_t off = 0;
        for (std::size_t k = 0; k < idx.size(); ++k)
          off += static_cast<std::ptrdiff_t>(idx[k]) * sub.dst_strides[k];
        const std::byte* at = sub.dst + off * static_cast<std::ptrdiff_t>(a.elem_size);
        for (std::size_t b = 0; b < a.elem_size; ++b) {
          int& w = who[static_cast<std::size_t>(at - dst_base) + b];
          w = w == -1 ? static_cast<int>(c) : -2;
        }
        for (std::size_t k = idx.size(); k-- > 0;) {
          if (++idx[k] < sub.shape[k]) break;
          idx[k] = 0;
        }
      }
    });
  }
  return who;
}

TEST_CASE("chunks tile the copy exactly and own whole destination cache lines") {
  std::mt19937_64 rng(18);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t rank = 1 + rng() % 4;
    std::vector<std::size_t> stored(rank);
    for (auto& n : stored) n = 1 + rng() % 40;
    std::vector<std::size_t> perm(rank);
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    std::shuffle(perm.begin(), perm.end(), rng);
    const std::size_t es = std::size_t{1} << (rng() % 4);
    Problem p = make_problem(stored, perm, es, rng() % 16, 0, rng() % 4 == 0);
    const std::size_t chunks = 2 + rng() % 31;
    const CopyArgs a = p.args();
    const strided::detail::CopyChunks split(a, chunks);
    INFO("trial " << trial << ", chunks " << chunks);
    REQUIRE(split.count() >= 1);
    REQUIRE(split.count() <= chunks);
    const std::vector<int> who = writers(a, split, p.dst_bytes.size(), p.dst_bytes.data());
    CHECK(std::count(who.begin(), who.end(), -1) == 0);  // every byte written
    CHECK(std::count(who.begin(), who.end(), -2) == 0);  // and only once
  }
}

TEST_CASE("chunk boundaries fall on destination cache lines when rows allow it") {
  // A 64-byte-aligned row-major destination of 1000 rows of 12 bytes: a row starts a line every
  // 16 rows, and each chunk has ~125 rows, so every boundary can move to a line.
  alignas(64) static std::byte dst[1000 * 12];
  std::vector<std::byte> src(1000 * 12);
  const std::vector<std::size_t> shape{1000, 3};
  const std::vector<std::ptrdiff_t> ss{1, 1000}, ds{3, 1};
  const CopyArgs a{shape, src.data(), ss, dst, ds, 4};
  const strided::detail::CopyChunks split(a, 8);
  REQUIRE(split.count() == 8);
  const std::vector<int> who = writers(a, split, sizeof dst, dst);
  REQUIRE(std::count(who.begin(), who.end(), -2) == 0);
  REQUIRE(std::count(who.begin(), who.end(), -1) == 0);
  REQUIRE(std::set<int>(who.begin(), who.end()).size() == 8);
  for (std::size_t line = 0; line < sizeof dst; line += 64) {
    const std::size_t end = std::min(line + 64, sizeof dst);
    INFO("line at byte " << line);
    CHECK(std::all_of(who.begin() + static_cast<std::ptrdiff_t>(line),
                      who.begin() + static_cast<std::ptrdiff_t>(end),
                      [&](int w) { return w == who[line]; }));
  }
}

// A chunk of a streamed transpose reads whole source rows (copy_chunks.hpp,
// keep_source_rows_inside): the split falls on the source rows, and each chunk writes a band of
// destination columns that starts on a line. In cache, or with too few source rows for the
// chunks, the split stays on the rows' axis.
TEST_CASE("streamed transpose chunks read whole source rows when there are enough of them") {
  alignas(64) static std::byte dst[256 * 512 * 2];
  std::vector<std::byte> src(sizeof dst);
  for (const std::size_t threshold :
       {std::size_t{0}, strided::detail::copy_impl::default_stream_threshold})
    for (const std::size_t source_rows : {std::size_t{512}, std::size_t{8}}) {
      const strided::detail::copy_impl::ScopedStreamThreshold streaming(threshold);
      const bool whole_rows =
          threshold == 0 && strided::detail::copy_impl::can_stream() && source_rows == 512;
      CAPTURE(threshold, source_rows, whole_rows);
      const std::size_t row = sizeof dst / 2 / source_rows;  // u16 elements per source row
      const std::vector<std::size_t> shape{row, source_rows};
      const std::vector<std::ptrdiff_t> ss{1, static_cast<std::ptrdiff_t>(row)};
      const std::vector<std::ptrdiff_t> ds{static_cast<std::ptrdiff_t>(source_rows), 1};
      const CopyArgs a{shape, src.data(), ss, dst, ds, 2};
      const strided::detail::CopyChunks split(a, 8);
      REQUIRE(split.count() == 8);
      for (std::size_t c = 0; c < split.count(); ++c)
        split.run(c, [&](const CopyArgs& sub) {
          std::size_t along_rows = 0;  // the sub-copy's extent along the source rows
          for (std::size_t k = 0; k < sub.shape.size(); ++k)
            if (sub.src_strides[k] == 1) along_rows = sub.shape[k];
          CHECK((along_rows == row) == whole_rows);
          CHECK(reinterpret_cast<std::uintptr_t>(sub.dst) % 64 == 0);
        });
      const std::vector<int> who = writers(a, split, sizeof dst, dst);
      CHECK(std::count(who.begin(), who.end(), -1) == 0);
      CHECK(std::count(who.begin(), who.end(), -2) == 0);
    }
}

TEST_CASE("a chunk streams when its whole copy would, not by its own size") {
  // Each chunk is planned as a copy of its own; if it chose streaming stores by its own size, the
  // chunks of a copy far larger than the caches would write through the caches (measured: a
  // 64 MiB transpose at 2 threads no faster than at 1). The threshold is lowered so that the whole
  // copy (1 MiB) streams and each of its 8 chunks (128 KiB) alone would not.
  const strided::detail::copy_impl::ScopedStreamThreshold threshold(std::size_t{512} << 10);
  alignas(64) static std::byte dst[1024 * 1024];
  std::vector<std::byte> src(1024 * 1024);
  const std::vector<std::size_t> shape{1024, 1024};
  const std::vector<std::ptrdiff_t> ss{1, 1024}, ds{1024, 1};
  const CopyArgs a{shape, src.data(), ss, dst, ds, 1};
  const strided::detail::CopyChunks split(a, 8);
  REQUIRE(split.count() == 8);
  for (std::size_t c = 0; c < split.count(); ++c) {
    split.run(c, [&](const CopyArgs& chunk) {
      const strided::detail::CopyPlan plan = strided::detail::plan_copy(chunk);
      CHECK(chunk.whole_dst_bytes == sizeof dst);
      CHECK(strided::detail::copy_impl::dst_bytes(plan) < (std::size_t{512} << 10));
      CHECK(strided::detail::copy_impl::streams(plan) == strided::detail::copy_impl::can_stream());
    });
  }
  // Without the lowered threshold nothing here streams.
  const strided::detail::copy_impl::ScopedStreamThreshold high(std::size_t{16} << 20);
  split.run(0, [&](const CopyArgs& chunk) {
    CHECK_FALSE(strided::detail::copy_impl::streams(strided::detail::plan_copy(chunk)));
  });
}

TEST_CASE("the threshold: below it no chunks and no thread, at it the pool") {
  const ThreadsFor threads(4);
  using strided::detail::chunk_count;
  CHECK(chunk_count(0) == 1);
  CHECK(chunk_count(parallel_threshold_bytes - 1) == 1);
  CHECK(chunk_count(parallel_threshold_bytes) >= 2);
  CHECK(chunk_count(std::size_t{1} << 40) == 4 * strided::detail::chunks_per_thread);
  strided::set_num_threads(1);
  CHECK(chunk_count(std::size_t{1} << 40) == 1);
  strided::set_num_threads(4);

  // Sizes straddling the threshold, counted through an executor that runs chunks inline.
  std::vector<std::size_t> calls;
  strided::set_parallel_executor([&](std::size_t n, strided::ChunkRunner run) {
    calls.push_back(n);
    for (std::size_t i = n; i-- > 0;) run(i);  // any order must do
  });
  for (std::size_t elems : {parallel_threshold_bytes / 4 - 1, parallel_threshold_bytes / 4,
                            parallel_threshold_bytes / 4 + 1}) {
    std::vector<float> data(elems * 2);
    std::iota(data.begin(), data.end(), 0.0f);
    const auto t = Tensor<float>::from_vector(data, {elems * 2}).value();
    const auto every_other = t.slice(0, 0, strided::slice_end, 2).value();  // not contiguous
    calls.clear();
    const std::vector<float> got = every_other.to_vector();
    INFO("elements " << elems << " of 4 bytes each, threshold " << parallel_threshold_bytes);
    CHECK(calls.size() == (elems * 4 >= parallel_threshold_bytes ? 1u : 0u));
    REQUIRE(got.size() == elems);
    bool ok = true;
    for (std::size_t i = 0; i < elems; ++i) ok = ok && got[i] == data[2 * i];
    CHECK(ok);
  }
}

// Runs `check` in a forked child (a process whose pool has not started: fork forgets it) and
// returns its exit status: 0 when check() returned true. alarm() turns a hang into a failure.
template <class F>
int in_child(F check) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::alarm(60);
    ::_exit(check() ? 0 : 1);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

TEST_CASE("no thread exists before the first large copy, nor ever with one thread") {
  const ThreadsFor threads(1);
  CHECK(in_child([] {
          auto t = Tensor<float>::zeros({1024, 1024}).value();
          bool ok = strided::detail::pool_worker_count() == 0;
          (void)t.narrow(0, 0, 32).value().transpose(0, 1).value().contiguous();
          ok = ok && strided::detail::pool_worker_count() == 0;
          // 4 MiB, but num_threads() == 1
          const auto large = t.transpose(0, 1).value().contiguous();
          ok = ok && strided::detail::pool_worker_count() == 0;
          strided::set_num_threads(3);
          (void)t.narrow(0, 0, 16).value().transpose(0, 1).value().contiguous();  // 64 KiB
          ok = ok && strided::detail::pool_worker_count() == 0;
          const auto parallel = t.transpose(0, 1).value().contiguous();
          ok = ok && strided::detail::pool_worker_count() == 2;
          return ok && strided::equal(large, parallel);
        }) == 0);
}

TEST_CASE("STRIDED_NUM_THREADS: a positive decimal count, anything else has a reason") {
  using strided::detail::parse_env_thread_count;
  const auto unset = parse_env_thread_count(nullptr);
  CHECK(unset.count == 0);
  CHECK(unset.problem == nullptr);
  for (const auto& [text, count] :
       {std::pair<const char*, std::size_t>{"1", 1}, {"4", 4}, {"0012", 12}, {"65536", 65536}}) {
    INFO("'" << text << "'");
    const auto env = parse_env_thread_count(text);
    CHECK(env.count == count);
    CHECK(env.problem == nullptr);
  }
  const std::string not_a_count = "is not a positive decimal integer";
  const std::string too_many = "asks for more than 65536 threads";
  const std::string zero = "asks for 0 threads (1 turns the pool off)";
  for (const auto& [text, problem] : {std::pair<const char*, std::string>{"", "is empty"},
                                      {"abc", not_a_count},
                                      {"-1", not_a_count},
                                      {"+4", not_a_count},
                                      {"4x", not_a_count},
                                      {"1e9", not_a_count},
                                      {" 4", not_a_count},
                                      {"4 ", not_a_count},
                                      {"2.5", not_a_count},
                                      {"0", zero},
                                      {"000", zero},
                                      {"65537", too_many},
                                      {"1000000000", too_many},
                                      {"99999999999999999999999", too_many}}) {
    INFO("'" << text << "'");
    const auto env = parse_env_thread_count(text);
    CHECK(env.count == 0);
    REQUIRE(env.problem != nullptr);
    CHECK(env.problem == problem);
  }
}

// The text ParallelState writes to its report stream when started with STRIDED_NUM_THREADS = env.
std::string report_of(const char* env, std::size_t& threads, std::size_t& after_reset) {
  std::FILE* report = std::tmpfile();
  REQUIRE(report != nullptr);
  {
    strided::detail::ParallelState state(env, report);
    threads = state.threads();
    state.set_threads(3);
    state.set_threads(0);  // the default again, without a second report
    after_reset = state.threads();
  }
  std::string text(256, '\0');
  std::rewind(report);
  text.resize(std::fread(text.data(), 1, text.size(), report));
  std::fclose(report);
  return text;
}

TEST_CASE("the default is STRIDED_NUM_THREADS when valid; set_num_threads(0) restores it") {
  const std::size_t hardware = strided::detail::hardware_thread_count();
  std::size_t threads = 0, after_reset = 0;
  CHECK(report_of("5", threads, after_reset).empty());
  CHECK(threads == 5);
  CHECK(after_reset == 5);
  CHECK(report_of(nullptr, threads, after_reset).empty());
  CHECK(threads == hardware);
  CHECK(after_reset == hardware);
  CHECK(report_of("abc", threads, after_reset) ==
        "strided: STRIDED_NUM_THREADS=\"abc\" is not a positive decimal integer; using the "
        "hardware thread count, " +
            std::to_string(hardware) + "\n");
  CHECK(threads == hardware);
  CHECK(after_reset == hardware);
  CHECK(report_of("", threads, after_reset) ==
        "strided: STRIDED_NUM_THREADS=\"\" is empty; using the hardware thread count, " +
            std::to_string(hardware) + "\n");
  CHECK(threads == hardware);
  // A long value is cut in the message.
  const std::string long_value(60, '7');
  CHECK(report_of(long_value.c_str(), threads, after_reset) ==
        "strided: STRIDED_NUM_THREADS=\"" + std::string(40, '7') +
            "...\" asks for more than 65536 threads; using the hardware thread count, " +
            std::to_string(hardware) + "\n");
}

// Run by CTest alone in a fresh process under a given STRIDED_NUM_THREADS (tests/CMakeLists.txt,
// parallel_test/env.*): the process's own settings, read at first use, with stderr captured.
// STRIDED_TEST_WANT_THREADS is the count expected ("hardware": the hardware's),
// STRIDED_TEST_WANT_REPORT a piece of the one line expected on stderr (empty: none).
TEST_CASE("the process reads STRIDED_NUM_THREADS once, at first use", "[.][env]") {
  const char* want_threads = std::getenv("STRIDED_TEST_WANT_THREADS");
  const char* want_report = std::getenv("STRIDED_TEST_WANT_REPORT");
  REQUIRE(want_threads != nullptr);
  REQUIRE(want_report != nullptr);
  const std::size_t want = std::string(want_threads) == "hardware"
                               ? strided::detail::hardware_thread_count()
                               : std::stoul(want_threads);
  std::FILE* captured = std::tmpfile();
  REQUIRE(captured != nullptr);
  std::fflush(stderr);
  const int saved = ::dup(2);
  ::dup2(::fileno(captured), 2);
  const std::size_t first = strided::num_threads();
  ::setenv("STRIDED_NUM_THREADS", "7", 1);  // read already: no effect
  strided::set_num_threads(2);
  strided::set_num_threads(0);
  const std::size_t after_reset = strided::num_threads();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string text(1024, '\0');
  std::rewind(captured);
  text.resize(std::fread(text.data(), 1, text.size(), captured));
  std::fclose(captured);
  CHECK(first == want);
  CHECK(after_reset == want);
  if (*want_report == '\0') {
    CHECK(text.empty());
  } else {
    INFO(text);
    CHECK(text.find(want_report) != std::string::npos);
    CHECK(std::count(text.begin(), text.end(), '\n') == 1);  // one line, however often it is read
  }
}

TEST_CASE("set_num_threads: 0 is the default, any other count is kept") {
  const ThreadsFor restore(0);
  const std::size_t initial = strided::num_threads();
  if (std::getenv("STRIDED_NUM_THREADS") == nullptr)
    CHECK(initial == strided::detail::hardware_thread_count());
  strided::set_num_threads(3);
  CHECK(strided::num_threads() == 3);
  strided::set_num_threads(1);
  CHECK(strided::num_threads() == 1);
  strided::set_num_threads(0);
  CHECK(strided::num_threads() == initial);
}

Tensor<std::int32_t> iota_tensor(const Shape& shape, std::int32_t start = 0) {
  std::vector<std::int32_t> v(count({shape.begin(), shape.end()}));
  std::iota(v.begin(), v.end(), start);
  return Tensor<std::int32_t>::from_vector(std::move(v), shape).value();
}

TEST_CASE("casts at 1, 2, 3 and 8 threads equal the serial cast, bit for bit") {
  const ThreadsFor restore(0);
  std::mt19937 rng(5);
  // The last size is above the kernels' streaming threshold (8 MiB of f16 output), whose chunks
  // stream because the whole cast does: their unaligned heads and streamed bodies must match too.
  for (std::size_t n : {parallel_threshold_bytes / 4 - 3, parallel_threshold_bytes / 4 + 61,
                        std::size_t{1000003}, (std::size_t{8} << 20) / 2 + 1001}) {
    std::vector<float> f(n);
    for (auto& x : f) x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));  // NaNs too
    const auto t = Tensor<float>::from_vector(f, {n}).value();
    std::vector<std::uint16_t> want_h(n);
    std::vector<std::int8_t> want_i(n);
    strided::detail::cast_contiguous(f.data(), reinterpret_cast<strided::f16*>(want_h.data()), n);
    strided::detail::cast_contiguous(f.data(), want_i.data(), n);
    for (std::size_t threads : {1u, 2u, 3u, 8u}) {
      INFO("n " << n << ", threads " << threads);
      strided::set_num_threads(threads);
      const auto h = t.cast<strided::f16>().value();
      const auto i8 = t.cast<std::int8_t>().value();
      const auto back = h.to_f32().value();
      REQUIRE(std::memcmp(h.as_slice()->data(), want_h.data(), n * 2) == 0);
      REQUIRE(std::memcmp(i8.as_slice()->data(), want_i.data(), n) == 0);
      std::vector<float> want_back(n);
      strided::detail::cast_contiguous(h.as_slice()->data(), want_back.data(), n);
      REQUIRE(std::memcmp(back.as_slice()->data(), want_back.data(), n * 4) == 0);
    }
  }
}

TEST_CASE("batches at 1, 2, 3 and 8 threads equal the serial batch") {
  const ThreadsFor restore(0);
  std::vector<Tensor<std::int32_t>> images, labels, parts, columns;
  for (int i = 0; i < 37; ++i) {
    images.push_back(iota_tensor({3, 40, 41}, i * 7).permute({1, 2, 0}).value());
    labels.push_back(iota_tensor({}, i));
    parts.push_back(iota_tensor({static_cast<std::size_t>(1 + i % 5), 64, 33}, i));
    columns.push_back(iota_tensor({8, 64, static_cast<std::size_t>(1 + i % 5 * 9)}, i));
  }
  std::vector<std::pair<Tensor<std::int32_t>, Tensor<std::int32_t>>> pairs;
  for (std::size_t i = 0; i < 37; ++i) pairs.emplace_back(images[i], labels[i]);
  strided::set_num_threads(1);
  const auto stacked = strided::stack_samples(images).value();
  const auto stacked_axis2 = strided::stack(images, 2).value();
  const auto joined = strided::concat_batches(parts).value();
  const auto joined_axis1 = strided::concat(columns, 2).value();
  const auto two = std::vector<Tensor<std::int32_t>>(images.begin(), images.begin() + 2);
  const auto stacked_two = strided::stack_samples(two).value();
  const auto batch = strided::stack_samples(pairs).value();
  for (std::size_t threads : {2u, 3u, 8u}) {
    INFO("threads " << threads);
    strided::set_num_threads(threads);
    CHECK(strided::equal(strided::stack_samples(images).value(), stacked));
    CHECK(strided::equal(strided::stack(images, 2).value(), stacked_axis2));
    CHECK(strided::equal(strided::concat_batches(parts).value(), joined));
    CHECK(strided::equal(strided::concat(columns, 2).value(), joined_axis1));
    CHECK(strided::equal(strided::stack_samples(two).value(), stacked_two));
    const auto b = strided::stack_samples(pairs).value();
    CHECK(strided::equal(b.first, batch.first));
    CHECK(strided::equal(b.second, batch.second));
  }
  // The serial batches against the samples themselves.
  for (std::size_t i = 0; i < images.size(); ++i)
    REQUIRE(
        strided::equal(stacked.narrow(0, i, 1).value().reshape({40, 41, 3}).value(), images[i]));
}

TEST_CASE("host_slice and copy_to of a large view use the pool and keep the values") {
  const ThreadsFor threads(3);
  const auto t = iota_tensor({300, 500}).transpose(0, 1).value();
  const auto slice = t.host_slice();
  CHECK_FALSE(slice.is_borrowed());
  std::vector<std::int32_t> out(t.numel());
  REQUIRE(t.copy_to(out).has_value());
  bool ok = true;
  for (std::size_t i = 0; i < 500; ++i)
    for (std::size_t j = 0; j < 300; ++j) {
      ok = ok && slice.span()[i * 300 + j] == static_cast<std::int32_t>(j * 500 + i);
      ok = ok && out[i * 300 + j] == static_cast<std::int32_t>(j * 500 + i);
    }
  CHECK(ok);
  CHECK(strided::detail::pool_worker_count() >= 2);
}

// Transposes a 512 x 640 tensor and checks every value: the work of one user thread.
bool transpose_ok(const Tensor<std::int32_t>& t) {
  const auto c = t.transpose(0, 1).value().contiguous();
  const auto v = c.as_slice().value();
  for (std::size_t i = 0; i < 640; ++i)
    for (std::size_t j = 0; j < 512; ++j)
      if (v[i * 512 + j] != static_cast<std::int32_t>(j * 640 + i)) return false;
  return true;
}

TEST_CASE("many user threads at once, and copies from inside a chunk, run without deadlock") {
  const ThreadsFor threads(4);
  const auto t = iota_tensor({512, 640});
  std::atomic<int> failures{0};
  std::vector<std::thread> users;
  for (int u = 0; u < 8; ++u)
    users.emplace_back([&] {
      for (int r = 0; r < 6; ++r)
        if (!transpose_ok(t)) ++failures;
    });
  for (auto& u : users) u.join();
  CHECK(failures == 0);

  // Nested: an executor on its own threads whose chunks each make a large copy themselves (which
  // must run inline on that thread, not call the executor again).
  std::atomic<int> executor_calls{0};
  strided::set_parallel_executor([&](std::size_t n, strided::ChunkRunner run) {
    ++executor_calls;
    std::vector<std::thread> pool;
    for (std::size_t i = 0; i < n; ++i) pool.emplace_back([run, i] { run(i); });
    for (auto& p : pool) p.join();
  });
  std::atomic<std::size_t> chunks_seen{0};
  strided::detail::parallel_for(3, [&](std::size_t) {
    if (transpose_ok(t)) ++chunks_seen;
  });
  CHECK(chunks_seen == 3);
  CHECK(executor_calls == 1);
  strided::set_parallel_executor({});
  std::atomic<std::size_t> pool_chunks{0};
  strided::detail::parallel_for(5, [&](std::size_t) {
    if (transpose_ok(t)) ++pool_chunks;
  });
  CHECK(pool_chunks == 5);
}

TEST_CASE("the executor hook runs every chunk exactly once") {
  const ThreadsFor threads(8);
  std::atomic<int> executor_calls{0};
  strided::set_parallel_executor([&](std::size_t n, strided::ChunkRunner run) {
    ++executor_calls;
    std::vector<std::thread> pool;
    for (std::size_t i = 0; i < n; ++i) pool.emplace_back([run, i, n] { run(n - 1 - i); });
    for (auto& p : pool) p.join();
  });
  std::vector<std::atomic<int>> hits(20);
  strided::detail::parallel_for(20, [&](std::size_t i) { ++hits[i]; });
  CHECK(executor_calls == 1);
  for (auto& h : hits) CHECK(h == 1);
  const auto t = iota_tensor({700, 300});
  const auto want = t.transpose(0, 1).value().to_vector();
  CHECK(executor_calls == 2);
  // In a fresh child: with the executor set, the library's pool is never started.
  CHECK(in_child([&] {
          const bool same = t.transpose(0, 1).value().to_vector() == want;
          return same && strided::detail::pool_worker_count() == 0;
        }) == 0);
  strided::set_parallel_executor({});
  CHECK(t.transpose(0, 1).value().to_vector() == want);
  CHECK(executor_calls == 2);
  CHECK(strided::detail::pool_worker_count() >= 7);
}

TEST_CASE("set_num_threads while copies run") {
  const ThreadsFor restore(0);
  const auto t = iota_tensor({512, 640});
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0}, copies{0};
  std::vector<std::thread> users;
  for (int u = 0; u < 3; ++u)
    users.emplace_back([&] {
      while (!stop) {
        if (!transpose_ok(t)) ++failures;
        ++copies;
      }
    });
  for (std::size_t r = 0; r < 200; ++r) strided::set_num_threads(1 + r % 8);
  while (copies < 30) std::this_thread::yield();
  stop = true;
  for (auto& u : users) u.join();
  CHECK(failures == 0);
}

// The child's checks: a parallel copy (a fresh pool), a cast, the buffer cache; exit code 0 when
// all hold. alarm() turns a deadlock into a failure.
[[noreturn]] void child_checks(const Tensor<std::int32_t>& t) {
  ::alarm(60);
  bool ok = transpose_ok(t) && transpose_ok(t);
  ok = ok && strided::detail::pool_worker_count() == 2;
  const auto big = Tensor<float>::zeros({1024, 1024}).value();  // 4 MiB: the cache's size class
  ok = ok && big.cast<strided::f16>().has_value();
  ::_exit(ok ? 0 : 1);
}

TEST_CASE("fork in the middle of a parallel copy: parent and child keep working") {
  const ThreadsFor threads(3);
  const auto t = iota_tensor({512, 640});
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0}, copies{0};
  std::thread copier([&] {
    while (!stop) {
      if (!transpose_ok(t)) ++failures;
      // Large buffers freed and taken again: the buffer cache's lock is busy too.
      const auto f = Tensor<float>::zeros({1024, 1024}).value();
      ++copies;
    }
  });
  while (copies < 2) std::this_thread::yield();
  for (int round = 0; round < 8; ++round) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) child_checks(t);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    INFO("round " << round << ", status " << status);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  stop = true;
  copier.join();
  CHECK(failures == 0);
  CHECK(transpose_ok(t));
}

// Quoted in docs/performance.md ("Threads"): keep the two in step.
TEST_CASE("docs: turning the threads off, and running chunks on the application's executor") {
  const ThreadsFor restore(0);
  const auto image = iota_tensor({1024, 768});
  strided::set_num_threads(1);  // or STRIDED_NUM_THREADS=1: no pool, every copy on the caller
  const auto serial = image.transpose(0, 1).value().contiguous();
  strided::set_num_threads(0);  // back to the default: STRIDED_NUM_THREADS, else every core
  // An application with its own threads runs the chunks there (TBB: tbb::parallel_for over
  // [0, count); OpenMP: #pragma omp parallel for). Here: one std::thread per chunk.
  strided::set_parallel_executor([](std::size_t count, strided::ChunkRunner run) {
    std::vector<std::thread> workers;
    for (std::size_t i = 0; i < count; ++i) workers.emplace_back([run, i] { run(i); });
    for (auto& w : workers) w.join();
  });
  const auto parallel = image.transpose(0, 1).value().contiguous();  // 3 MiB: 8 chunks or more
  strided::set_parallel_executor({});                                // back to the library's pool
  CHECK(strided::equal(serial, parallel));
}

}  // namespace
