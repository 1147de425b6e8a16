// Helpers shared by the tests: the seed every randomised test starts from, random shapes and
// reshape targets, and the ISA levels a kernel test iterates over.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "catch_shim.hpp"
#include "strided/detail/simd/isa.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"

namespace strided_test {

/// `r` is the error `kind` with exactly `message`.
template <class T>
void check_error(const strided::Result<T>& r, strided::ShapeErrorKind kind,
                 const std::string& message) {
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().kind() == kind);
  CHECK(r.error().message() == message);
}

/// The rank-22 permute of 2s the benchmarks time (bench/parallel_bench.cpp): destination axis k is
/// axis perm[k] of a row-major source of 2^22 elements; strides in elements.
struct Rank22Permute {
  std::vector<std::size_t> shape = std::vector<std::size_t>(22, 2);
  std::vector<std::ptrdiff_t> src_strides = std::vector<std::ptrdiff_t>(22);
  std::vector<std::ptrdiff_t> dst_strides = std::vector<std::ptrdiff_t>(22);

  Rank22Permute() {
    constexpr std::size_t perm[22] = {21, 3,  17, 0, 9,  12, 5,  1, 20, 14, 7,
                                      2,  19, 11, 4, 16, 8,  13, 6, 18, 10, 15};
    for (std::size_t k = 0; k < 22; ++k) {
      src_strides[k] = std::ptrdiff_t{1} << (21 - perm[k]);
      dst_strides[k] = std::ptrdiff_t{1} << (21 - k);
    }
  }
};

/// STRIDED_TEST_SEED when it is set (to replay a failure), else a fresh seed.
inline std::uint64_t test_seed() {
  const char* fixed = std::getenv("STRIDED_TEST_SEED");
  if (fixed != nullptr && *fixed != '\0') return std::stoull(fixed);
  return std::random_device{}();
}

using Rng = std::mt19937_64;

/// A number in [0, below).
inline std::size_t pick(Rng& rng, std::size_t below) {
  return std::uniform_int_distribution<std::size_t>(0, below - 1)(rng);
}

/// The product of the sizes (unchecked: the shapes here are small).
inline std::size_t product(const strided::Shape& s) {
  std::size_t n = 1;
  for (std::size_t d : s) n *= d;
  return n;
}

/// Row-major successor of `index` in `shape`; false after the last (a rank-0 shape has one).
inline bool next_index(strided::Shape& index, const strided::Shape& shape) {
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (++index[k] < shape[k]) return true;
    index[k] = 0;
  }
  return false;
}

/// Rank 0..8, sizes 1..4 with an occasional 0, at most `max_numel` elements.
inline strided::Shape random_shape(Rng& rng, std::size_t max_numel) {
  while (true) {
    strided::Shape s(pick(rng, 9), 0);
    for (auto& d : s) d = pick(rng, 10) == 0 ? 0 : 1 + pick(rng, 4);
    if (product(s) <= max_numel) return s;
  }
}

/// A random factorisation of the element count of `shape` into a new shape of rank at most 8,
/// with size-1 axes sprinkled in.
inline strided::Shape random_reshape_target(Rng& rng, const strided::Shape& shape) {
  std::vector<std::size_t> primes;
  std::size_t n = product(shape);
  if (n == 0) {
    strided::Shape s = random_shape(rng, 64);
    s.insert(pick(rng, s.size() + 1), 0);
    return s;
  }
  for (std::size_t p = 2; n > 1; ++p)
    while (n % p == 0) primes.push_back(p), n /= p;
  std::shuffle(primes.begin(), primes.end(), rng);
  strided::Shape out;
  for (std::size_t p : primes) {
    if (!out.empty() && pick(rng, 2) == 0)
      out.back() *= p;
    else
      out.push_back(p);
    if (pick(rng, 5) == 0 && out.size() < 8) out.push_back(1);
  }
  while (out.size() > 8) {  // keep rank bounded: merge the last two axes
    const std::size_t last = out.back();
    out.erase(out.size() - 1);
    out.back() *= last;
  }
  return out;
}

