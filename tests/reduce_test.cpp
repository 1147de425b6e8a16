// Reductions (strided/reduce.hpp): every case of tests/data/reduce_cases.txt (NumPy values,
// PyTorch dtypes; tests/gen_reduce_cases.py) replayed through both forms (new tensor, *_into),
// then the rules the table cannot show: bit-identical results for 1, 2, 3 and 8 threads, NaN and
// first-occurrence rules, f32 accuracy against a double reference, and every error with its
// message.
#include "strided/reduce.hpp"

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
  CHECK(std::memcmp(buf.get(), got.data(), got.size() * sizeof(R)) == 0);
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
