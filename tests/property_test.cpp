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
#include "support.hpp"

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

using strided_test::product;

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

using strided_test::pick;
using strided_test::random_reshape_target;
using strided_test::random_shape;
using Rng = strided_test::Rng;

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
  STRIDED_TEST_RANDOM_SEED(seed);
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

// ===== Extended views (issue 7; owner: views engineer) ==========================================
// slice (any bounds and steps), flip, squeeze/unsqueeze, select, flatten/unflatten, movedim,
// diagonal, split/chunk/unbind, reshape with strided::infer and as_strided, against the same dense
// model and the same check_same(), chained with the core operations above.

namespace {

// Python's slice rule, written from the language reference (not from strided's code): the
// indices i, i + k, i + 2k, ... before j, with negative bounds counted from the end and clamped,
// and `strided::slice_end` standing for an omitted bound.
std::vector<std::size_t> model_slice_indices(std::size_t size, std::ptrdiff_t i, std::ptrdiff_t j,
                                             std::ptrdiff_t k) {
  const auto len = static_cast<std::ptrdiff_t>(size);
  auto norm = [&](std::ptrdiff_t b, bool is_start) {
    if (b == strided::slice_end) return is_start ? (k > 0 ? 0 : len - 1) : (k > 0 ? len : -1);
    if (b < 0) b = std::max(b + len, k > 0 ? std::ptrdiff_t{0} : std::ptrdiff_t{-1});
    if (b >= len) b = k > 0 ? len : len - 1;
    return b;
  };
  std::vector<std::size_t> out;
  for (std::ptrdiff_t x = norm(i, true), stop = norm(j, false); k > 0 ? x < stop : x > stop; x += k)
    out.push_back(static_cast<std::size_t>(x));
  return out;
}

Model model_take(const Model& m, std::size_t dim, const std::vector<std::size_t>& indices) {
  Shape out = m.shape;
  out[dim] = indices.size();
  return gather(m, out, [&](const Shape& i) {
    Shape src = i;
    src[dim] = indices[i[dim]];
    return src;
  });
}

Model model_select(const Model& m, std::size_t dim, std::size_t index) {
  Shape out = m.shape;
  out.erase(dim);
  return gather(m, out, [&](const Shape& i) {
    Shape src = i;
    src.insert(dim, index);
    return src;
  });
}

Model model_diagonal(const Model& m, std::ptrdiff_t offset, std::size_t d0, std::size_t d1) {
  const auto row = static_cast<std::size_t>(offset < 0 ? -offset : 0);
  const auto col = static_cast<std::size_t>(offset > 0 ? offset : 0);
  std::size_t len = 0;
  while (row + len < m.shape[d0] && col + len < m.shape[d1]) ++len;
  Shape out;
  for (std::size_t k = 0; k < m.shape.size(); ++k)
    if (k != d0 && k != d1) out.push_back(m.shape[k]);
  out.push_back(len);
  return gather(m, out, [&](const Shape& i) {
    Shape src(m.shape.size(), 0);
    std::size_t next = 0;
    for (std::size_t k = 0; k < m.shape.size(); ++k)
      if (k != d0 && k != d1) src[k] = i[next++];
    src[d0] = row + i.back();
    src[d1] = col + i.back();
    return src;
  });
}

Model model_with_shape(Model m, Shape shape) {  // squeeze, unsqueeze, flatten, unflatten, reshape
  m.shape = std::move(shape);
  return m;
}

// Element i of as_strided is buffer[offset + sum(i[k] * strides[k])], computed here naively.
Model model_as_strided(const std::int32_t* buffer, const Shape& shape,
                       const strided::Strides& strides, std::size_t offset) {
  Model out{shape, {}};
  for_each_index(shape, [&](const Shape& i) {
    auto at = static_cast<std::ptrdiff_t>(offset);
    for (std::size_t k = 0; k < shape.size(); ++k)
      at += static_cast<std::ptrdiff_t>(i[k]) * strides[k];
    out.values.push_back(buffer[at]);
  });
  return out;
}

std::ptrdiff_t pick_signed(Rng& rng, std::ptrdiff_t lo, std::ptrdiff_t hi) {
  return std::uniform_int_distribution<std::ptrdiff_t>(lo, hi)(rng);
}

// Continues the chain with one random piece of split / chunk / unbind, after checking them all.
void continue_with_piece(Rng& rng, Tensor<std::int32_t>& t, Model& m,
                         const std::vector<Tensor<std::int32_t>>& pieces,
                         const std::vector<Model>& models) {
  REQUIRE(pieces.size() == models.size());
  for (std::size_t p = 0; p < pieces.size(); ++p) {
    if (t.storage() != nullptr) REQUIRE(pieces[p].shares_storage_with(t));
    check_same(pieces[p], models[p]);
  }
  if (pieces.empty()) return;
  const std::size_t p = pick(rng, pieces.size());
  t = pieces[p];
  m = models[p];
}

// Applies one random extended view (sometimes with invalid arguments, checking the error kind).
void step_views(Rng& rng, Tensor<std::int32_t>& t, Model& m) {
  const std::size_t rank = m.shape.size();
  const bool invalid = pick(rng, 8) == 0;
  const std::size_t dim = rank == 0 ? 0 : pick(rng, rank);
  if (rank == 0 && pick(rng, 2) == 0) {  // every axis-taking op rejects a rank-0 tensor
    REQUIRE(t.slice(0, 0).error().kind() == ShapeErrorKind::axis_out_of_range);
    REQUIRE(t.flip(0).error().kind() == ShapeErrorKind::axis_out_of_range);
    REQUIRE(t.select(0, 0).error().kind() == ShapeErrorKind::axis_out_of_range);
    REQUIRE(t.split(0, 1).error().kind() == ShapeErrorKind::axis_out_of_range);
    REQUIRE(t.unbind(0).error().kind() == ShapeErrorKind::axis_out_of_range);
    t = t.unsqueeze(0).value();
    m = model_with_shape(m, Shape{1});
    return;
  }
  switch (pick(rng, 12)) {
    case 0: {  // slice
      if (rank == 0) return;
      const auto size = static_cast<std::ptrdiff_t>(m.shape[dim]);
      auto bound = [&] {
        return pick(rng, 5) == 0 ? strided::slice_end : pick_signed(rng, -size - 3, size + 3);
      };
      const std::ptrdiff_t start = bound(), stop = bound();
      std::ptrdiff_t step_by = pick_signed(rng, -4, 4);
      if (invalid || step_by == 0) {
        REQUIRE(t.slice(dim, start, stop, 0).error().kind() == ShapeErrorKind::invalid_argument);
        return;
      }
      t = t.slice(dim, start, stop, step_by).value();
      m = model_take(m, dim, model_slice_indices(m.shape[dim], start, stop, step_by));
      return;
    }
    case 1: {  // flip one axis, or several
      if (rank == 0) return;
      if (invalid) {
        REQUIRE(t.flip(Shape{dim, dim}).error().kind() == ShapeErrorKind::duplicate_axis);
        return;
      }
      Shape dims;
      for (std::size_t k = 0; k < rank; ++k)
        if (pick(rng, 2) == 0) dims.push_back(k);
      std::shuffle(dims.begin(), dims.end(), rng);
      t = t.flip(dims).value();
      for (std::size_t k : dims) {
        std::vector<std::size_t> reversed(m.shape[k]);
        for (std::size_t x = 0; x < reversed.size(); ++x) reversed[x] = reversed.size() - 1 - x;
        m = model_take(m, k, reversed);
      }
      return;
    }
    case 2: {  // squeeze one axis or all
      Shape kept;
      for (std::size_t d : m.shape)
        if (d != 1) kept.push_back(d);
      if (rank > 0 && m.shape[dim] == 1 && pick(rng, 2) == 0) {
        Shape out = m.shape;
        out.erase(dim);
        t = t.squeeze(dim).value();
        m = model_with_shape(m, out);
      } else if (rank > 0 && m.shape[dim] != 1) {
        REQUIRE(t.squeeze(dim).error().kind() == ShapeErrorKind::invalid_argument);
      } else {
        t = t.squeeze().value();
        m = model_with_shape(m, kept);
      }
      return;
    }
    case 3: {  // unsqueeze
      if (invalid || rank >= 8) {
        REQUIRE(t.unsqueeze(rank + 1 + pick(rng, 3)).error().kind() ==
                ShapeErrorKind::axis_out_of_range);
        return;
      }
      const std::size_t at = pick(rng, rank + 1);
      Shape out = m.shape;
      out.insert(at, 1);
      t = t.unsqueeze(at).value();
      m = model_with_shape(m, out);
      return;
    }
    case 4: {  // select
      if (rank == 0) return;
      if (invalid || m.shape[dim] == 0) {
        REQUIRE(t.select(dim, m.shape[dim] + pick(rng, 3)).error().kind() ==
                ShapeErrorKind::index_out_of_range);
        return;
      }
      const std::size_t index = pick(rng, m.shape[dim]);
      t = t.select(dim, index).value();
      m = model_select(m, dim, index);
      return;
    }
    case 5: {  // flatten a run of axes: a view when one exists, else non_contiguous_reshape
      if (rank == 0) return;
      const std::size_t first = pick(rng, rank), last = first + pick(rng, rank - first);
      if (invalid && first < last) {
        REQUIRE(t.flatten(last, first).error().kind() == ShapeErrorKind::invalid_argument);
        return;
      }
      Shape out;
      for (std::size_t k = 0; k < first; ++k) out.push_back(m.shape[k]);
      out.push_back(
          product(Shape(std::span<const std::size_t>(m.shape.data() + first, last - first + 1))));
      for (std::size_t k = last + 1; k < rank; ++k) out.push_back(m.shape[k]);
      auto r = t.flatten(first, last);
      if (!r) {
        REQUIRE(r.error().kind() == ShapeErrorKind::non_contiguous_reshape);
        REQUIRE_FALSE(t.is_contiguous());
        r = t.contiguous().flatten(first, last);
      }
      t = *r;
      m = model_with_shape(m, out);
      return;
    }
    case 6: {  // unflatten: always a view
      if (rank == 0 || rank >= 8) return;
      const std::size_t size = m.shape[dim];
      std::size_t a = 1;
      for (std::size_t d = 1; d <= size; ++d)
        if (size % d == 0 && pick(rng, 2) == 0) a = d;
      const std::size_t b = size == 0 ? 0 : size / a;
      if (invalid) {
        REQUIRE(t.unflatten(dim, {a, b + 1}).error().kind() ==
                ShapeErrorKind::element_count_mismatch);
        return;
      }
      Shape out = m.shape;
      out[dim] = b;
      out.insert(dim, a);
      const Shape sizes = size > 0 && pick(rng, 2) == 0 ? Shape{a, strided::infer} : Shape{a, b};
      t = t.unflatten(dim, sizes).value();
      m = model_with_shape(m, out);
      return;
    }
    case 7: {  // movedim
      if (rank == 0) return;
      const std::size_t dst = pick(rng, rank);
      if (invalid) {
        REQUIRE(t.movedim(dim, rank + pick(rng, 3)).error().kind() ==
                ShapeErrorKind::axis_out_of_range);
        return;
      }
      Shape perm;
      for (std::size_t k = 0; k < rank; ++k)
        if (k != dim) perm.push_back(k);
      perm.insert(dst, dim);
      t = t.movedim(dim, dst).value();
      m = model_permute(m, perm);
      return;
    }
    case 8: {  // diagonal
      if (rank < 2) return;
      const std::size_t d1 = (dim + 1 + pick(rng, rank - 1)) % rank;
      if (invalid) {
        REQUIRE(t.diagonal(0, dim, dim).error().kind() == ShapeErrorKind::duplicate_axis);
        return;
      }
      const std::ptrdiff_t offset = pick_signed(rng, -4, 4);
      t = t.diagonal(offset, dim, d1).value();
      m = model_diagonal(m, offset, dim, d1);
      return;
    }
    case 9: {  // split / chunk / unbind, then continue with one piece
      if (rank == 0) return;
      const std::size_t size = m.shape[dim];
      if (invalid) {
        if (size > 0) REQUIRE(t.split(dim, 0).error().kind() == ShapeErrorKind::invalid_argument);
        REQUIRE(t.chunk(dim, 0).error().kind() == ShapeErrorKind::invalid_argument);
        return;
      }
      std::vector<Model> models;
      const std::size_t how = pick(rng, 3);
      if (how == 2) {  // unbind
        for (std::size_t x = 0; x < size; ++x) models.push_back(model_select(m, dim, x));
        continue_with_piece(rng, t, m, t.unbind(dim).value(), models);
        return;
      }
      const std::size_t n = 1 + pick(rng, 4);
      const std::size_t piece = how == 0 ? n : (size + n - 1) / n;  // split size, or chunk's
      if (size == 0) {
        const std::size_t count = how == 0 ? 1 : n;
        models.assign(count, m);
      }
      for (std::size_t start = 0; start < size; start += piece) {
        std::vector<std::size_t> idx;
        for (std::size_t x = start; x < std::min(size, start + piece); ++x) idx.push_back(x);
        models.push_back(model_take(m, dim, idx));
      }
      const auto pieces = how == 0 ? t.split(dim, n).value() : t.chunk(dim, n).value();
      continue_with_piece(rng, t, m, pieces, models);
      return;
    }
    case 10: {  // reshape with one inferred axis
      if (m.numel() == 0 || rank == 0) return;
      const Shape target = random_reshape_target(rng, m.shape);
      if (target.empty()) return;
      Shape with_infer = target;
      with_infer[pick(rng, target.size())] = strided::infer;
      if (invalid) {
        with_infer.push_back(strided::infer);
        REQUIRE(t.reshape(with_infer).error().kind() == ShapeErrorKind::invalid_argument);
        return;
      }
      auto r = t.reshape(with_infer);
      if (!r) {
        REQUIRE(r.error().kind() == ShapeErrorKind::non_contiguous_reshape);
        r = t.contiguous().reshape(with_infer);
      }
      REQUIRE(r->shape() == target);
      t = *r;
      m = model_with_shape(m, target);
      return;
    }
    default: {  // as_strided over the whole buffer: accepted exactly when it stays inside
      const std::size_t len = t.storage_len();
      Shape shape(pick(rng, 4), 0);
      strided::Strides strides(shape.size(), 0);
      std::ptrdiff_t low = 0, high = 0;
      for (std::size_t k = 0; k < shape.size(); ++k) {
        shape[k] = 1 + pick(rng, 4);
        strides[k] = pick_signed(rng, -4, 4);
        const auto last = static_cast<std::ptrdiff_t>(shape[k] - 1) * strides[k];
        (last < 0 ? low : high) += last;
      }
      const auto offset =
          static_cast<std::size_t>(pick_signed(rng, 0, static_cast<std::ptrdiff_t>(len) + 8));
      const bool inside =
          static_cast<std::ptrdiff_t>(offset) + low >= 0 &&
          static_cast<std::ptrdiff_t>(offset) + high < static_cast<std::ptrdiff_t>(len);
      auto r = t.as_strided(shape, strides, offset);
      if (!inside) {
        REQUIRE(r.error().kind() == ShapeErrorKind::storage_out_of_bounds);
        return;
      }
      m = model_as_strided(t.storage().get(), shape, strides, offset);
      t = r.value();
      return;
    }
  }
}

}  // namespace

TEST_CASE("random chains of core and extended views match the naive reference model") {
  STRIDED_TEST_RANDOM_SEED(seed);
  Rng rng(seed);
  for (int chain = 0; chain < 10000; ++chain) {
    Model m{random_shape(rng, 720), {}};
    m.values.resize(product(m.shape));
    std::iota(m.values.begin(), m.values.end(), 0);
    auto t = Tensor<std::int32_t>::from_vector(m.values, m.shape).value();
    const std::size_t steps = 1 + pick(rng, 8);
    for (std::size_t s = 0; s < steps; ++s) {
      CAPTURE(chain, s);
      if (pick(rng, 3) == 0)
        step(rng, t, m);
      else
        step_views(rng, t, m);
      check_same(t, m);
    }
  }
}
