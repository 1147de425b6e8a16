// Allocation-failure injection: this binary replaces the global operator new/delete family
// (plain, array, nothrow and aligned forms) with a counting version that can fail the k-th
// allocation. Each allocating entry point is run once to count its allocations N, then N more
// times with allocation k = 1..N failing, and must give the documented outcome every time
// (design §3): Result-returning functions report allocation_failed (DataError / IoError kind
// allocation_failed, wrapping the ShapeError, where those are the error type), functions
// returning a plain value throw
// std::bad_alloc; nothing else escapes. Leaks are found by LeakSanitizer in the ASan builds
// (the replacement allocates with malloc, which LSan tracks).
#if defined(__GNUC__) && !defined(__clang__)
// g++ sees free() in the replaced operator delete and malloc() behind the replaced operator new
// as a mismatch; they are this file's own matching pair.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "catch_shim.hpp"
#include "strided/batch.hpp"
#include "strided/io/npy.hpp"
#include "strided/map.hpp"
#include "strided/tensor.hpp"
#if defined(STRIDED_HAVE_NLOHMANN_JSON)
#include "strided/io/safetensors.hpp"
#endif
#if defined(STRIDED_HAVE_DLPACK)
#include "strided/interop/dlpack.hpp"
#endif
#include "thread_support.hpp"

// ----- the counting allocator ------------------------------------------------------------------