/// `l` under enough new leading axes of size 1 to pass inline_rank: the same elements in the same
/// order, whose view ops take their general paths (a rank past inline_rank never takes a quick
/// one), to compare with the quick paths `l` takes. `added` is how many axes were put in front.
inline strided::Layout deepened(strided::Layout l, std::size_t& added) {
  added = 0;
  for (; l.rank() <= strided::inline_rank; ++added) l = l.unsqueeze(0).value();
  return l;
}

/// A random valid layout with at most `max_numel` elements: row-major, permuted, sliced with a
/// step, or with arbitrary strides on its size-1 axes, at a small offset.
inline strided::Layout random_layout(Rng& rng, std::size_t max_numel) {
  const strided::Shape shape = random_shape(rng, max_numel);
  strided::Layout l = strided::Layout::contiguous(shape, pick(rng, 4)).value();
  switch (pick(rng, 4)) {
    case 0:
      return l;
    case 1: {
      strided::Shape perm(l.rank(), 0);
      for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = k;
      std::shuffle(perm.begin(), perm.end(), rng);
      return l.permute(perm).value();
    }
    case 2:
      if (l.rank() == 0) return l;
      return l.slice(pick(rng, l.rank()), 0, strided::slice_end, pick(rng, 2) == 0 ? 2 : -1)
          .value();
    default: {
      strided::Strides steps = l.strides();
      for (std::size_t k = 0; k < l.rank(); ++k)
        if (l.shape()[k] == 1) steps[k] = static_cast<std::ptrdiff_t>(pick(rng, 100)) - 50;
      return strided::Layout::from_parts(l.shape(), steps, l.offset()).value();
    }
  }
}

/// `quick` and `general` are the same view op's results from a layout and from its deepened form,
/// whose result keeps `added` more leading axes (0 for a reshape, which drops them). Both succeed,
/// with the same axes after those, or both fail with the same kind.
inline void require_same_view(const strided::Result<strided::Layout>& quick,
                              const strided::Result<strided::Layout>& general, std::size_t added) {
  REQUIRE(quick.has_value() == general.has_value());
  if (!quick) {
    CHECK(quick.error().kind() == general.error().kind());
    return;
  }
  REQUIRE(general->rank() == quick->rank() + added);
  for (std::size_t k = 0; k < quick->rank(); ++k) {
    CHECK(general->shape()[added + k] == quick->shape()[k]);
    CHECK(general->strides()[added + k] == quick->strides()[k]);
  }
  CHECK(general->offset() == quick->offset());
}

/// How many ISA levels this architecture has (scalar, then avx2 and avx512, or neon).
inline constexpr int architecture_levels = STRIDED_X86 ? 3 : STRIDED_NEON ? 2 : 1;

/// True when the CPU runs `level`; a level it lacks is reported (a warning naming `what` is
/// untested), so that a green run on a smaller machine does not pass for a full one.
inline bool level_runs(strided::detail::Isa level, const char* what) {
  if (static_cast<int>(level) < strided::detail::available_isa_count()) return true;
  WARN("ISA level " << std::string(strided::detail::isa_name(level))
                    << " is not available on this CPU: its " << what << " are not tested");
  return false;
}

/// The levels this CPU runs, counted from scalar; each missing one reported as level_runs does.
inline int testable_levels(const char* what) {
  int n = 0;
  for (int l = 0; l < architecture_levels; ++l)
    if (level_runs(static_cast<strided::detail::Isa>(l), what)) n = l + 1;
  return n;
}

}  // namespace strided_test

/// Declares `name`, the seed of a randomised test, and prints it with every failure below it in
/// the same scope, with how to replay it.
#define STRIDED_TEST_RANDOM_SEED(name)                    \
  const std::uint64_t name = ::strided_test::test_seed(); \
  INFO("seed " << name << " (set STRIDED_TEST_SEED=" << name << " to replay)")

namespace strided_test {

/// Runs `check(l, deep, added, rng)` on `rounds` random layouts `l` (random_layout), each beside
/// its deepened form `deep` with `added` leading axes, from a printed, replayable seed.
template <class Check>
void for_random_layouts(int rounds, Check&& check) {
  STRIDED_TEST_RANDOM_SEED(seed);
  Rng rng(seed);
  for (int round = 0; round < rounds; ++round) {
    const strided::Layout l = random_layout(rng, 256);
    std::size_t added = 0;
    const strided::Layout deep = deepened(l, added);
    check(l, deep, added, rng);
  }
}

}  // namespace strided_test
