// Fuzz target 1: bytes -> a buffer, a starting layout (row-major or an arbitrary as_strided one)
// and a chain of view operations, then every read path (get, values, as_slice, as_view_slice,
// host_slice, contiguous, copy_to, to_vector, equal, a cast, to_string), each checked against a
// naive reference model.
//
// The model knows nothing of strides: a view is a function from its own multi-index to its
// input's multi-index, written from the documented semantics of the operation (docs/views.md),
// and the chain of those functions ends at the base, whose storage index is computed by hand
// (offset + sum(i * stride) in 128 bits). So for every element the model says which storage
// element it must be; the tensor's layout must say the same, and every value read must be the
// buffer's value there. Errors are predicted too: each operation's result must be an error
// exactly when one of the documented error conditions holds, and its kind must be one of those.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fuzz_support.hpp"
#include "strided/tensor.hpp"

namespace {

using strided::Shape;
using strided::ShapeErrorKind;
using strided::Strides;
using strided::Tensor;
using strided::fuzz::ByteReader;
__extension__ typedef __int128 i128;

constexpr i128 kPtrMax = std::numeric_limits<std::ptrdiff_t>::max();
constexpr i128 kSizeMax = std::numeric_limits<std::size_t>::max();
constexpr std::size_t kEnumerate = 2048;  // enumerate every element up to this many
constexpr std::size_t kMaxPieces = 512;   // split/chunk/unbind producing more are not called
constexpr std::size_t kMaxRank = strided::max_rank;

#define CHECK STRIDED_FUZZ_CHECK

// ----- the reference model ------------------------------------------------------------------

struct Node;
using NodePtr = std::shared_ptr<const Node>;

/// A view in the model: its shape and how its multi-index maps to its parent's; the base (no
/// parent) maps a multi-index to a storage index by hand.
struct Node {
  Shape shape;
  NodePtr parent;
  std::function<Shape(const Shape&)> to_parent;
  std::vector<i128> base_strides;
  i128 base_offset = 0;
};

std::optional<std::size_t> numel_of(const Shape& s) {
  for (std::size_t d : s)
    if (d == 0) return 0;  // no elements, whatever the other sizes
  std::size_t n = 1;
  for (std::size_t d : s)
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  return n;
}

i128 storage_of(const Node* node, Shape index) {
  while (node->parent != nullptr) {
    index = node->to_parent(index);
    node = node->parent.get();
  }
  i128 at = node->base_offset;
  for (std::size_t k = 0; k < index.size(); ++k) at += i128(index[k]) * node->base_strides[k];
  return at;
}

NodePtr make_base(const Shape& shape, const std::vector<i128>& strides, i128 offset) {
  auto n = std::make_shared<Node>();
  n->shape = shape;
  n->base_strides = strides;
  n->base_offset = offset;
  return n;
}

NodePtr make_view(NodePtr parent, Shape shape, std::function<Shape(const Shape&)> map) {
  auto n = std::make_shared<Node>();
  n->shape = std::move(shape);
  n->parent = std::move(parent);
  n->to_parent = std::move(map);
  return n;
}

/// Whether the row-major strides of `s` (every suffix product, the whole product included)
/// overflow std::ptrdiff_t: a reshape of a tensor without elements may then be size_overflow.
bool row_major_overflows(const Shape& s) {
  i128 step = 1;
  for (std::size_t k = s.size(); k-- > 0;) {
    if (s[k] > kPtrMax) return true;  // an axis size itself must fit, as a stride factor
    step *= s[k];
    if (step > kPtrMax) return true;
  }
  return false;
}

/// Row-major multi-index of flat position p in shape s (p < numel).
Shape unflat(const Shape& s, std::size_t p) {
  Shape idx(s.size(), 0);
  for (std::size_t k = s.size(); k-- > 0;) {
    idx[k] = p % s[k];
    p /= s[k];
  }
  return idx;
}

std::size_t flat(const Shape& s, const Shape& idx) {
  std::size_t p = 0;
  for (std::size_t k = 0; k < s.size(); ++k) p = p * s[k] + idx[k];
  return p;
}

/// Calls f(index) for every index of `s` in row-major order (numel must be small).
template <class F>
void for_each_index(const Shape& s, F&& f) {
  const auto n = numel_of(s);
  if (!n || *n == 0) return;
  Shape idx(s.size(), 0);
  while (true) {
    f(idx);
    std::size_t k = s.size();
    while (true) {
      if (k == 0) return;
      --k;
      if (++idx[k] < s[k]) break;
      idx[k] = 0;
    }
  }
}

// ----- expected outcomes --------------------------------------------------------------------

/// What an operation may return: success (when `ok`) and/or an error of a kind in `kinds`.
struct Expect {
  bool ok = true;
  unsigned kinds = 0;
  void add(ShapeErrorKind k) {
    ok = false;
    kinds |= 1u << static_cast<unsigned>(k);
  }
  void allow(ShapeErrorKind k) { kinds |= 1u << static_cast<unsigned>(k); }
  bool allows(ShapeErrorKind k) const { return (kinds >> static_cast<unsigned>(k)) & 1u; }
};

/// STRIDED_FUZZ_TRACE=1 in the environment: print each operation and its outcome (to read a
/// finding).
const bool g_trace = std::getenv("STRIDED_FUZZ_TRACE") != nullptr;

template <class R>
bool check_outcome(const R& r, const Expect& e) {
  if (g_trace) std::fprintf(stderr, "  -> %s\n", r ? "ok" : r.error().message().c_str());
  if (r.has_value()) {
    if (!e.ok) std::fprintf(stderr, "expected an error, got a value\n");
    CHECK(e.ok);
    return true;
  }
  const std::string msg = r.error().message();  // every message must format
  CHECK(!msg.empty());
  if (!e.allows(r.error().kind())) std::fprintf(stderr, "unexpected error: %s\n", msg.c_str());
  CHECK(e.allows(r.error().kind()));
  return false;
}

// ----- the checks on a tensor ---------------------------------------------------------------

template <class T>
struct Fixture {
  std::vector<T> buffer;  // the values, for lookups (the tensor owns its own copy)
  std::uint32_t rng = 1;  // sampling of big tensors
  std::size_t next(std::size_t below) {
    rng = rng * 1664525u + 1013904223u;
    return below == 0 ? 0 : static_cast<std::size_t>(rng >> 8) % below;
  }
};

template <class T>
bool same(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Structure, the in-buffer invariant and every element (or a sample) against the model.
template <class T>
void check_tensor(Fixture<T>& fx, const Tensor<T>& t, const Node& model) {
  CHECK(t.shape() == model.shape);
  CHECK(t.rank() == model.shape.size() && t.rank() <= kMaxRank);
  CHECK(t.strides().size() == t.rank());
  const auto n = numel_of(t.shape());
  CHECK(n.has_value() && t.numel() == *n);
  CHECK(t.empty() == (*n == 0));
  CHECK(t.storage_len() == fx.buffer.size());
  // Design §5: every element a tensor can reach lies inside its buffer. By hand, in 128 bits.
  if (*n > 0) {
    i128 low = t.offset(), high = t.offset();
    for (std::size_t k = 0; k < t.rank(); ++k) {
      const i128 step = i128(t.shape()[k] - 1) * t.strides()[k];
      (step < 0 ? low : high) += step;
    }
    CHECK(low >= 0 && high < i128(t.storage_len()));
  }
  auto check_index = [&](const Shape& idx) {
    const i128 want = storage_of(&model, idx);
    CHECK(want >= 0 && want < i128(fx.buffer.size()));
    i128 by_layout = t.offset();
    for (std::size_t k = 0; k < idx.size(); ++k) by_layout += i128(idx[k]) * t.strides()[k];
    CHECK(by_layout == want);
    const auto got = t.get(idx);
    CHECK(got.has_value() && same(*got, fx.buffer[static_cast<std::size_t>(want)]));
  };
  if (*n <= kEnumerate) {
    for_each_index(t.shape(), check_index);
  } else {
    for (int s = 0; s < 64; ++s) {
      Shape idx(t.rank(), 0);
      for (std::size_t k = 0; k < t.rank(); ++k) idx[k] = fx.next(t.shape()[k]);
      check_index(idx);
    }
  }
  // get() rejects a wrong rank and an index past an axis.
  Shape longer(t.rank() + 1, 0);
  CHECK(!t.get(longer).has_value());
  if (t.rank() > 0 && *n > 0) {
    Shape past(t.rank(), 0);
    const std::size_t k = fx.next(t.rank());
    past[k] = t.shape()[k];
    CHECK(!t.get(past).has_value());
  }
}

/// Every read and materialisation path of a small tensor against the model's values.
template <class T>
void check_reads(Fixture<T>& fx, const Tensor<T>& t, const Node& model) {
  const std::size_t n = t.numel();
  if (n > kEnumerate) return;
  std::vector<T> want;
  want.reserve(n);
  for_each_index(t.shape(), [&](const Shape& idx) {
    want.push_back(fx.buffer[static_cast<std::size_t>(storage_of(&model, idx))]);
  });
  CHECK(want.size() == n);
  auto same_values = [&](auto&& range) {
    std::size_t i = 0;
    for (const T& v : range) {
      CHECK(i < n && same(v, want[i]));
      ++i;
    }
    CHECK(i == n);
  };

  const auto values = t.values();
  CHECK(values.size() == n);
  for (std::size_t i = 0; i < n; ++i) CHECK(same(values[i], want[i]));

  same_values(t.to_vector());
  std::vector<T> out(n);
  CHECK(t.copy_to(std::span<T>(out)).has_value());
  same_values(out);
  std::vector<T> wrong(n + 1);
  const auto bad = t.copy_to(std::span<T>(wrong));
  CHECK(!bad && bad.error().kind() == ShapeErrorKind::element_count_mismatch);

  const Tensor<T> dense = t.contiguous();
  CHECK(dense.is_contiguous() && dense.shape() == t.shape());
  if (t.is_contiguous()) CHECK(dense.shares_storage_with(t) || t.storage() == nullptr);
  const auto dense_slice = dense.as_slice();
  CHECK(dense_slice.has_value());
  same_values(*dense_slice);
  CHECK(strided::equal(t, dense));

  const auto slice = t.as_slice();
  CHECK(slice.has_value() == (t.is_contiguous() || n == 0));
  if (slice) same_values(*slice);
  same_values(t.host_slice().span());
  CHECK(t.host_slice().is_borrowed() == slice.has_value());

  // as_view_slice: [offset, offset + 1 + sum((size-1)*stride)) when no stride is negative.
  const auto view = t.as_view_slice();
  bool negative = false;
  for (std::ptrdiff_t s : t.strides()) negative |= s < 0;
  if (n == 0) {
    CHECK(view.has_value() && view->empty());
  } else if (negative) {
    CHECK(!view.has_value());
  } else {
    i128 span = 1;
    for (std::size_t k = 0; k < t.rank(); ++k) span += i128(t.shape()[k] - 1) * t.strides()[k];
    CHECK(view.has_value() && i128(view->size()) == span);
    CHECK(view->data() == t.storage().get() + t.offset());
  }

  // A cast whose exact result the values make obvious (they are small integers).
  using U = std::conditional_t<std::is_floating_point_v<T>, std::int32_t, double>;
  const auto cast = t.template cast<U>();
  if (!strided::Layout::contiguous(t.shape())) {
    // No row-major layout of this shape exists (an empty tensor with huge axes, e.g.
    // [SIZE_MAX, 0]): the cast's result cannot be built, size_overflow (fuzz finding F1, fixed).
    CHECK(n == 0 && !cast && cast.error().kind() == ShapeErrorKind::size_overflow);
    return;
  }
  CHECK(cast.has_value() && cast->is_contiguous() && cast->shape() == t.shape());
  const auto cast_values = cast->as_slice().value();
  for (std::size_t i = 0; i < n; ++i) CHECK(cast_values[i] == static_cast<U>(want[i]));

  // Printing a view prints its values: the same text as its materialised copy.
  CHECK(strided::to_string(t) == strided::to_string(dense));
  CHECK(!strided::to_debug_string(t).empty());
  CHECK(!strided::to_debug_string(t, true).empty());
}

// ----- the operations -------------------------------------------------------------------------

template <class T>
struct Session {
  Fixture<T>& fx;
  ByteReader& in;
  Tensor<T> t;
  NodePtr model;

  std::size_t rank() const { return t.rank(); }
  std::size_t axis() { return in.size_arg(rank()); }  // == rank: out of range

  /// Adopts `r` when the model expected success; checks everything on it.
  void adopt(const strided::Result<Tensor<T>>& r, const Expect& e, const NodePtr& next) {
    if (!check_outcome(r, e)) return;
    if (g_trace) std::fprintf(stderr, "  %s\n", strided::to_debug_string(*r).c_str());
    check_tensor(fx, *r, *next);
    t = *r;
    model = next;
  }

  void op_transpose() {
    const std::size_t d0 = axis(), d1 = axis();
    Expect e;
    if (d0 >= rank() || d1 >= rank()) e.add(ShapeErrorKind::axis_out_of_range);
    NodePtr next;
    if (e.ok) {
      Shape s = model->shape;
      std::swap(s[d0], s[d1]);
      next = make_view(model, s, [d0, d1](const Shape& i) {
        Shape p = i;
        std::swap(p[d0], p[d1]);
        return p;
      });
    }
    adopt(t.transpose(d0, d1), e, next);
    Expect e2;
    if (rank() != 2) e2.add(ShapeErrorKind::rank_mismatch);
    const auto r2 = t.transpose_2d();
    if (check_outcome(r2, e2)) CHECK(r2->shape()[0] == t.shape()[1]);
  }

  void op_permute() {
    Shape perm;
    const std::size_t len = in.byte() < 230 ? rank() : in.small(rank() + 1);
    // Usually a true permutation (a rotation then swaps), sometimes arbitrary entries.
    for (std::size_t k = 0; k < len; ++k) perm.push_back(k);
    if (len > 0) {
      std::rotate(perm.begin(), perm.begin() + in.small(len - 1), perm.end());
      for (std::size_t s = in.small(3); s-- > 0;)
        std::swap(perm[in.small(len - 1)], perm[in.small(len - 1)]);
      if (in.byte() >= 230) perm[in.small(len - 1)] = in.size_arg(rank());
    }
    Expect e;
    if (perm.size() != rank()) e.add(ShapeErrorKind::rank_mismatch);
    std::vector<int> seen(rank(), 0);
    for (std::size_t a : perm) {
      if (a >= rank())
        e.add(ShapeErrorKind::axis_out_of_range);
      else if (seen[a]++)
        e.add(ShapeErrorKind::duplicate_axis);
    }
    NodePtr next;
    if (e.ok) {
      Shape s(rank(), 0);
      for (std::size_t k = 0; k < rank(); ++k) s[k] = model->shape[perm[k]];
      next = make_view(model, s, [perm](const Shape& i) {
        Shape p(i.size(), 0);
        for (std::size_t k = 0; k < i.size(); ++k) p[perm[k]] = i[k];
        return p;
      });
    }
    adopt(t.permute(perm), e, next);
  }

  void op_movedim() {
    const std::size_t src = axis(), dst = axis();
    Expect e;
    if (src >= rank() || dst >= rank()) e.add(ShapeErrorKind::axis_out_of_range);
    NodePtr next;
    if (e.ok) {
      // np.moveaxis: the other axes keep their order, src lands at position dst.
      std::vector<std::size_t> order;
      for (std::size_t k = 0; k < rank(); ++k)
        if (k != src) order.push_back(k);
      order.insert(order.begin() + static_cast<std::ptrdiff_t>(dst), src);
      Shape s(rank(), 0);
      for (std::size_t k = 0; k < rank(); ++k) s[k] = model->shape[order[k]];
      next = make_view(model, s, [order](const Shape& i) {
        Shape p(i.size(), 0);
        for (std::size_t k = 0; k < i.size(); ++k) p[order[k]] = i[k];
        return p;
      });
    }
    adopt(t.movedim(src, dst), e, next);
  }

  void op_narrow() {
    const std::size_t dim = axis();
    const std::size_t size = dim < rank() ? t.shape()[dim] : 4;
    const std::size_t start = in.size_arg(size + 1), len = in.size_arg(size + 1);
    Expect e;
    if (dim >= rank())
      e.add(ShapeErrorKind::axis_out_of_range);
    else if (i128(start) + len > size)
      e.add(ShapeErrorKind::index_out_of_range);
    NodePtr next;
    if (e.ok) {
      Shape s = model->shape;
      s[dim] = len;
      next = make_view(model, s, [dim, start](const Shape& i) {
        Shape p = i;
        p[dim] += start;
        return p;
      });
    }
    adopt(t.narrow(dim, start, len), e, next);
  }

  void op_slice() {
    const std::size_t dim = axis();
    const std::ptrdiff_t start = in.signed_arg(8), stop = in.signed_arg(8);
    std::ptrdiff_t step = in.signed_arg(4);
    Expect e;
    if (dim >= rank()) e.add(ShapeErrorKind::axis_out_of_range);
    if (step == 0) e.add(ShapeErrorKind::invalid_argument);
    NodePtr next;
    if (e.ok) {
      // CPython's slice.indices(n), with strided::slice_end (PTRDIFF_MIN) as None.
      const i128 n = t.shape()[dim], st = step;
      const i128 lower = st < 0 ? -1 : 0, upper = st < 0 ? n - 1 : n;
      auto clamp = [&](std::ptrdiff_t b, bool is_start) -> i128 {
        if (b == strided::slice_end)
          return is_start ? (st < 0 ? upper : lower) : (st < 0 ? lower : upper);
        i128 v = b;
        if (v < 0) {
          v += n;
          if (v < lower) v = lower;
        } else if (v > upper) {
          v = upper;
        }
        return v;
      };
      const i128 first = clamp(start, true), last = clamp(stop, false);
      i128 count = 0;
      if (st > 0 && first < last) count = (last - first - 1) / st + 1;
      if (st < 0 && last < first) count = (first - last - 1) / (-st) + 1;
      Shape s = model->shape;
      s[dim] = static_cast<std::size_t>(count);
      next = make_view(model, s, [dim, first, st](const Shape& i) {
        Shape p = i;
        p[dim] = static_cast<std::size_t>(first + i128(i[dim]) * st);
        return p;
      });
    }
    adopt(t.slice(dim, start, stop, step), e, next);
  }

  NodePtr flipped(const NodePtr& from, std::size_t dim) {
    const std::size_t size = from->shape[dim];
    return make_view(from, from->shape, [dim, size](const Shape& i) {
      Shape p = i;
      p[dim] = size - 1 - i[dim];
      return p;
    });
  }

  void op_flip() {
    if (in.byte() & 1) {
      const std::size_t dim = axis();
      Expect e;
      if (dim >= rank()) e.add(ShapeErrorKind::axis_out_of_range);
      adopt(t.flip(dim), e, e.ok ? flipped(model, dim) : nullptr);
      return;
    }
    Shape dims;
    for (std::size_t k = in.small(4); k-- > 0;) dims.push_back(axis());
    Expect e;
    std::vector<int> seen(rank(), 0);
    for (std::size_t a : dims) {
      if (a >= rank())
        e.add(ShapeErrorKind::axis_out_of_range);
      else if (seen[a]++)
        e.add(ShapeErrorKind::duplicate_axis);
    }
    NodePtr next = model;
    if (e.ok)
      for (std::size_t a : dims) next = flipped(next, a);
    adopt(t.flip(dims), e, next);
  }

  void op_squeeze() {
    if (in.byte() & 1) {
      Shape s;
      std::vector<std::size_t> kept;
      for (std::size_t k = 0; k < rank(); ++k)
        if (model->shape[k] != 1) {
          s.push_back(model->shape[k]);
          kept.push_back(k);
        }
      const std::size_t r = rank();
      adopt(t.squeeze(), Expect{}, make_view(model, s, [kept, r](const Shape& i) {
              Shape p(r, 0);
              for (std::size_t k = 0; k < kept.size(); ++k) p[kept[k]] = i[k];
              return p;
            }));
      return;
    }
    const std::size_t dim = axis();
    Expect e;
    if (dim >= rank())
      e.add(ShapeErrorKind::axis_out_of_range);
    else if (t.shape()[dim] != 1)
      e.add(ShapeErrorKind::invalid_argument);
    NodePtr next;
    if (e.ok) {
      Shape s = model->shape;
      s.erase(dim);
      next = make_view(model, s, [dim](const Shape& i) {
        Shape p = i;
        p.insert(dim, 0);
        return p;
      });
    }
    adopt(t.squeeze(dim), e, next);
  }

  void op_unsqueeze() {
    const std::size_t dim = in.size_arg(rank() + 1);
    Expect e;
    if (dim > rank()) e.add(ShapeErrorKind::axis_out_of_range);
    if (rank() >= kMaxRank) e.add(ShapeErrorKind::rank_too_large);
    NodePtr next;
    if (e.ok) {
      Shape s = model->shape;
      s.insert(dim, 1);
      next = make_view(model, s, [dim](const Shape& i) {
        Shape p = i;
        p.erase(dim);
        return p;
      });
    }
    adopt(t.unsqueeze(dim), e, next);
  }

  void op_select() {
    const std::size_t dim = axis();
    const std::size_t index = in.size_arg(dim < rank() ? t.shape()[dim] : 4);
    Expect e;
    if (dim >= rank())
      e.add(ShapeErrorKind::axis_out_of_range);
    else if (index >= t.shape()[dim])
      e.add(ShapeErrorKind::index_out_of_range);
    NodePtr next;
    if (e.ok) {
      Shape s = model->shape;
      s.erase(dim);
      next = make_view(model, s, [dim, index](const Shape& i) {
        Shape p = i;
        p.insert(dim, index);
        return p;
      });
    }
    adopt(t.select(dim, index), e, next);
  }

  /// Whether some strides make `new_shape` a view of the current elements (brute force over the
  /// model: the storage index must be affine in the new multi-index). nullopt: too big to tell.
  std::optional<bool> view_exists(const Shape& new_shape) {
    const std::size_t n = t.numel();
    if (n <= 1) return true;
    if (n > kEnumerate) return std::nullopt;
    std::vector<i128> where;
    for_each_index(model->shape,
                   [&](const Shape& i) { where.push_back(storage_of(model.get(), i)); });
    std::vector<i128> strides(new_shape.size(), 0);
    std::size_t inner = 1;
    for (std::size_t k = new_shape.size(); k-- > 0;) {
      if (new_shape[k] > 1) strides[k] = where[inner] - where[0];
      inner *= new_shape[k];
    }
    bool ok = true;
    for_each_index(new_shape, [&](const Shape& i) {
      i128 at = where[0];
      for (std::size_t k = 0; k < i.size(); ++k) at += i128(i[k]) * strides[k];
      ok = ok && at == where[flat(new_shape, i)];
    });
    return ok;
  }

  /// The model of a reshape to `new_shape` (same element count): element at flat position p of
  /// the new shape is element at flat position p of the old one.
  NodePtr reshaped(const Shape& new_shape) {
    const Shape old = model->shape;
    return make_view(model, new_shape,
                     [old, new_shape](const Shape& i) { return unflat(old, flat(new_shape, i)); });
  }

  /// Resolves one `infer` in `sizes` against `total` as documented; records errors in `e`.
  std::optional<Shape> resolve(Shape sizes, std::size_t total, Expect& e) {
    std::size_t infers = 0, where = 0;
    i128 others = 1;
    bool overflow = false;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      if (sizes[k] == strided::infer) {
        ++infers;
        where = k;
      } else if (!overflow) {
        // others * size > SIZE_MAX, decided before multiplying (the product may not fit i128)
        overflow = sizes[k] != 0 && others > kSizeMax / i128(sizes[k]);
        if (!overflow) others *= sizes[k];
      }
    }
    for (std::size_t k = 0; k < sizes.size(); ++k)
      if (sizes[k] == 0) overflow = false, others = 0;  // a zero size: no overflow, whatever order
    if (infers > 1) e.add(ShapeErrorKind::invalid_argument);
    if (overflow) e.add(ShapeErrorKind::size_overflow);
    if (!e.ok || infers == 0) return e.ok ? std::optional<Shape>(sizes) : std::nullopt;
    if (others == 0) {
      e.add(ShapeErrorKind::invalid_argument);
      return std::nullopt;
    }
    sizes[where] = static_cast<std::size_t>(i128(total) / others);
    if (i128(total) % others != 0) {
      e.add(ShapeErrorKind::element_count_mismatch);
      return std::nullopt;
    }
    return sizes;
  }

  Shape some_shape(std::size_t max_rank) {
    Shape s;
    const std::size_t r = in.byte() < 250 ? in.small(max_rank) : kMaxRank + in.small(2);
    for (std::size_t k = 0; k < r; ++k) {
      const std::uint8_t b = in.byte();
      s.push_back(b < 200 ? b % 7 : b < 215 ? strided::infer : in.size_arg(16));
    }
    return s;
  }

  /// A target that usually has the current element count: a refactorisation of the shape.
  Shape reshape_target() {
    if (in.byte() < 64) return some_shape(7);
    Shape s;
    std::vector<std::size_t> factors;
    for (std::size_t d : t.shape()) {
      std::size_t rest = d;
      for (std::size_t p = 2; p <= 7 && rest > 1; ++p)
        while (rest % p == 0 && rest / p < (std::size_t{1} << 40)) {
          factors.push_back(p);
          rest /= p;
        }
      if (rest != 1) factors.push_back(rest);
    }
    while (!factors.empty()) {
      std::size_t take = 1 + in.small(2);
      std::size_t size = 1;
      while (take-- > 0 && !factors.empty()) {
        size *= factors.back();
        factors.pop_back();
      }
      if (in.byte() < 16) s.push_back(1);
      s.push_back(size);
    }
    if (!s.empty() && in.byte() < 80) s[in.small(s.size() - 1)] = strided::infer;
    return s;
  }

  void op_reshape() {
    const Shape requested = reshape_target();
    if (g_trace)
      std::fprintf(stderr, "  reshape to %s\n", strided::detail::dims_string(requested).c_str());
    Expect e;
    for (std::size_t d : requested)  // a size that cannot be a stride factor may be reported
      if (d != strided::infer && d > kPtrMax) e.allow(ShapeErrorKind::size_overflow);
    auto resolved = resolve(requested, t.numel(), e);
    // Too many axes is an error whether or not the sizes also fail to resolve (overflow, two
    // infers, infer beside a zero): either may be reported.
    if (requested.size() > kMaxRank) e.add(ShapeErrorKind::rank_too_large);
    NodePtr next;
    if (resolved) {
      const auto n = numel_of(*resolved);
      if (!n) e.add(ShapeErrorKind::size_overflow);
      if (n && *n != t.numel()) e.add(ShapeErrorKind::element_count_mismatch);
      if (e.ok && row_major_overflows(*resolved)) e.allow(ShapeErrorKind::size_overflow);
      if (e.ok) {
        const auto exists = view_exists(*resolved);
        if (!exists) e.allow(ShapeErrorKind::non_contiguous_reshape);  // too big to tell
        if (exists && !*exists) e.add(ShapeErrorKind::non_contiguous_reshape);
        if (e.ok) next = reshaped(*resolved);
      }
    }
    adopt(t.reshape(requested), e, next);
  }

  void op_flatten() {
    const std::size_t first = axis(), last = axis();
    Expect e;
    NodePtr next;
    if (rank() == 0) {
      if (first != 0 || last != 0) e.add(ShapeErrorKind::axis_out_of_range);
      if (e.ok) next = make_view(model, Shape{1}, [](const Shape&) { return Shape{}; });
      adopt(t.flatten(first, last), e, next);
      return;
    }
    if (first >= rank() || last >= rank()) e.add(ShapeErrorKind::axis_out_of_range);
    if (first < rank() && last < rank() && first > last) e.add(ShapeErrorKind::invalid_argument);
    if (e.ok) {
      Shape s;
      for (std::size_t k = 0; k < first; ++k) s.push_back(t.shape()[k]);
      std::size_t merged = 1;
      bool overflow = false;  // only possible without elements: a zero elsewhere
      for (std::size_t k = first; k <= last; ++k)
        overflow |= __builtin_mul_overflow(merged, t.shape()[k], &merged);
      s.push_back(merged);
      for (std::size_t k = last + 1; k < rank(); ++k) s.push_back(t.shape()[k]);
      if (overflow) e.add(ShapeErrorKind::size_overflow);
      if (row_major_overflows(s)) e.allow(ShapeErrorKind::size_overflow);
      const auto exists = view_exists(s);
      if (!exists) e.allow(ShapeErrorKind::non_contiguous_reshape);
      if (exists && !*exists) e.add(ShapeErrorKind::non_contiguous_reshape);
      if (e.ok) next = reshaped(s);
    }
    adopt(t.flatten(first, last), e, next);
  }

  void op_unflatten() {
    const std::size_t dim = axis();
    Shape sizes;
    const std::size_t size = dim < rank() ? t.shape()[dim] : 6;
    if (in.byte() < 128) {  // a factorisation of the axis, maybe with an infer
      std::size_t rest = size;
      for (std::size_t p = 2; p <= 5 && rest > 1; ++p)
        while (rest % p == 0 && in.byte() < 200) {
          sizes.push_back(p);
          rest /= p;
        }
      sizes.push_back(rest);
      if (in.byte() < 100) sizes[in.small(sizes.size() - 1)] = strided::infer;
    } else {
      sizes = some_shape(4);
    }
    Expect e;
    if (dim >= rank()) e.add(ShapeErrorKind::axis_out_of_range);
    if (sizes.empty()) e.add(ShapeErrorKind::invalid_argument);
    if (e.ok && rank() - 1 + sizes.size() > kMaxRank) e.add(ShapeErrorKind::rank_too_large);
    NodePtr next;
    if (e.ok) {
      auto resolved = resolve(sizes, size, e);
      if (resolved) {
        const auto n = numel_of(*resolved);
        if (!n) e.add(ShapeErrorKind::size_overflow);
        if (n && *n != size) e.add(ShapeErrorKind::element_count_mismatch);
        if (e.ok) {
          Shape s;
          for (std::size_t k = 0; k < rank(); ++k) {
            if (k != dim)
              s.push_back(t.shape()[k]);
            else
              for (std::size_t d : *resolved) s.push_back(d);
          }
          if (row_major_overflows(s)) e.allow(ShapeErrorKind::size_overflow);
          next = reshaped(s);  // splitting an axis is always a view
        }
      }
    }
    adopt(t.unflatten(dim, sizes), e, next);
  }

  void op_diagonal() {
    const std::ptrdiff_t off = in.signed_arg(5);
    const std::size_t d0 = axis(), d1 = axis();
    Expect e;
    if (d0 >= rank() || d1 >= rank()) e.add(ShapeErrorKind::axis_out_of_range);
    if (d0 == d1) e.add(ShapeErrorKind::duplicate_axis);
    NodePtr next;
    if (e.ok) {
      const i128 row = off < 0 ? -i128(off) : 0, col = off > 0 ? i128(off) : 0;
      const i128 len =
          std::max<i128>(0, std::min(i128(t.shape()[d0]) - row, i128(t.shape()[d1]) - col));
      Shape s;
      std::vector<std::size_t> others;
      for (std::size_t k = 0; k < rank(); ++k)
        if (k != d0 && k != d1) {
          s.push_back(t.shape()[k]);
          others.push_back(k);
        }
      s.push_back(static_cast<std::size_t>(len));
      const std::size_t r = rank();
      next = make_view(model, s, [=](const Shape& i) {
        Shape p(r, 0);
        for (std::size_t k = 0; k < others.size(); ++k) p[others[k]] = i[k];
        p[d0] = static_cast<std::size_t>(i128(i.back()) + row);
        p[d1] = static_cast<std::size_t>(i128(i.back()) + col);
        return p;
      });
    }
    adopt(t.diagonal(off, d0, d1), e, next);
  }

  void op_broadcast() {
    Shape target;
    const std::size_t lead = in.small(3);
    for (std::size_t k = 0; k < lead; ++k) target.push_back(in.size_arg(5));
    for (std::size_t d : t.shape()) {
      const std::uint8_t b = in.byte();
      target.push_back(b < 160 ? d : b < 220 ? (d == 1 ? in.size_arg(6) : d) : in.size_arg(6));
    }
    if (in.byte() >= 240 && !target.empty()) target.erase(0);  // maybe lower rank
    Expect e;
    if (target.size() > kMaxRank) e.add(ShapeErrorKind::rank_too_large);
    if (target.size() < rank()) e.add(ShapeErrorKind::broadcast_incompatible);
    if (!numel_of(target)) e.add(ShapeErrorKind::size_overflow);
    const std::size_t shift = target.size() >= rank() ? target.size() - rank() : 0;
    if (target.size() >= rank())
      for (std::size_t k = 0; k < rank(); ++k)
        if (t.shape()[k] != 1 && t.shape()[k] != target[shift + k])
          e.add(ShapeErrorKind::broadcast_incompatible);
    NodePtr next;
    if (e.ok) {
      const Shape own = t.shape();
      next = make_view(model, target, [own, shift](const Shape& i) {
        Shape p(own.size(), 0);
        for (std::size_t k = 0; k < own.size(); ++k) p[k] = own[k] == 1 ? 0 : i[shift + k];
        return p;
      });
    }
    adopt(t.broadcast_to(target), e, next);
  }

  /// split / chunk / unbind: the pieces, in order; one of them continues the chain.
  void op_pieces() {
    const std::size_t which = in.small(2);
    const std::size_t dim = axis();
    const std::size_t arg = in.size_arg(8);
    Expect e;
    if (dim >= rank()) e.add(ShapeErrorKind::axis_out_of_range);
    std::vector<std::pair<std::size_t, std::size_t>> ranges;  // (start, length); unbind: length 0
    if (e.ok) {
      const std::size_t total = t.shape()[dim];
      if (which == 0) {  // split(dim, size)
        if (total == 0)
          ranges.push_back({0, 0});
        else if (arg == 0)
          e.add(ShapeErrorKind::invalid_argument);
        else if (total / arg > kMaxPieces)
          return;
        else
          for (std::size_t s = 0; s < total; s += std::min(arg, total - s)) {
            ranges.push_back({s, std::min(arg, total - s)});
            if (total - s <= arg) break;
          }
      } else if (which == 1) {  // chunk(dim, n): pieces of ceil(total / n)
        if (arg == 0) {
          e.add(ShapeErrorKind::invalid_argument);
        } else if (total == 0) {
          if (arg > kMaxPieces) return;
          ranges.assign(arg, {0, 0});
        } else {
          const std::size_t piece = total / arg + (total % arg != 0);
          if (total / piece > kMaxPieces) return;
          for (std::size_t s = 0; s < total; s += piece) {
            ranges.push_back({s, std::min(piece, total - s)});
            if (total - s <= piece) break;  // s + piece could wrap around
          }
        }
      } else {  // unbind(dim)
        if (total > kMaxPieces) return;
        for (std::size_t s = 0; s < total; ++s) ranges.push_back({s, 0});
      }
    }
    const auto r = which == 0 ? t.split(dim, arg) : which == 1 ? t.chunk(dim, arg) : t.unbind(dim);
    if (!check_outcome(r, e)) return;
    CHECK(r->size() == ranges.size());
    NodePtr chosen;
    std::size_t pick = ranges.empty() ? 0 : in.small(255) % ranges.size();
    for (std::size_t k = 0; k < ranges.size(); ++k) {
      const std::size_t start = ranges[k].first, len = ranges[k].second;
      NodePtr piece;
      if (which == 2) {
        Shape s = model->shape;
        s.erase(dim);
        piece = make_view(model, s, [dim, start](const Shape& i) {
          Shape p = i;
          p.insert(dim, start);
          return p;
        });
      } else {
        Shape s = model->shape;
        s[dim] = t.shape()[dim] == 0 ? 0 : len;
        piece = make_view(model, s, [dim, start](const Shape& i) {
          Shape p = i;
          p[dim] += start;
          return p;
        });
      }
      if (k == pick || ranges.size() <= 8) check_tensor(fx, (*r)[k], *piece);
      if (k == pick) chosen = piece;
    }
    if (chosen) {
      const Tensor<T> next = (*r)[pick];
      t = next;
      model = chosen;
    }
  }

  void op_as_strided() {
    Shape shape;
    Strides strides;
    const std::size_t r = in.byte() < 250 ? in.small(6) : kMaxRank + in.small(2);
    for (std::size_t k = 0; k < r; ++k) {
      shape.push_back(in.size_arg(9));
      strides.push_back(in.signed_arg(12));
    }
    if (in.byte() >= 245) strides.push_back(1);  // rank mismatch
    const std::size_t len = fx.buffer.size();
    const std::size_t offset = in.size_arg(len + 2);
    Expect e = expect_layout(shape, strides, offset, len);
    NodePtr next;
    if (e.ok || e.allows(ShapeErrorKind::size_overflow)) {
      std::vector<i128> st(strides.begin(), strides.end());
      next = make_base(shape, st, offset);
    }
    adopt(t.as_strided(shape, strides, offset), e, next);
  }

  /// The documented outcome of a layout over a buffer of `len` elements (as_strided).
  static Expect expect_layout(const Shape& shape, const Strides& strides, std::size_t offset,
                              std::size_t len) {
    Expect e;
    if (shape.size() > kMaxRank) e.add(ShapeErrorKind::rank_too_large);
    if (strides.size() != shape.size()) e.add(ShapeErrorKind::rank_mismatch);
    if (!e.ok) return e;
    const auto n = numel_of(shape);
    if (!n) {
      e.add(ShapeErrorKind::size_overflow);
      return e;
    }
    i128 low = 0, high = 0;
    bool term_overflow = false;
    for (std::size_t k = 0; k < shape.size(); ++k) {
      if (shape[k] == 0) continue;
      const i128 step = i128(shape[k] - 1) * strides[k];
      if (step > kPtrMax || step < -kPtrMax - 1) {
        term_overflow = true;  // not summed: 66 such terms could overflow even 128 bits
        continue;
      }
      (step < 0 ? low : high) += step;
    }
    if (*n == 0) {
      // Reaches nothing: fine, unless a value itself does not fit (the layout is still checked).
      if (offset > kPtrMax) e.add(ShapeErrorKind::size_overflow);
      if (term_overflow || high > kPtrMax || low < -kPtrMax - 1 || i128(offset) + high > kPtrMax)
        e.allow(ShapeErrorKind::size_overflow);
      return e;
    }
    const bool overflow = term_overflow || offset > kPtrMax || high > kPtrMax ||
                          low < -kPtrMax - 1 || i128(offset) + high > kPtrMax;
    if (term_overflow || i128(offset) + low < 0 || i128(offset) + high >= i128(len)) {
      e.add(ShapeErrorKind::storage_out_of_bounds);
      if (overflow) e.allow(ShapeErrorKind::size_overflow);
    }
    return e;
  }
};

template <class T>
T value_at(std::size_t i) {
  // Distinct small integers (exact in every type used here), not in storage order.
  const std::uint64_t v = (i * 7919u + 17u) % 4093u;
  return static_cast<T>(std::is_same_v<T, std::uint8_t> ? v % 251u : v);
}

template <class T>
void run(ByteReader& in) {
  Fixture<T> fx;
  fx.rng = in.byte() + 1u;
  // The starting tensor: row-major over its own buffer, or a checked as_strided layout.
  Shape shape;
  const std::size_t rank = in.small(8);
  std::size_t numel = 1;
  for (std::size_t k = 0; k < rank; ++k) {
    const std::size_t d = in.small(6);
    if (numel * d > 720) break;
    shape.push_back(d);
    numel *= d;
  }
  const bool strided_start = in.byte() < 96;
  const std::size_t len = strided_start ? in.small(255) : numel;
  fx.buffer.resize(len);
  for (std::size_t i = 0; i < len; ++i) fx.buffer[i] = value_at<T>(i);

  // from_vector / from_slice must reject a length that does not match.
  if (len > 0 && !strided_start) {
    const auto bad = Tensor<T>::from_slice(std::span<const T>(fx.buffer).first(len - 1), shape);
    CHECK(!bad && bad.error().kind() == ShapeErrorKind::element_count_mismatch);
  }
  auto made = strided_start ? Tensor<T>::from_vector(fx.buffer, Shape{len})
                            : Tensor<T>::from_vector(fx.buffer, shape);
  CHECK(made.has_value());
  std::vector<i128> row_major(strided_start ? 1 : shape.size(), 1);
  if (!strided_start)
    for (std::size_t k = shape.size(); k-- > 1;) row_major[k - 1] = row_major[k] * shape[k];
  Session<T> s{fx, in, *made, make_base(strided_start ? Shape{len} : shape, row_major, 0)};
  check_tensor(fx, s.t, *s.model);
  if (strided_start) s.op_as_strided();

  for (int step = 0; step < 24 && !in.done(); ++step) {
    const std::size_t op = in.small(15);
    if (g_trace) std::fprintf(stderr, "op %zu\n", op);
    switch (op) {
      case 0:
        s.op_transpose();
        break;
      case 1:
        s.op_permute();
        break;
      case 2:
        s.op_movedim();
        break;
      case 3:
        s.op_narrow();
        break;
      case 4:
        s.op_slice();
        break;
      case 5:
        s.op_flip();
        break;
      case 6:
        s.op_squeeze();
        break;
      case 7:
        s.op_unsqueeze();
        break;
      case 8:
        s.op_select();
        break;
      case 9:
        s.op_reshape();
        break;
      case 10:
        s.op_flatten();
        break;
      case 11:
        s.op_unflatten();
        break;
      case 12:
        s.op_diagonal();
        break;
      case 13:
        s.op_broadcast();
        break;
      case 14:
        s.op_pieces();
        break;
      default:
        s.op_as_strided();
        break;
    }
    if (in.byte() < 64) check_reads(fx, s.t, *s.model);
  }
  check_reads(fx, s.t, *s.model);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader in(std::span<const std::uint8_t>(data, size));
  switch (in.small(3)) {
    case 0:
      run<std::uint8_t>(in);
      break;
    case 1:
      run<std::int16_t>(in);
      break;
    case 2:
      run<std::int32_t>(in);
      break;
    default:
      run<double>(in);
      break;
  }
  return 0;
}