namespace {

std::atomic<long> g_count{0};    // allocations since arming
std::atomic<long> g_fail_at{0};  // fail this one (1-based); 0: disarmed
std::atomic<bool> g_failed{false};

bool inject() noexcept {
  const long at = g_fail_at.load(std::memory_order_relaxed);
  if (at == 0) return false;
  const long n = g_count.fetch_add(1, std::memory_order_relaxed) + 1;
  if (n != at) return false;
  g_failed.store(true, std::memory_order_relaxed);
  return true;
}

void* raw_alloc(std::size_t n, std::size_t align) noexcept {
  if (n == 0) n = 1;
  if (align <= alignof(std::max_align_t)) return std::malloc(n);
  void* p = nullptr;
  return posix_memalign(&p, align, n) == 0 ? p : nullptr;
}

void* alloc_or_throw(std::size_t n, std::size_t align) {
  if (inject()) throw std::bad_alloc();
  void* p = raw_alloc(n, align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* alloc_or_null(std::size_t n, std::size_t align) noexcept {
  return inject() ? nullptr : raw_alloc(n, align);
}

}  // namespace

void* operator new(std::size_t n) { return alloc_or_throw(n, 0); }
void* operator new[](std::size_t n) { return alloc_or_throw(n, 0); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return alloc_or_null(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return alloc_or_null(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) {
  return alloc_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return alloc_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return alloc_or_null(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return alloc_or_null(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

// ----- the driver ------------------------------------------------------------------------------

namespace {

using strided::DataErrorKind;
using strided::IoErrorKind;
using strided::Shape;
using strided::ShapeErrorKind;
using strided::Tensor;

enum class Outcome { ok, allocation_failed, bad_alloc, other_error };

const char* name(Outcome o) {
  switch (o) {
    case Outcome::ok:
      return "ok";
    case Outcome::allocation_failed:
      return "allocation_failed";
    case Outcome::bad_alloc:
      return "std::bad_alloc";
    case Outcome::other_error:
      return "another error";
  }
  return "?";
}

template <class T>
Outcome classify(const strided::Result<T, strided::ShapeError>& r) {
  if (r) return Outcome::ok;
  return r.error().kind() == ShapeErrorKind::allocation_failed ? Outcome::allocation_failed
                                                               : Outcome::other_error;
}
template <class T>
Outcome classify(const strided::Result<T, strided::DataError>& r) {
  if (r) return Outcome::ok;
  return r.error().kind() == DataErrorKind::allocation_failed &&
                 r.error().shape_error() != nullptr &&
                 r.error().shape_error()->kind() == ShapeErrorKind::allocation_failed
             ? Outcome::allocation_failed
             : Outcome::other_error;
}
template <class T>
Outcome classify(const strided::Result<T, strided::IoError>& r) {
  if (r) return Outcome::ok;
  return r.error().kind() == IoErrorKind::allocation_failed && r.error().shape_error() != nullptr &&
                 r.error().shape_error()->kind() == ShapeErrorKind::allocation_failed
             ? Outcome::allocation_failed
             : Outcome::other_error;
}

/// For a call that must fail with `kind` when memory suffices: ok for that error, and
/// allocation_failed when building the error (or anything before it) ran out of memory.
template <class T>
Outcome expect_error(const strided::Result<T, strided::ShapeError>& r, ShapeErrorKind kind) {
  if (r) return Outcome::other_error;
  if (r.error().kind() == kind) return Outcome::ok;
  return classify(r);
}

/// Runs `f` with injection paused (for the test's own allocations inside a checked call).
template <class F>
auto unfailed(F f) {
  const long saved = g_fail_at.exchange(0);
  auto out = f();
  g_fail_at = saved;
  return out;
}

struct Report {
  long allocations = 0;                         // of the unfailed run
  long runs = 0;                                // runs with an injected failure
  std::vector<std::pair<long, Outcome>> wrong;  // k and what came back
};

/// Runs `call` (returning an Outcome) unfailed, then with each of its allocations failing in
/// turn. `expected`: the outcome every failed run must give.
template <class Call>
Report every_k(Call call, Outcome expected) {
  Report rep;
  auto run = [&](long fail_at) {
    g_count = 0;
    g_failed = false;
    g_fail_at = fail_at;
    Outcome out = Outcome::other_error;
    try {
      out = call();
    } catch (const std::bad_alloc&) {
      out = Outcome::bad_alloc;
    }
    g_fail_at = 0;
    return out;
  };
  const Outcome clean = run(std::numeric_limits<long>::max());
  rep.allocations = g_count;
  REQUIRE(clean == Outcome::ok);
  for (long k = 1; k <= rep.allocations; ++k) {
    const Outcome out = run(k);
    if (!g_failed) {
      if (out != Outcome::ok) rep.wrong.emplace_back(k, out);
      continue;
    }
    ++rep.runs;
    // ok: the failed allocation was optional (a scratch buffer with a fallback path).
    if (out != expected && out != Outcome::ok) rep.wrong.emplace_back(k, out);
  }
  for (const auto& [k, out] : rep.wrong)
    std::fprintf(stderr, "  allocation %ld of %ld failing gave %s, not %s\n", k, rep.allocations,
                 name(out), name(expected));
  return rep;
}

#define CHECK_EVERY_K(call, expected)                                                           \
  do {                                                                                          \
    const Report rep_ = every_k(call, expected);                                                \
    INFO(#call << ": " << rep_.allocations << " allocations, " << rep_.runs << " failed runs"); \
    for (const auto& [k_, out_] : rep_.wrong)                                                   \
      UNSCOPED_INFO("allocation " << k_ << " failing gave " << name(out_) << ", not "           \
                                  << name(expected));                                           \
    CHECK(rep_.allocations > 0);                                                                \
    CHECK(rep_.wrong.empty());                                                                  \
  } while (0)

const Outcome kResult = Outcome::allocation_failed;  // Result-returning functions
const Outcome kThrows = Outcome::bad_alloc;          // plain-value functions

Tensor<float> matrix(std::size_t rows, std::size_t cols) {
  std::vector<float> v(rows * cols);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return Tensor<float>::from_vector(std::move(v), {rows, cols}).value();
}

}  // namespace

TEST_CASE("allocation failure: factories report allocation_failed", "[alloc]") {
  const std::vector<float> data(12, 1.0f);
  const std::vector<bool> bits(12, true);
  CHECK_EVERY_K(
      [&] {
        auto copy = unfailed([&] { return data; });
        return classify(Tensor<float>::from_vector(std::move(copy), {3, 4}));
      },
      kResult);
  CHECK_EVERY_K(
      [&] {
        auto copy = unfailed([&] { return bits; });
        return classify(Tensor<bool>::from_vector(std::move(copy), {3, 4}));
      },
      kResult);
  CHECK_EVERY_K([&] { return classify(Tensor<float>::from_slice(data, {3, 4})); }, kResult);
  CHECK_EVERY_K([&] { return classify(Tensor<float>::zeros({3, 4})); }, kResult);
  CHECK_EVERY_K([&] { return classify(Tensor<double>::ones({3, 4})); }, kResult);
  CHECK_EVERY_K([&] { return classify(Tensor<std::int8_t>::full({3, 4}, 7)); }, kResult);
}

// Finding F5 (fixed): with more than strided::inline_rank axes a Shape lives on the heap, so
// copying one inside a Result function could let std::bad_alloc escape. Every public Result
// function now runs through detail::guard_allocations; these cases cover each kind of function at
// rank 10.
static_assert(strided::inline_rank < 10, "the heap cases below need a rank past the inline one");

TEST_CASE("allocation failure: factories with rank > inline_rank (heap shapes)", "[alloc]") {
  const Shape shape{1, 2, 1, 2, 1, 3, 1, 1, 1, 1};
  const std::vector<float> data(12, 1.0f);
  CHECK_EVERY_K([&] { return classify(Tensor<float>::from_slice(data, shape)); }, kResult);
  CHECK_EVERY_K([&] { return classify(Tensor<float>::zeros(shape)); }, kResult);
  CHECK_EVERY_K(
      [&] {
        auto copy = unfailed([&] { return data; });
        return classify(Tensor<float>::from_vector(std::move(copy), shape));
      },
      kResult);
  // The error paths copy shapes too (into the ShapeError).
  CHECK_EVERY_K(
      [&] {
        return expect_error(Tensor<float>::from_slice(std::span(data).first(5), shape),
                            ShapeErrorKind::element_count_mismatch);
      },
      kResult);
}

TEST_CASE("allocation failure: views, copy_to and casts with rank > inline_rank", "[alloc]") {
  const Tensor<float> t =
      Tensor<float>::zeros({2, 1, 2, 1, 3, 1, 1, 2, 1, 1}).value().transpose(0, 4).value();
  std::vector<float> out(t.numel());
  // Arguments of more than inline_rank axes are built here, outside the injected calls.
  const Shape reversed{9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
  const Shape reshaped{3, 2, 2, 2, 1, 1, 1, 1, 1, strided::infer};
  const Shape wider{2, 3, 1, 2, 1, 2, 1, 1, 2, 1, 1};
  CHECK_EVERY_K([&] { return classify(t.transpose(1, 7)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.permute(reversed)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.narrow(0, 1, 2)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.reshape(reshaped)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.broadcast_to(wider)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.broadcast_with(t)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.slice(0, 0, strided::slice_end, 2)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.flip(Shape{0, 2})); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.unsqueeze(3)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.select(0, 1)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.flatten(6, 7)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.movedim(0, 7)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.diagonal(0, 2, 7)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.split(2, 1)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.as_strided(t.shape(), t.strides(), t.offset())); },
                kResult);
  CHECK_EVERY_K([&] { return classify(t.copy_to(out)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.cast<double>()); }, kResult);
  CHECK_EVERY_K([&] { return classify(strided::Layout::contiguous(t.shape())); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.layout().transpose(0, 7)); }, kResult);
  // An error whose context holds the rank-10 shape.
  CHECK_EVERY_K([&] { return expect_error(t.transpose(0, 10), ShapeErrorKind::axis_out_of_range); },
                kResult);
}

// A large transpose of bytes goes through a BlockStage (copy/transpose.hpp, streaming forced
// here); when its buffers cannot be had, it runs unstaged, with the same result. One thread, so
// that the copy is a single serial one (no pool to allocate).
TEST_CASE("allocation failure: a staged transpose runs unstaged without its buffers", "[alloc]") {
  constexpr std::size_t rows = 520, cols = 530;  // both over the stage's 512 bytes
  std::vector<std::uint8_t> values(rows * cols), want(rows * cols), out(rows * cols);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<std::uint8_t>(k * 7);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) want[c * rows + r] = values[r * cols + c];
  const Tensor<std::uint8_t> t = Tensor<std::uint8_t>::from_vector(std::move(values), {rows, cols})
                                     .value()
                                     .transpose(0, 1)
                                     .value();
  const auto copy = [&] {
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    const Outcome o = classify(t.copy_to(out));
    return o == Outcome::ok && out != want ? Outcome::other_error : o;
  };
  const strided_test::ScopedThreadCount one_thread(1);
  const Report plain = every_k(copy, kResult);  // in cache: not staged
  const strided::detail::copy_impl::ScopedStreamThreshold all_streaming(0);
  const Report staged = every_k(copy, kResult);
  CHECK(plain.wrong.empty());
  CHECK(staged.wrong.empty());
  // The stage is one allocation more, where there are lanes kernels to stage for, and its
  // failure is not reported: the copy runs unstaged.
  const bool lanes = STRIDED_X86 && strided::detail::copy_impl::can_stream();
  CHECK(staged.allocations == plain.allocations + (lanes ? 1 : 0));
}

// A small copy's fixed cost: copy_to of views that plan to each kernel kind allocates nothing
// (planning once sorted its axes with std::stable_sort, whose buffer is a heap allocation).
TEST_CASE("copy_to of small views allocates nothing", "[alloc]") {
  std::vector<float> values(2 * 4 * 8 * 8 * 16);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<float>(k);
  const auto tensor = [&](const Shape& shape) {
    std::size_t n = 1;
    for (const std::size_t e : shape) n *= e;
    return Tensor<float>::from_vector({values.begin(), values.begin() + std::ptrdiff_t(n)}, shape)
        .value();
  };
  const Tensor<float> base = tensor({96, 80}), image = tensor({1, 32, 16, 16}),
                      cube = tensor({2, 4, 8, 8, 16});
  const std::vector<Tensor<float>> views = {
      base.transpose(0, 1).value(),                     // transpose
      image.permute(Shape{0, 2, 3, 1}).value(),         // NCHW -> NHWC
      base.slice(1, 8, 72).value(),                     // narrow: row-wise memcpy
      base.slice(1, 0, strided::slice_end, 3).value(),  // strided
      cube.permute(Shape{0, 3, 1, 4, 2}).value(),       // rank-5 permute
      base.flip(Shape{0}).value().transpose(0, 1).value()};
  std::vector<float> out(values.size());
  for (const Tensor<float>& v : views) {
    CAPTURE(v.shape());
    const std::span<float> into(out.data(), v.numel());
    const Report r = every_k([&] { return classify(v.copy_to(into)); }, kResult);
    CHECK(r.allocations == 0);
  }
}

TEST_CASE("allocation failure: scalar, contiguous, to_vector, host_slice throw bad_alloc",
          "[alloc]") {
  const Tensor<float> t = matrix(5, 7).transpose(0, 1).value();  // not contiguous
  CHECK_EVERY_K(
      [] { return Tensor<float>::scalar(2.0f).numel() == 1 ? Outcome::ok : Outcome::other_error; },
      kThrows);
  CHECK_EVERY_K([&] { return t.contiguous().is_contiguous() ? Outcome::ok : Outcome::other_error; },
                kThrows);
  CHECK_EVERY_K([&] { return t.to_vector().size() == 35 ? Outcome::ok : Outcome::other_error; },
                kThrows);
  CHECK_EVERY_K([&] { return t.host_slice().size() == 35 ? Outcome::ok : Outcome::other_error; },
                kThrows);
}

TEST_CASE("allocation failure: casts report allocation_failed", "[alloc]") {
  const Tensor<float> dense = matrix(4, 6);
  const Tensor<float> view = dense.transpose(0, 1).value();
  CHECK_EVERY_K([&] { return classify(dense.cast<double>()); }, kResult);
  CHECK_EVERY_K([&] { return classify(view.cast<strided::f16>()); }, kResult);
  CHECK_EVERY_K([&] { return classify(view.cast<std::int32_t>()); }, kResult);
  const Tensor<std::int16_t> ints = Tensor<std::int16_t>::full({3, 3}, 5).value();
  CHECK_EVERY_K([&] { return classify(ints.to_f32()); }, kResult);
}

TEST_CASE("allocation failure: batches report DataError allocation_failed", "[alloc]") {
  const std::vector<Tensor<float>> samples{matrix(2, 3), matrix(2, 3).flip(0).value(),
                                           matrix(2, 3)};
  CHECK_EVERY_K([&] { return classify(strided::stack_samples(samples)); }, kResult);
  CHECK_EVERY_K([&] { return classify(strided::concat_batches(samples)); }, kResult);
  CHECK_EVERY_K([&] { return classify(strided::stack(samples, 1)); }, kResult);
  CHECK_EVERY_K([&] { return classify(strided::concat(samples, 1)); }, kResult);
  const Tensor<std::int64_t> label = Tensor<std::int64_t>::full({1}, 3).value();
  const std::vector<std::pair<Tensor<float>, Tensor<std::int64_t>>> pairs{{matrix(2, 3), label},
                                                                          {matrix(2, 3), label}};
  CHECK_EVERY_K([&] { return classify(strided::stack_samples(pairs)); }, kResult);
}

TEST_CASE("allocation failure: load_npy_bytes reports IoError allocation_failed", "[alloc]") {
  const auto bytes = strided::save_npy_bytes(matrix(3, 5)).value();
  CHECK_EVERY_K(
      [&] { return classify(strided::load_npy_bytes<float>(std::span<const std::byte>(bytes))); },
      kResult);
  const Tensor<float> view = matrix(3, 5).transpose(0, 1).value();  // saved through a copy
  CHECK_EVERY_K([&] { return classify(strided::save_npy_bytes(view)); }, kResult);
  const auto deep =
      strided::save_npy_bytes(Tensor<float>::zeros({1, 2, 1, 2, 1, 1, 3, 1, 1, 1}).value());
  CHECK_EVERY_K(
      [&] {
        return classify(strided::load_npy_bytes<float>(std::span<const std::byte>(deep.value())));
      },
      kResult);
}

// Finding F6 (fixed): split/chunk/unbind build a std::vector; its exhaustion is allocation_failed.
TEST_CASE("allocation failure: split, chunk, unbind report allocation_failed", "[alloc]") {
  const Tensor<float> t = matrix(6, 4);
  CHECK_EVERY_K([&] { return classify(t.split(0, 2)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.chunk(1, 2)); }, kResult);
  CHECK_EVERY_K([&] { return classify(t.unbind(0)); }, kResult);
}

// Finding F8 (fixed): SafetensorsFile::from_bytes let std::bad_alloc reach a noexcept boundary,
// and copy_bytes reported exhaustion as invalid_argument.
#if defined(STRIDED_HAVE_NLOHMANN_JSON)
TEST_CASE("allocation failure: safetensors from_bytes and get report allocation_failed",
          "[alloc]") {
  std::vector<strided::SafetensorsEntry> entries;
  entries.emplace_back("w", matrix(3, 4));
  const auto bytes = strided::save_safetensors_bytes(entries).value();
  CHECK_EVERY_K(
      [&] {
        auto file = strided::SafetensorsFile::from_bytes(std::span<const std::byte>(bytes));
        if (!file) return classify(file);
        return classify(file->get<float>("w"));
      },
      kResult);
  const std::map<std::string, std::string> metadata{{"format", "pt"}, {"step", "12"}};
  CHECK_EVERY_K([&] { return classify(strided::save_safetensors_bytes(entries, metadata)); },
                kResult);
  // A rank-10 entry: its shape lives on the heap while the header is parsed and validated.
  std::vector<strided::SafetensorsEntry> deep;
  deep.emplace_back("d", Tensor<float>::zeros({1, 2, 1, 2, 1, 1, 3, 1, 1, 1}).value());
  const auto deep_bytes = strided::save_safetensors_bytes(deep).value();
  CHECK_EVERY_K(
      [&] {
        return classify(strided::parse_safetensors_header(std::span<const std::byte>(deep_bytes)));
      },
      kResult);
}
#endif

#if defined(STRIDED_HAVE_DLPACK)
TEST_CASE("allocation failure: DLPack export", "[alloc]") {
  const Tensor<float> t = matrix(3, 4).transpose(0, 1).value();
  // to_dlpack is noexcept and reports exhaustion as nullptr.
  CHECK_EVERY_K(
      [&] {
        DLManagedTensor* m = strided::to_dlpack(t);
        if (m == nullptr) return Outcome::allocation_failed;
        m->deleter(m);
        return Outcome::ok;
      },
      kResult);
}

// Finding F7 (fixed): from_dlpack reported a failed allocation as invalid_argument. The
// producer's deleter runs in every case (LSan finds no leak).
TEST_CASE("allocation failure: DLPack import", "[alloc]") {
  const Tensor<float> t = matrix(3, 4).transpose(0, 1).value();
  CHECK_EVERY_K(
      [&] {
        const long saved = g_fail_at.exchange(0);
        DLManagedTensor* m = strided::to_dlpack(t);
        g_fail_at = saved;
        if (m == nullptr) return Outcome::other_error;
        auto r = strided::from_dlpack<float>(m);
        return classify(r);
      },
      kResult);
}
#endif

namespace {
// Runs `call` with its first allocation failing, and returns what it returned.
template <class Call>
auto first_allocation_fails(Call call) {
  g_count = 0;
  g_fail_at = 1;
  auto r = call();
  g_fail_at = 0;
  return r;
}
}  // namespace

TEST_CASE("allocation failure: views up to inline_rank allocate nothing", "[alloc]") {
  // The first allocation fails: a view that allocated would return allocation_failed. Results of
  // rank 7 and 8 included, such as unsqueeze and unflatten of a rank-6 tensor.
  static_assert(strided::inline_rank == 8);
  const Tensor<float> t6 = Tensor<float>::zeros({2, 3, 2, 1, 2, 2}).value();
  const Tensor<float> t8 = t6.unsqueeze(6).value().unsqueeze(0).value();
  const Tensor<float> rows = t8.transpose(1, 2).value();  // not row-major
  const Shape eight{2, 3, 2, 1, 2, 1, 2, 1};
  const Shape wider{4, 1, 2, 3, 2, 1, 2, 2};
  const Shape reversed{7, 6, 5, 4, 3, 2, 1, 0};
  auto allocates_nothing = [](auto call) {
    return classify(first_allocation_fails(call)) == Outcome::ok;
  };
  CHECK(allocates_nothing([&] { return t6.unsqueeze(6); }));
  CHECK(allocates_nothing([&] { return t8.squeeze(4); }));
  CHECK(allocates_nothing([&] { return t6.unflatten(0, Shape{1, 2}); }));
  CHECK(allocates_nothing([&] { return t6.unflatten(1, Shape{1, 3, 1}); }));
  CHECK(allocates_nothing([&] { return t6.reshape(eight); }));
  CHECK(allocates_nothing([&] { return t6.broadcast_to(wider); }));
  CHECK(allocates_nothing([&] { return t8.permute(reversed); }));
  CHECK(allocates_nothing([&] { return t8.reshape(Shape{6, strided::infer}); }));
  CHECK(allocates_nothing([&] { return rows.reshape(Shape{3, 2, 2, 2, 2, 1}); }));
  CHECK(allocates_nothing([&] { return t8.flatten(2, 5); }));
  CHECK(allocates_nothing([&] { return t8.movedim(0, 7); }));
  CHECK(allocates_nothing([&] { return t8.diagonal(0, 1, 3); }));
  CHECK(allocates_nothing([&] { return t8.flip(Shape{0, 7}); }));
  CHECK(allocates_nothing([&] { return t8.slice(2, 0, strided::slice_end, 2); }));
  CHECK(allocates_nothing([&] { return t8.select(2, 1); }));
  CHECK(allocates_nothing([&] { return t8.narrow(2, 1, 1); }));
  CHECK(allocates_nothing([&] { return t8.transpose(1, 6); }));
  CHECK(allocates_nothing([&] { return t8.squeeze(); }));
  // The control: past the inline rank the same view allocates, and the guard reports it.
  CHECK_FALSE(allocates_nothing([&] { return t8.unsqueeze(0); }));
}

TEST_CASE("allocation failure: the out-of-memory messages", "[alloc]") {
  const Tensor<float> t = Tensor<float>::zeros({2, 1, 2, 1, 3, 1, 1, 2, 1, 1}).value();
  const auto view = first_allocation_fails([&] { return t.transpose(0, 7); });
  REQUIRE(!view);
  CHECK(view.error().kind() == ShapeErrorKind::allocation_failed);
  CHECK(view.error().message() == "transpose: out of memory");
  const std::vector<Tensor<float>> samples{t, t};
  const auto batch = first_allocation_fails([&] { return strided::stack_samples(samples); });
  REQUIRE(!batch);
  CHECK(batch.error().message() == "stack_samples: out of memory");
  const auto bytes = strided::save_npy_bytes(t).value();
  const auto loaded = first_allocation_fails(
      [&] { return strided::load_npy_bytes<float>(std::span<const std::byte>(bytes)); });
  REQUIRE(!loaded);
  CHECK(loaded.error().kind() == IoErrorKind::allocation_failed);
  CHECK(loaded.error().code() == IoErrorKind::allocation_failed);
  // The public function called names the error, though its header parse ran out first.
  CHECK(std::string(loaded.error().op()) == "load_npy_bytes");
  CHECK(std::string(loaded.error().shape_error()->op()) == "load_npy_bytes");
  CHECK(loaded.error().message() == "load_npy_bytes: <memory>: out of memory");
}

TEST_CASE("allocation failure: map and zip_with report allocation_failed before calling f",
          "[alloc][map]") {
  // A transposed view (copied through scratch) and a rank-10 broadcast (a Shape on the heap).
  const Tensor<float> t = matrix(300, 200).transpose(0, 1).value();
  const Tensor<float> mean = Tensor<float>::from_vector({1, 2, 3}, {3, 1, 1, 1, 1, 1}).value();
  const Tensor<float> big = Tensor<float>::zeros({1, 1, 1, 2, 3, 1, 2, 1, 2, 4}).value();
  long calls_in_failed_runs = 0;
  auto counted = [&](float v) {
    if (g_failed) ++calls_in_failed_runs;
    return v * 2;
  };
  auto add = [&](float x, float y) {
    if (g_failed) ++calls_in_failed_runs;
    return x + y;
  };
  CHECK_EVERY_K([&] { return classify(strided::map(t, counted)); }, kResult);
  CHECK_EVERY_K([&] { return classify(strided::zip_with(add, t, t)); }, kResult);
  CHECK_EVERY_K([&] { return classify(strided::zip_with(add, big, mean)); }, kResult);
  // A run whose allocation failed but still succeeded did so through a fallback, and there f
  // may run, but the result must be the whole sum; every run that reported allocation_failed
  // returned before f was called.
  const Tensor<float> expected = strided::zip_with(add, t, t).value();
  g_count = 0;
  for (long k = 1;; ++k) {
    g_failed = false;
    calls_in_failed_runs = 0;
    g_count = 0;
    g_fail_at = k;
    const auto r = strided::zip_with(add, t, t);
    g_fail_at = 0;
    if (!g_failed) break;
    if (r) {  // the copy engine's optional scratch failed: it fell back
      CHECK(strided::equal(*r, expected));
      continue;
    }
    CHECK(r.error().kind() == ShapeErrorKind::allocation_failed);
    CHECK(calls_in_failed_runs == 0);
  }
}

TEST_CASE("allocation failure: cast_into and copy_to into a TensorSpan never fail for memory",
          "[alloc]") {
  // A transposed source: cast_into restages it through the element-wise engine's scratch, and
  // falls back to a walk staged on the stack when any of that memory is refused.
  const Tensor<float> t = matrix(300, 200).transpose(0, 1).value();
  const Tensor<double> expected = t.cast<double>().value();
  std::vector<double> out(t.numel());
  const auto dst = strided::TensorSpan<double>::dense(out, t.shape()).value();
  const auto same = [&] {
    const auto got = Tensor<double>::from_vector(out, t.shape()).value();
    return strided::equal(got, expected);
  };
  CHECK_EVERY_K(
      [&] {
        std::fill(out.begin(), out.end(), -1.0);
        const auto r = t.cast_into(dst);
        const bool fine = r && (g_fail_at = 0, same());
        return fine ? Outcome::ok : Outcome::other_error;
      },
      Outcome::ok);
  std::vector<float> copied(t.numel());
  const auto fdst = strided::TensorSpan<float>::dense(copied, t.shape()).value();
  const auto r = t.copy_to(fdst);
  REQUIRE(r.has_value());
  CHECK(strided::equal(Tensor<float>::from_vector(copied, t.shape()).value(), t));
}

// The twins for code that must not throw (docs/errors.md, "Running out of memory").
TEST_CASE("allocation failure: try_contiguous, full({}, v) and copy_to report allocation_failed",
          "[alloc]") {
  const Tensor<float> t = matrix(5, 7).transpose(0, 1).value();  // not contiguous
  const Tensor<float> deep = Tensor<float>::zeros({2, 1, 2, 1, 3, 1, 1, 2, 1, 1}).value();
  const Tensor<float> deep_view = deep.transpose(0, 4).value();
  CHECK_EVERY_K([&] { return classify(t.try_contiguous()); }, kResult);
  CHECK_EVERY_K([&] { return classify(deep_view.try_contiguous()); }, kResult);
  CHECK_EVERY_K([&] { return classify(deep.try_contiguous()); }, kResult);  // the shared copy
  CHECK_EVERY_K([] { return classify(Tensor<float>::full({}, 2.0f)); }, kResult);
  const auto failed = first_allocation_fails([&] { return t.try_contiguous(); });
  REQUIRE(!failed);
  CHECK(failed.error().message() == "try_contiguous: could not allocate a buffer of 35 elements");
}
