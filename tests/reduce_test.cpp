// Reductions (strided/reduce.hpp): every case of tests/data/reduce_cases.txt (NumPy values,
// PyTorch dtypes; tests/gen_reduce_cases.py) replayed through both forms (new tensor, *_into),
// then the rules the table cannot show: bit-identical results for 1, 2, 3 and 8 threads, NaN and
// first-occurrence rules, f32 accuracy against a double reference, and every error with its
// message.
#include "strided/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "catch_shim.hpp"
#include "strided/map.hpp"
#include "thread_support.hpp"

using strided::Shape;
using strided::ShapeErrorKind;
using strided::Tensor;

namespace {

struct View {
  std::string kind;
  Shape dims;  // perm / flip / bcast
  std::size_t dim = 0, start = 0, length = 0;
};

struct Case {
  std::string op, dtype, scale, shift, error;
  double correction = 1;
  bool keepdim = false, all = false;
  Shape axes, dims, out_shape;
  std::uint64_t a = 0, b = 0, m = 1;
  std::vector<std::size_t> nans;
  std::vector<View> views;
  std::vector<std::string> out;
};

Shape read_dims(std::istream& in) {
  std::size_t rank = 0;
  in >> rank;
  Shape s;
  for (std::size_t k = 0; k != rank; ++k) {
    std::size_t d = 0;
    in >> d;
    s.push_back(d);
  }
  return s;
}

bool read_case(std::istream& in, Case& c) {
  std::string word;
  if (!(in >> word)) return false;
  REQUIRE(word == "case");
  int naxes = 0;
  in >> c.op >> c.dtype >> c.correction >> c.keepdim >> naxes;
  c.all = naxes < 0;
  for (int k = 0; k < naxes; ++k) {
    std::size_t axis = 0;
    in >> axis;
    c.axes.push_back(axis);
  }
  in >> word;
  c.dims = read_dims(in);
  std::size_t nn = 0;
  in >> c.a >> c.b >> c.m >> c.scale >> c.shift >> nn;
  c.nans.resize(nn);
  for (auto& i : c.nans) in >> i;
  std::size_t nv = 0;
  in >> word >> nv;
  for (std::size_t k = 0; k != nv; ++k) {
    View v;
    in >> v.kind;
    if (v.kind == "narrow")
      in >> v.dim >> v.start >> v.length;
    else
      v.dims = read_dims(in);
    c.views.push_back(v);
  }
  in >> word;
  if (word == "err") {
    in >> c.error;
    return true;
  }
  c.out_shape = read_dims(in);
  std::size_t n = 1;
  for (std::size_t d : c.out_shape) n *= d;
  c.out.resize(n);
  for (auto& v : c.out) in >> v;
  return true;
}

template <class T>
Tensor<T> base_tensor(const Case& c) {
  std::size_t n = 1;
  for (std::size_t d : c.dims) n *= d;
  std::vector<T> v(n);
  for (std::size_t i = 0; i != n; ++i) {
    const std::uint64_t k = (i * c.a + c.b) % c.m;
    if constexpr (std::is_same_v<T, bool>) {
      v[i] = k % 2 != 0;
    } else if constexpr (std::is_integral_v<T>) {  // modular, as NumPy's int64 / uint64
      const std::uint64_t scale = std::strtoull(c.scale.c_str(), nullptr, 10);
      const auto shift = static_cast<std::uint64_t>(std::strtoll(c.shift.c_str(), nullptr, 10));
      v[i] = static_cast<T>(k * scale + shift);
    } else {
      v[i] = static_cast<T>(static_cast<double>(k) * std::strtod(c.scale.c_str(), nullptr) +
                            std::strtod(c.shift.c_str(), nullptr));
    }
  }
  if constexpr (!std::is_integral_v<T>)
    for (std::size_t i : c.nans) v[i] = static_cast<T>(std::numeric_limits<double>::quiet_NaN());
  auto t = Tensor<T>::from_vector(std::move(v), c.dims).value();
  for (const View& w : c.views) {
    if (w.kind == "perm") t = t.permute(w.dims).value();
    if (w.kind == "flip") t = t.flip(w.dims).value();
    if (w.kind == "bcast") t = t.broadcast_to(w.dims).value();
    if (w.kind == "narrow") t = t.narrow(w.dim, w.start, w.length).value();
  }
  return t;
}

// Allowed error of a float result, relative (and absolute below 1): a few units in the last
// place of the result type, for summation orders that differ from the reference's.
template <class R>
double tolerance() {
  if constexpr (std::is_same_v<R, strided::f16>) return 0x1p-9;
  if constexpr (std::is_same_v<R, strided::bf16>) return 0x1p-6;
  if constexpr (std::is_same_v<R, float>) return 0x1p-21;
  return 0x1p-45;
}

template <class R>
void check_value(R got, const std::string& want, const std::string& where) {
  INFO(where << " want " << want);
  if constexpr (std::is_same_v<R, std::int64_t>) {
    CHECK(got == std::strtoll(want.c_str(), nullptr, 10));
  } else if constexpr (std::is_same_v<R, std::uint64_t>) {
    CHECK(got == std::strtoull(want.c_str(), nullptr, 10));
  } else if constexpr (std::is_integral_v<R>) {
    CHECK(static_cast<long long>(got) == std::strtoll(want.c_str(), nullptr, 10));
  } else {
    double g = 0;
    if constexpr (std::is_same_v<R, double>)
      g = got;
    else
      g = static_cast<double>(static_cast<float>(got));
    const double w = std::strtod(want.c_str(), nullptr);
    INFO("got " << g);
    if (std::isnan(w))
      CHECK(std::isnan(g));
    else if (std::isinf(w))
      CHECK(g == w);
    else
      CHECK(std::abs(g - w) <= tolerance<R>() * std::max(1.0, std::abs(w)));
  }
}

// The two forms of one reduction, compared with the table and with each other (bit for bit).
template <class R, class Whole, class Into>
void check_forms(const Case& c, const std::string& where, Whole&& whole, Into&& into) {
  auto r = whole();
  if (!c.error.empty()) {
    REQUIRE_FALSE(r);
    CHECK(strided::to_string(r.error().kind()) == c.error);
    CHECK(r.error().op() == c.op);
    CHECK_FALSE(into(std::span<R>()));
    return;
  }
  REQUIRE(r);
  CHECK(r->shape() == c.out_shape);
  const std::span<const R> got = r->as_slice().value();
  REQUIRE(got.size() == c.out.size());
  for (std::size_t i = 0; i != got.size(); ++i) check_value(got[i], c.out[i], where);
  const std::unique_ptr<R[]> buf(new R[got.size() + 1]);
  REQUIRE(into(std::span<R>(buf.get(), got.size())));
  CHECK((got.empty() || std::memcmp(buf.get(), got.data(), got.size() * sizeof(R)) == 0));
}

template <class T>
void replay(const Case& c, const std::string& where) {
  const Tensor<T> t = base_tensor<T>(c);
  using S = strided::sum_type_t<T>;
  using M = strided::mean_type_t<T>;
  const bool keep = c.keepdim;
  auto run = [&]<class R>(auto all, auto all_into, auto some, auto some_into) {
    if (c.all)
      check_forms<R>(
          c, where, [&] { return all(); }, [&](std::span<R> o) { return all_into(o); });
    else
      check_forms<R>(
          c, where, [&] { return some(); }, [&](std::span<R> o) { return some_into(o); });
  };
#define STRIDED_TEST_OP(NAME, R)                                    \
  if (c.op == #NAME)                                                \
    return run.template operator()<R>(                              \
        [&] {                                                       \
          auto r = strided::NAME(t);                                \
          if (r && keep) return r->reshape(Shape(t.rank(), 1));     \
          return r;                                                 \
        },                                                          \
        [&](std::span<R> o) { return strided::NAME##_into(t, o); }, \
        [&] { return strided::NAME(t, c.axes, keep); },             \
        [&](std::span<R> o) { return strided::NAME##_into(t, c.axes, o); });
  STRIDED_TEST_OP(sum, S)
  STRIDED_TEST_OP(mean, M)
  STRIDED_TEST_OP(min, T)
  STRIDED_TEST_OP(max, T)
#undef STRIDED_TEST_OP
  if (c.op == "argmin" || c.op == "argmax") {
    const bool mx = c.op == "argmax";
    auto all = [&] {
      auto r = mx ? strided::argmax(t) : strided::argmin(t);
      if (r && keep) return r->reshape(Shape(t.rank(), 1));
      return r;
    };
    auto all_into = [&](std::span<std::int64_t> o) {
      return mx ? strided::argmax_into(t, o) : strided::argmin_into(t, o);
    };
    const std::size_t axis = c.axes.empty() ? 0 : c.axes[0];
    auto some = [&] {
      return mx ? strided::argmax(t, axis, keep) : strided::argmin(t, axis, keep);
    };
    auto some_into = [&](std::span<std::int64_t> o) {
      return mx ? strided::argmax_into(t, axis, o) : strided::argmin_into(t, axis, o);
    };
    return run.template operator()<std::int64_t>(all, all_into, some, some_into);
  }
  const bool sd = c.op == "std";
  REQUIRE((sd || c.op == "var"));
  auto all = [&] {
    auto r = sd ? strided::std(t, c.correction) : strided::var(t, c.correction);
    if (r && keep) return r->reshape(Shape(t.rank(), 1));
    return r;
  };
  auto all_into = [&](std::span<M> o) {
    return sd ? strided::std_into(t, o, c.correction) : strided::var_into(t, o, c.correction);
  };
  auto some = [&] {
    return sd ? strided::std(t, c.axes, c.correction, keep)
              : strided::var(t, c.axes, c.correction, keep);
  };
  auto some_into = [&](std::span<M> o) {
    return sd ? strided::std_into(t, c.axes, o, c.correction)
              : strided::var_into(t, c.axes, o, c.correction);
  };
  run.template operator()<M>(all, all_into, some, some_into);
}

void replay_any(const Case& c, const std::string& where) {
  if (c.dtype == "bool") return replay<bool>(c, where);
  if (c.dtype == "u8") return replay<std::uint8_t>(c, where);
  if (c.dtype == "i8") return replay<std::int8_t>(c, where);
  if (c.dtype == "i32") return replay<std::int32_t>(c, where);
  if (c.dtype == "i64") return replay<std::int64_t>(c, where);
  if (c.dtype == "u64") return replay<std::uint64_t>(c, where);
  if (c.dtype == "f16") return replay<strided::f16>(c, where);
  if (c.dtype == "bf16") return replay<strided::bf16>(c, where);
  if (c.dtype == "f32") return replay<float>(c, where);
  REQUIRE(c.dtype == "f64");
  replay<double>(c, where);
}

}  // namespace

TEST_CASE("reductions match NumPy / PyTorch on the generated table", "[reduce]") {
  std::ifstream file(STRIDED_TEST_DATA_DIR "/reduce_cases.txt");
  REQUIRE(file);
  std::string line;
  std::getline(file, line);
  std::size_t expected = 0;
  file >> expected;
  std::size_t n = 0;
  for (Case c; read_case(file, c); c = Case{}) {
    replay_any(c, "case " + std::to_string(n) + ": " + c.op + " " + c.dtype);
    ++n;
  }
  CHECK(n == expected);
  CHECK(n > 1500);
}

namespace {

Tensor<float> random_matrix(std::size_t rows, std::size_t cols, std::uint32_t seed) {
  std::vector<float> v(rows * cols);
  std::uint32_t x = seed;
  for (float& e : v) {
    x = x * 1664525u + 1013904223u;
    e = static_cast<float>(x >> 8) * 0x1p-24f * 2.0f - 0.5f;
  }
  return Tensor<float>::from_vector(std::move(v), {rows, cols}).value();
}

template <class R>
std::vector<unsigned char> bytes_of(const Tensor<R>& t) {
  const auto s = t.as_slice().value();
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  return {p, p + s.size_bytes()};
}

// Every reduction of `t` the thread test compares, as bytes.
std::vector<std::vector<unsigned char>> all_results(const Tensor<float>& t) {
  std::vector<std::vector<unsigned char>> out;
  for (const Shape& axes : {Shape{0, 1}, Shape{0}, Shape{1}}) {
    out.push_back(bytes_of(strided::sum(t, axes).value()));
    out.push_back(bytes_of(strided::mean(t, axes).value()));
    out.push_back(bytes_of(strided::var(t, axes).value()));
    out.push_back(bytes_of(strided::max(t, axes).value()));
  }
  out.push_back(bytes_of(strided::argmax(t).value()));
  out.push_back(bytes_of(strided::argmin(t, 0).value()));
  out.push_back(bytes_of(strided::sum(t.cast<strided::f16>().value()).value()));
  return out;
}

}  // namespace

TEST_CASE("reductions are bit-identical for any thread count", "[reduce][threads]") {
  // 12 MiB: far above the parallel threshold, and many blocks of the fixed tree.
  const Tensor<float> t = random_matrix(3001, 1003, 7);
  const Tensor<float> views[] = {t, t.transpose(0, 1).value(), t.flip(Shape{0, 1}).value()};
  for (const Tensor<float>& v : views) {
    std::vector<std::vector<unsigned char>> first;
    {
      const strided_test::ScopedThreadCount one(1);
      first = all_results(v);
    }
    for (const std::size_t threads : {std::size_t{2}, std::size_t{3}, std::size_t{8}}) {
      const strided_test::ScopedThreadCount many(threads);
      CHECK(all_results(v) == first);
    }
  }
  CHECK(strided::detail::pool_worker_count() > 0);  // the pool did take part
}

TEST_CASE("f32 sums are pairwise: no error growth with the count", "[reduce]") {
  // 2^22 values near 1: a sequential f32 sum is off by ~1e-4 relative, pairwise by ~1e-7.
  const std::size_t n = std::size_t{1} << 22;
  const Tensor<float> t = random_matrix(n / 1024, 1024, 11);
  const auto values = t.as_slice().value();
  double exact = 0;
  for (float v : values) exact += static_cast<double>(v) + 1.0;
  const auto shifted = strided::map(t, [](float v) { return v + 1.0f; }).value();
  for (const Tensor<float>& view : {shifted, shifted.transpose(0, 1).value()}) {
    const double got = strided::sum(view).value().get({}).value();
    CHECK(std::abs(got - exact) / exact < 1e-6);
  }
  // Down the columns (the across-outputs form): each column of 4096 values.
  const auto cols = strided::sum(shifted, {0}).value();
  double worst = 0;
  for (std::size_t c = 0; c != 1024; ++c) {
    double e = 0;
    for (std::size_t r = 0; r != n / 1024; ++r)
      e += static_cast<double>(values[r * 1024 + c]) + 1.0;
    worst = std::max(worst, std::abs(cols.get({c}).value() - e) / e);
  }
  CHECK(worst < 1e-6);
}

TEST_CASE("NaN propagates; argmin / argmax take the first NaN or the first extremum", "[reduce]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto t = Tensor<float>::from_vector({1, nan, 3, nan, 3}, {5}).value();
  CHECK(strided::argmax(t).value().get({}).value() == 1);
  CHECK(strided::argmin(t).value().get({}).value() == 1);
  CHECK(std::isnan(strided::max(t).value().get({}).value()));
  CHECK(std::isnan(strided::min(t).value().get({}).value()));
  CHECK(std::isnan(strided::sum(t).value().get({}).value()));
  const auto ties = Tensor<std::int32_t>::from_vector({3, 1, 3, 1}, {4}).value();
  CHECK(strided::argmax(ties).value().get({}).value() == 0);
  CHECK(strided::argmin(ties).value().get({}).value() == 1);
  CHECK(strided::argmax(ties.flip(0).value()).value().get({}).value() == 1);
  // A NaN after many leaves of larger values, and in the across-outputs form.
  std::vector<float> big(5000, 2.0f);
  big[4321] = nan;
  big[4999] = 9.0f;
  const auto b = Tensor<float>::from_vector(std::move(big), {5000}).value();
  CHECK(strided::argmax(b).value().get({}).value() == 4321);
  const auto col = b.reshape({250, 20}).value();
  const auto per_col = strided::argmax(col, 0).value();
  CHECK(per_col.get({1}).value() == 216);  // 4321 = 216 * 20 + 1
  CHECK(per_col.get({19}).value() == 249);
  CHECK(per_col.get({0}).value() == 0);
  CHECK(std::isnan(strided::max(col, {0}).value().get({1}).value()));
  const auto h = t.cast<strided::f16>().value();
  CHECK(strided::argmax(h).value().get({}).value() == 1);
}

namespace {

// The one-pass definition: the first NaN if any, else the first element equal to the extremum.
template <class F, bool Max>
std::int64_t naive_arg(const std::vector<F>& v) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i) {
    const bool better = Max ? v[i] > v[best] : v[i] < v[best];
    if (better || (std::isnan(v[i]) && !std::isnan(v[best]))) best = i;
  }
  return static_cast<std::int64_t>(best);
}

// Values drawn from a few, so that ties across lanes and leaves are common; zeros of both signs;
// NaNs in some arrays; lengths around the lane and leaf sizes.
template <class F>
void check_arg_against_naive(std::uint32_t seed) {
  std::uint32_t state = seed;
  const auto next = [&state] { return state = state * 1664525u + 1013904223u; };
  const F pool[] = {F(-3),
                    F(-0.0),
                    F(0.0),
                    F(1.5),
                    F(2),
                    F(7),
                    F(7),
                    std::numeric_limits<F>::infinity(),
                    -std::numeric_limits<F>::infinity()};
  for (int round = 0; round < 300; ++round) {
    const std::size_t n = 1 + next() % 700;
    std::vector<F> v(n);
    for (F& x : v) x = pool[next() % std::size(pool)];
    if (round % 3 == 0)
      for (std::uint32_t k = next() % 3; k-- > 0;)
        v[next() % n] = std::numeric_limits<F>::quiet_NaN();
    const auto t = Tensor<F>::from_vector(v, {n}).value();
    INFO("seed " << seed << " round " << round << " n " << n);
    CHECK(strided::argmax(t).value().get({}).value() == naive_arg<F, true>(v));
    CHECK(strided::argmin(t).value().get({}).value() == naive_arg<F, false>(v));
  }
}

}  // namespace

TEST_CASE("argmin / argmax of contiguous runs equal the one-pass definition", "[reduce]") {
  // Contiguous leaves take a lane-by-lane path: ties across lanes, NaNs and signed zeros must
  // give the sequential loop's index.
  check_arg_against_naive<float>(1);
  check_arg_against_naive<float>(2);
  check_arg_against_naive<double>(3);
}

TEST_CASE("reduction dtypes follow PyTorch (integer means follow NumPy)", "[reduce]") {
  STATIC_REQUIRE(std::is_same_v<strided::sum_type_t<bool>, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<strided::sum_type_t<std::uint8_t>, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<strided::sum_type_t<std::uint64_t>, std::uint64_t>);
  STATIC_REQUIRE(std::is_same_v<strided::sum_type_t<strided::bf16>, strided::bf16>);
  STATIC_REQUIRE(std::is_same_v<strided::mean_type_t<std::int32_t>, double>);
  STATIC_REQUIRE(std::is_same_v<strided::mean_type_t<strided::f16>, strided::f16>);
  // f16 accumulates in float, rounded once: 4096 + 1 + 1 + ... in f16 alone would stay 4096.
  std::vector<strided::f16> v(2049, strided::f16(1.0f));
  v[0] = strided::f16(4096.0f);
  const auto h = Tensor<strided::f16>::from_vector(std::move(v), {2049}).value();
  CHECK(static_cast<float>(strided::sum(h).value().get({}).value()) == 6144.0f);
}

TEST_CASE("empty reductions, empty axis lists and rank 0", "[reduce]") {
  const auto e = Tensor<float>::zeros({3, 0}).value();
  CHECK(strided::sum(e).value().get({}).value() == 0.0f);
  CHECK(std::isnan(strided::mean(e).value().get({}).value()));
  CHECK(std::isnan(strided::var(e, {1}).value().get({2}).value()));
  CHECK(strided::sum(e, {1}).value().shape() == Shape{3});
  CHECK(strided::max(e, {0}).value().shape() == Shape{0});  // no reduced axis is empty
  const auto t = Tensor<std::int32_t>::from_vector({1, 2, 3, 4}, {2, 2}).value();
  const auto same = strided::sum(t, {}).value();  // reduces nothing, as NumPy's axis=()
  CHECK(same.shape() == Shape{2, 2});
  CHECK(same.get({1, 0}).value() == 3);
  CHECK(strided::sum(t, {}, true).value().shape() == Shape{2, 2});
  CHECK(strided::sum(t, Shape{0, 1}, true).value().shape() == Shape{1, 1});
  const auto s = Tensor<double>::scalar(2.5);
  CHECK(strided::sum(s).value().get({}).value() == 2.5);
  CHECK(strided::argmax(s).value().get({}).value() == 0);
  CHECK(std::isnan(strided::var(s).value().get({}).value()));  // correction 1 of one element
  CHECK(strided::var(s, 0).value().get({}).value() == 0.0);
}

TEST_CASE("reduction errors name the op, the axis and the shape", "[reduce]") {
  const auto t = Tensor<float>::zeros({2, 3}).value();
  auto check = [](const auto& r, ShapeErrorKind kind, const std::string& message) {
    REQUIRE_FALSE(r);
    CHECK(r.error().kind() == kind);
    CHECK(r.error().message() == message);
  };
  check(strided::sum(t, {2}), ShapeErrorKind::axis_out_of_range,
        "sum: axis 2 is out of range for rank 2 (shape [2, 3])");
  check(strided::mean(t, {1, 0, 1}), ShapeErrorKind::duplicate_axis,
        "mean: axis 1 appears more than once in [1, 0, 1]");
  check(strided::argmax(t, 2), ShapeErrorKind::axis_out_of_range,
        "argmax: axis 2 is out of range for rank 2 (shape [2, 3])");
  const auto e = Tensor<float>::zeros({3, 0}).value();
  check(strided::max(e, {1}), ShapeErrorKind::invalid_argument,
        "max: axis 1 of size 0 (shape [3, 0]): cannot reduce an empty axis: the operation has "
        "no identity");
  check(strided::argmin(e), ShapeErrorKind::invalid_argument,
        "argmin: axis 1 of size 0 (shape [3, 0]): cannot reduce an empty axis: the operation "
        "has no identity");
  check(strided::min(e.transpose(0, 1).value()), ShapeErrorKind::invalid_argument,
        "min: axis 0 of size 0 (shape [0, 3]): cannot reduce an empty axis: the operation has "
        "no identity");
  // The *_into forms: the size checked, nothing written on any error.
  float out[4] = {7, 7, 7, 7};
  check(strided::sum_into(t, {0}, std::span<float>(out, 2)), ShapeErrorKind::element_count_mismatch,
        "sum: 2 elements do not match shape [3] (3 elements)");
  check(strided::var_into(t, {5}, std::span<float>(out, 3)), ShapeErrorKind::axis_out_of_range,
        "var: axis 5 is out of range for rank 2 (shape [2, 3])");
  std::int64_t idx[2] = {7, 7};
  check(strided::argmax_into(e, 1, std::span<std::int64_t>(idx, 3)),
        ShapeErrorKind::invalid_argument,
        "argmax: axis 1 of size 0 (shape [3, 0]): cannot reduce an empty axis: the operation "
        "has no identity");
  CHECK((out[0] == 7 && out[1] == 7 && out[2] == 7 && idx[0] == 7));
  REQUIRE(strided::sum_into(t, {0}, std::span<float>(out, 3)));
  CHECK((out[0] == 0 && out[2] == 0 && out[3] == 7));
}

TEST_CASE("a *_into output overlapping the input is memory_overlap, nothing written", "[reduce]") {
  std::vector<float> memory{1, 2, 3, 4, 5, 6, 7, 8};
  std::shared_ptr<const float> shared(memory.data(), [](const float*) {});
  const auto t =
      Tensor<float>::from_shared(shared, 8, strided::Layout::contiguous({2, 3}).value()).value();
  // Row sums into elements 5 and 6 (the second row's last element and the unused tail): overlap.
  auto r = strided::sum_into(t, Shape{1}, std::span(memory).subspan(5, 2));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().kind() == ShapeErrorKind::memory_overlap);
  CHECK(r.error().message() == "sum: the source and the destination overlap in memory");
  CHECK(memory == std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  // Just past the input: fine.
  REQUIRE(strided::sum_into(t, Shape{1}, std::span(memory).subspan(6, 2)).has_value());
  CHECK(memory[6] == 6);
  CHECK(memory[7] == 15);
}
