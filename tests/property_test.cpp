// Property test: random chains of view operations on random shapes, compared element by element
// with a naive reference model that stores every tensor densely and knows nothing of strides.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <random>
#include <strided/tensor.hpp>
#include <string>
#include <vector>

#include "catch_shim.hpp"

using strided::Shape;
using strided::ShapeErrorKind;
using strided::Tensor;

namespace {

// ----- the reference model: dense row-major values, no strides --------------------------------

struct Model {
  Shape shape;
  std::vector<std::int32_t> values;  // row-major

  std::size_t numel() const { return values.size(); }
};

std::size_t product(const Shape& s) {
  std::size_t n = 1;
  for (std::size_t d : s) n *= d;
  return n;
}

// Row-major position of a multi-index.
std::size_t flat(const Shape& shape, const Shape& index) {
  std::size_t at = 0;
  for (std::size_t k = 0; k < shape.size(); ++k) at = at * shape[k] + index[k];
  return at;
}

// Calls f(index) for every multi-index of `shape` in row-major order.
template <class F>
void for_each_index(const Shape& shape, F f) {
  if (product(shape) == 0) return;
  Shape index(shape.size(), 0);
  while (true) {
    f(index);
    std::size_t k = shape.size();
    while (true) {
      if (k == 0) return;
      --k;
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
}

// out[index] = in[map(index)] for every index of out_shape.
template <class Map>
Model gather(const Model& in, const Shape& out_shape, Map map) {
  Model out{out_shape, {}};
  out.values.reserve(product(out_shape));
  for_each_index(out_shape,
                 [&](const Shape& i) { out.values.push_back(in.values[flat(in.shape, map(i))]); });
  return out;
}

Model model_permute(const Model& m, const Shape& perm) {
  Shape out(perm.size(), 0);
  for (std::size_t k = 0; k < perm.size(); ++k) out[k] = m.shape[perm[k]];
  return gather(m, out, [&](const Shape& i) {
    Shape src(perm.size(), 0);
    for (std::size_t k = 0; k < perm.size(); ++k) src[perm[k]] = i[k];
    return src;
  });
}

Model model_narrow(const Model& m, std::size_t dim, std::size_t start, std::size_t len) {
  Shape out = m.shape;
  out[dim] = len;
  return gather(m, out, [&](const Shape& i) {
    Shape src = i;
    src[dim] += start;
    return src;
  });
}

Model model_broadcast(const Model& m, const Shape& target) {
  const std::size_t lead = target.size() - m.shape.size();
  return gather(m, target, [&](const Shape& i) {
    Shape src(m.shape.size(), 0);
    for (std::size_t k = 0; k < m.shape.size(); ++k) src[k] = m.shape[k] == 1 ? 0 : i[lead + k];
    return src;
  });
}

// ----- random generation -----------------------------------------------------------------------

using Rng = std::mt19937_64;

std::size_t pick(Rng& rng, std::size_t below) {
  return std::uniform_int_distribution<std::size_t>(0, below - 1)(rng);
}

Shape random_shape(Rng& rng, std::size_t max_numel) {
  while (true) {
    Shape s(pick(rng, 9), 0);  // rank 0..8
    for (auto& d : s) d = pick(rng, 10) == 0 ? 0 : 1 + pick(rng, 4);
    if (product(s) <= max_numel) return s;
  }
}

// A random factorisation of the element count into a new shape (with size-1 axes sprinkled in).
Shape random_reshape_target(Rng& rng, const Shape& shape) {
  std::vector<std::size_t> primes;
  std::size_t n = product(shape);
  if (n == 0) {
    Shape s = random_shape(rng, 64);
    s.insert(pick(rng, s.size() + 1), 0);
    return s;
  }
  for (std::size_t p = 2; n > 1; ++p)
    while (n % p == 0) primes.push_back(p), n /= p;
  std::shuffle(primes.begin(), primes.end(), rng);
  Shape out;
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

// ----- checks ----------------------------------------------------------------------------------

void check_same(const Tensor<std::int32_t>& t, const Model& m) {
  REQUIRE(t.shape() == m.shape);
  REQUIRE(t.numel() == m.numel());
  REQUIRE(t.to_vector() == m.values);
  const auto c = t.contiguous();
  REQUIRE(c.is_contiguous());
  REQUIRE(std::vector<std::int32_t>(c.as_slice()->begin(), c.as_slice()->end()) == m.values);
  std::vector<std::int32_t> dst(m.numel());
  REQUIRE(t.copy_to(dst).has_value());
  REQUIRE(dst == m.values);
  const auto view = t.as_view_slice();
  const bool all_nonnegative =
      std::all_of(t.strides().begin(), t.strides().end(), [](std::ptrdiff_t s) { return s >= 0; });
  REQUIRE(view.has_value() == (all_nonnegative || t.empty()));
  for_each_index(m.shape, [&](const Shape& i) {
    const auto expected = m.values[flat(m.shape, i)];
    REQUIRE(t.get(i) == expected);
    if (view) REQUIRE((*view)[t.layout().storage_index(i) - t.offset()] == expected);
  });
  if (t.is_contiguous()) REQUIRE(t.as_slice().has_value());
}

// Applies one random operation (sometimes with invalid arguments, checking the error kind).
void step(Rng& rng, Tensor<std::int32_t>& t, Model& m) {
  const std::size_t rank = m.shape.size();
  const bool invalid = pick(rng, 8) == 0;
  switch (pick(rng, 5)) {
    case 0: {  // transpose
      std::size_t a = rank == 0 ? 0 : pick(rng, rank), b = rank == 0 ? 0 : pick(rng, rank);
      if (invalid || rank == 0) {
        b = rank + pick(rng, 3);
        REQUIRE(t.transpose(a, b).error().kind() == ShapeErrorKind::axis_out_of_range);
        return;
      }
      Shape perm(rank, 0);
      std::iota(perm.begin(), perm.end(), std::size_t{0});
      std::swap(perm[a], perm[b]);
      t = t.transpose(a, b).value();
      m = model_permute(m, perm);
      return;
    }
    case 1: {  // permute
      Shape perm(rank, 0);
      std::iota(perm.begin(), perm.end(), std::size_t{0});
      std::shuffle(perm.begin(), perm.end(), rng);
      if (invalid && rank >= 2) {
        perm[0] = perm[1];
        REQUIRE(t.permute(perm).error().kind() == ShapeErrorKind::duplicate_axis);
        return;
      }
      if (invalid) {
        perm.push_back(rank);
        REQUIRE(t.permute(perm).error().kind() == ShapeErrorKind::rank_mismatch);
        return;
      }
      t = t.permute(perm).value();
      m = model_permute(m, perm);
      return;
    }
    case 2: {  // narrow
      if (rank == 0) {
        REQUIRE(t.narrow(0, 0, 0).error().kind() == ShapeErrorKind::axis_out_of_range);
        return;
      }
      const std::size_t dim = pick(rng, rank), size = m.shape[dim];
      const std::size_t start = pick(rng, size + 1), len = pick(rng, size - start + 1);
      if (invalid) {
        REQUIRE(t.narrow(dim, start, size - start + 1 + pick(rng, 3)).error().kind() ==
                ShapeErrorKind::index_out_of_range);
        return;
      }
      t = t.narrow(dim, start, len).value();
      m = model_narrow(m, dim, start, len);
      return;
    }
    case 3: {  // reshape: a view when one exists, else non_contiguous_reshape
      const Shape target = random_reshape_target(rng, m.shape);
      if (invalid && m.numel() > 0) {
        Shape wrong = target;
        wrong.push_back(2);
        REQUIRE(t.reshape(wrong).error().kind() == ShapeErrorKind::element_count_mismatch);
        return;
      }
      auto r = t.reshape(target);
      if (!r) {
        REQUIRE(r.error().kind() == ShapeErrorKind::non_contiguous_reshape);
        REQUIRE_FALSE(t.is_contiguous());  // a contiguous tensor can always be viewed
        r = t.contiguous().reshape(target);
      }
      REQUIRE(r->numel() == m.numel());
      t = *r;
      m.shape = target;  // row-major values are unchanged by a reshape
      return;
    }
    default: {  // broadcast_to: size-1 axes grow, new leading axes appear
      Shape target = m.shape;
      for (auto& d : target)
        if (d == 1 && pick(rng, 2) == 0) d = 1 + pick(rng, 3);
      while (target.size() < 8 && pick(rng, 3) == 0) target.insert(0, 1 + pick(rng, 3));
      if (product(target) > 4096) return;
      if (invalid) {
        for (std::size_t k = 0; k < rank; ++k)
          if (m.shape[k] > 1) {
            target[target.size() - rank + k] = m.shape[k] + 1;
            REQUIRE(t.broadcast_to(target).error().kind() ==
                    ShapeErrorKind::broadcast_incompatible);
            return;
          }
        return;
      }
      t = t.broadcast_to(target).value();
      m = model_broadcast(m, target);
      return;
    }
  }
}

}  // namespace

TEST_CASE("random view chains match the naive reference model") {
  const char* fixed = std::getenv("STRIDED_PROPERTY_SEED");
  const std::uint64_t seed = fixed != nullptr ? std::stoull(fixed) : std::random_device{}();
  INFO("seed " << seed << " (set STRIDED_PROPERTY_SEED to replay)");
  Rng rng(seed);
  const int chains = 10000;
  for (int chain = 0; chain < chains; ++chain) {
    Model m{random_shape(rng, 720), {}};
    m.values.resize(product(m.shape));
    std::iota(m.values.begin(), m.values.end(), 0);
    auto t = Tensor<std::int32_t>::from_vector(m.values, m.shape).value();
    const std::size_t steps = 1 + pick(rng, 6);
    for (std::size_t s = 0; s < steps; ++s) {
      CAPTURE(chain, s);
      step(rng, t, m);
      check_same(t, m);
    }
  }
}
