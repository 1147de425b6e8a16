#include "catch_shim.hpp"
// AnyTensor: typed access, every view and cast against the typed result, equality, and printing
// byte-identical to PyTorch's str(t) with its dtype suffix (tests/data/dtype_cases.txt).
#include <cstdint>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <strided/any_tensor.hpp>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

using strided::AnyTensor;
using strided::DType;
using strided::Shape;
using strided::Tensor;

namespace {

// Element i of a test tensor: in range for every type, negative where the type allows.
template <class T>
T value_at(std::size_t i) {
  const double v = static_cast<double>(static_cast<int>(i % 23) - 7) * 1.5;
  return strided::detail::cast_value<double, T>(v);
}

template <class T>
Tensor<T> iota(const Shape& shape) {
  std::size_t n = 1;
  for (std::size_t s : shape) n *= s;
  std::vector<T> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(value_at<T>(i));
  return Tensor<T>::from_vector(std::move(v), shape).value();
}

AnyTensor any_iota(DType d, const Shape& shape) {
  return strided::visit_dtype(
      d, [&]<class T>(std::type_identity<T>) { return AnyTensor(iota<T>(shape)); });
}

// What a view op gave, reduced to what the comparison reads. The comparison below is then one
// function rather than one per dtype and op (13 x 29 copies of a dozen CHECKs made this the
// slowest test file to compile).
struct ViewOutcome {
  bool ok = false;
  int error_kind = 0;
  std::string error_message;
  DType dtype = DType::f32;
  strided::Layout layout;
  const void* storage = nullptr;
};

template <class R>
ViewOutcome outcome(const R& r) {
  ViewOutcome o;
  o.ok = r.has_value();
  if (!r) {
    o.error_kind = static_cast<int>(r.error().kind());
    o.error_message = r.error().message();
    return o;
  }
  using V = std::decay_t<decltype(*r)>;
  if constexpr (std::is_same_v<V, AnyTensor>)
    o.dtype = r->dtype();
  else
    o.dtype = strided::dtype_of<typename V::value_type>;
  o.layout = r->layout();
  o.storage = r->storage().get();
  return o;
}

// The typed and the AnyTensor view have the same layout, buffer and dtype (or both fail with
// the same kind and message).
void check_same_view(const ViewOutcome& want, const ViewOutcome& got) {
  REQUIRE(want.ok == got.ok);
  if (!want.ok) {
    CHECK(want.error_kind == got.error_kind);
    CHECK(want.error_message == got.error_message);
    return;
  }
  CHECK(got.dtype == want.dtype);
  CHECK(got.layout == want.layout);
  CHECK(got.storage == want.storage);
}

template <class T, class Op>
void check_view(const Tensor<T>& typed, const AnyTensor& any, const Op& op) {
  check_same_view(outcome(op(typed)), outcome(op(any)));
}

// At namespace scope, so that each op's AnyTensor form is compiled once, not once per dtype.
const auto view_ops = std::tuple{
    [](const auto& t) { return t.transpose(0, 2); },
    [](const auto& t) { return t.transpose(0, 3); },
    [](const auto& t) { return t.transpose_2d(); },
    [](const auto& t) {
      return t.permute({2, 0, 1});
    },
    [](const auto& t) {
      return t.permute({0, 0, 1});
    },
    [](const auto& t) { return t.narrow(1, 1, 2); },
    [](const auto& t) { return t.narrow(1, 3, 2); },
    [](const auto& t) {
      return t.reshape({12, 5});
    },
    [](const auto& t) {
      return t.reshape({7, 5});
    },
    [](const auto& t) {
      return t.broadcast_to({2, 3, 4, 5});
    },
    [](const auto& t) {
      return t.broadcast_to({3, 4, 6});
    },
    [](const auto& t) { return t.slice(2, -1, strided::slice_end, -2); },
    [](const auto& t) { return t.slice(2, 0, 5, 0); },
    [](const auto& t) { return t.flip(1); },
    [](const auto& t) {
      return t.flip(Shape{0, 2});
    },
    [](const auto& t) { return t.unsqueeze(1); },
    [](const auto& t) { return t.unsqueeze(9); },
    [](const auto& t) { return t.squeeze(); },
    [](const auto& t) { return t.squeeze(0); },
    [](const auto& t) { return t.select(2, 4); },
    [](const auto& t) { return t.select(2, 5); },
    [](const auto& t) { return t.flatten(); },
    [](const auto& t) { return t.flatten(1, 2); },
    [](const auto& t) {
      return t.unflatten(2, {5, 1});
    },
    [](const auto& t) { return t.movedim(0, 2); },
    [](const auto& t) { return t.diagonal(1, 1, 2); },
    [](const auto& t) {
      return t.as_strided({2, 2}, {1, 3}, 4);
    },
    [](const auto& t) {
      return t.as_strided({2, 2}, {100, 3}, 4);
    },
};

template <class T>
void check_all_views() {
  const Tensor<T> typed = iota<T>({3, 4, 5});
  const AnyTensor any = typed;
  std::apply([&](const auto&... op) { (check_view(typed, any, op), ...); }, view_ops);
  const Tensor<T> sq = typed.narrow(0, 0, 1).value().squeeze(0).value();
  check_view(sq, AnyTensor(sq), std::get<2>(view_ops));  // transpose_2d of a matrix
}

template <class T, class Op>
void check_pieces(const Tensor<T>& typed, const AnyTensor& any, Op op) {
  auto want = op(typed);
  auto got = op(any);
  REQUIRE(want.has_value() == got.has_value());
  if (!want) {
    CHECK(want.error().kind() == got.error().kind());
    return;
  }
  REQUIRE(want->size() == got->size());
  for (std::size_t k = 0; k < want->size(); ++k) {
    CHECK((*got)[k].layout() == (*want)[k].layout());
    CHECK((*got)[k].dtype() == strided::dtype_of<T>);
    CHECK((*got)[k].shares_storage_with(any));
  }
}

struct ExpectedPrint {
  std::string dtype;
  Shape shape;
  std::vector<std::string> values;
  std::string text;
};

std::vector<ExpectedPrint> read_print_cases() {
  std::ifstream in(STRIDED_TEST_DATA_DIR "/dtype_cases.txt");
  REQUIRE(in.good());
  std::vector<ExpectedPrint> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string tag;
    words >> tag;
    if (tag != "case") continue;
    ExpectedPrint c;
    std::size_t rank = 0, numel = 0;
    words >> c.dtype >> rank;
    c.shape.resize(rank);
    for (std::size_t k = 0; k < rank; ++k) words >> c.shape[k];
    words >> numel;
    c.values.resize(numel);
    for (std::string& v : c.values) words >> v;
    std::getline(in, line);
    REQUIRE(line.rfind("expected ", 0) == 0);
    const int lines = std::stoi(line.substr(9));
    for (int k = 0; k < lines; ++k) {
      std::getline(in, line);
      c.text += (k ? "\n" : "") + line;
    }
    std::getline(in, line);
    REQUIRE(line == "end");
    out.push_back(std::move(c));
  }
  return out;
}

template <class T>
T parse_value(const std::string& s) {
  if constexpr (std::is_same_v<T, bool>)
    return s == "1";
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    return static_cast<T>(std::stoll(s));
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(std::stoull(s));
  else
    return strided::detail::cast_value<double, T>(std::stod(s));  // exact: the held value
}

AnyTensor build(const ExpectedPrint& c) {
  const DType d = strided::dtype_from_name(c.dtype).value();
  return strided::visit_dtype(d, [&]<class T>(std::type_identity<T>) {
    std::vector<T> v;
    for (const std::string& s : c.values) v.push_back(parse_value<T>(s));
    return AnyTensor(Tensor<T>::from_vector(std::move(v), c.shape).value());
  });
}

}  // namespace

TEST_CASE("any_tensor: holds a Tensor<T> without copying; as<T> and visit give it back") {
  const Tensor<std::int32_t> t = iota<std::int32_t>({2, 3});
  const AnyTensor a = t;  // implicit
  CHECK(a.dtype() == DType::i32);
  CHECK(a.element_size() == 4);
  CHECK(a.shape() == Shape{2, 3});
  CHECK(a.strides() == strided::Strides{3, 1});
  CHECK(a.offset() == 0);
  CHECK(a.rank() == 2);
  CHECK(a.numel() == 6);
  CHECK_FALSE(a.empty());
  CHECK(a.is_contiguous());
  CHECK(a.storage_len() == 6);
  CHECK(a.storage().get() == t.storage().get());
  CHECK(a.holds<std::int32_t>());
  CHECK_FALSE(a.holds<std::int64_t>());
  auto back = a.as<std::int32_t>();
  REQUIRE(back);
  CHECK(back->storage() == t.storage());
  const std::string seen = a.visit([](const auto& x) {
    return std::string(
        strided::element_traits<typename std::decay_t<decltype(x)>::value_type>::name);
  });
  CHECK(seen == "i32");
}

TEST_CASE("any_tensor: as<T> of the wrong type is a DTypeError naming both dtypes") {
  const AnyTensor a = iota<float>({4});
  auto wrong = a.as<double>();
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().expected() == DType::f64);
  CHECK(wrong.error().actual() == DType::f32);
  CHECK(wrong.error().message() == "as: the tensor holds f32, not f64");
  for (const strided::DTypeInfo& row : strided::dtype_registry) {
    const AnyTensor x = any_iota(row.dtype, {2});
    CHECK(x.dtype() == row.dtype);
    CHECK(x.as<std::uint16_t>().has_value() == (row.dtype == DType::u16));
    CHECK(x.as<strided::bf16>().has_value() == (row.dtype == DType::bf16));
  }
}

TEST_CASE("any_tensor: every view equals the typed view, for every dtype") {
  check_all_views<bool>();
  check_all_views<std::uint8_t>();
  check_all_views<std::int8_t>();
  check_all_views<std::uint16_t>();
  check_all_views<std::int16_t>();
  check_all_views<std::uint32_t>();
  check_all_views<std::int32_t>();
  check_all_views<std::uint64_t>();
  check_all_views<std::int64_t>();
  check_all_views<strided::f16>();
  check_all_views<strided::bf16>();
  check_all_views<float>();
  check_all_views<double>();
}

TEST_CASE("any_tensor: split, chunk, unbind and broadcast_with") {
  const Tensor<std::int16_t> typed = iota<std::int16_t>({4, 6});
  const AnyTensor any = typed;
  check_pieces(typed, any, [](const auto& t) { return t.split(1, 4); });
  check_pieces(typed, any, [](const auto& t) { return t.split(2, 4); });
  check_pieces(typed, any, [](const auto& t) { return t.chunk(0, 3); });
  check_pieces(typed, any, [](const auto& t) { return t.unbind(0); });
  check_pieces(typed, any, [](const auto& t) { return t.unbind(5); });
  const AnyTensor column = iota<double>({4, 1});  // another dtype: broadcasting is shape-only
  auto pair = any.broadcast_with(column);
  REQUIRE(pair);
  CHECK(pair->first.shape() == Shape{4, 6});
  CHECK(pair->second.shape() == Shape{4, 6});
  CHECK(pair->second.dtype() == DType::f64);
  CHECK(pair->second.strides() == strided::Strides{1, 0});
  auto bad = any.broadcast_with(iota<double>({3}));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().kind() == strided::ShapeErrorKind::broadcast_incompatible);
}

TEST_CASE("any_tensor: contiguous and cast match the typed results for every dtype pair") {
  for (const strided::DTypeInfo& from : strided::dtype_registry) {
    const AnyTensor base = any_iota(from.dtype, {3, 5});
    const AnyTensor view = base.transpose(0, 1).value().flip(0).value();
    const AnyTensor dense = view.contiguous();
    CHECK(dense.is_contiguous());
    CHECK(dense.dtype() == from.dtype);
    CHECK(strided::equal(dense, view));
    CHECK(base.contiguous().storage() == base.storage());  // already contiguous: same buffer
    const AnyTensor tried = view.try_contiguous().value();
    CHECK(tried.is_contiguous());
    CHECK(tried.dtype() == from.dtype);
    CHECK(strided::equal(tried, view));
    CHECK(base.try_contiguous()->storage() == base.storage());
    for (const strided::DTypeInfo& to : strided::dtype_registry) {
      INFO(from.name << " -> " << to.name);
      auto got = view.cast(to.dtype);
      REQUIRE(got);
      CHECK(got->dtype() == to.dtype);
      CHECK(got->is_contiguous());
      CHECK_FALSE(got->shares_storage_with(view));
      const bool same = view.visit([&]<class T>(const Tensor<T>& t) {
        return strided::visit_dtype(to.dtype, [&]<class U>(std::type_identity<U>) {
          return strided::equal(*got->as<U>(), t.template cast<U>().value());
        });
      });
      CHECK(same);
    }
  }
}

TEST_CASE("any_tensor: zeros and ones of a runtime dtype; their errors") {
  for (const strided::DTypeInfo& row : strided::dtype_registry) {
    auto z = AnyTensor::zeros(row.dtype, {2, 2});
    auto o = AnyTensor::ones(row.dtype, {3});
    REQUIRE(z);
    REQUIRE(o);
    CHECK(z->dtype() == row.dtype);
    CHECK(
        strided::equal(o->cast(DType::f64).value(), AnyTensor(Tensor<double>::ones({3}).value())));
    CHECK(strided::equal(z->cast(DType::i64).value(),
                         AnyTensor(Tensor<std::int64_t>::zeros({2, 2}).value())));
  }
  const std::size_t huge = std::size_t{1} << 62;
  auto overflow = AnyTensor::zeros(DType::f32, {huge, huge});
  REQUIRE_FALSE(overflow);
  CHECK(overflow.error().kind() == strided::ShapeErrorKind::size_overflow);
}

TEST_CASE("any_tensor: equal and allclose need the same dtype, then compare values") {
  const AnyTensor a = Tensor<float>::from_vector({1.0f, 2.0f}, {2}).value();
  const AnyTensor b = Tensor<float>::from_vector({1.0f, 2.000001f}, {2}).value();
  const AnyTensor c = Tensor<double>::from_vector({1.0, 2.0}, {2}).value();
  CHECK(strided::equal(a, a));
  CHECK_FALSE(strided::equal(a, b));
  CHECK(strided::allclose(a, b));
  CHECK_FALSE(strided::allclose(a, b, 0.0, 0.0));
  CHECK_FALSE(strided::equal(a, c));
  CHECK_FALSE(strided::allclose(a, c));
  CHECK(strided::equal(a.cast(DType::f64).value(), c));
  const AnyTensor d = Tensor<float>::from_vector({1.0f, 2.0f, 3.0f}, {3}).value();
  CHECK_FALSE(strided::equal(a, d));
}

TEST_CASE("any_tensor: printing is PyTorch's str(t) with its dtype suffix, every dtype") {
  const auto cases = read_print_cases();
  REQUIRE(cases.size() > 300);
  std::set<std::string> dtypes;
  int multi_line_suffix = 0;
  for (const ExpectedPrint& c : cases) {
    INFO(c.dtype << " shape " << c.shape.size() << "-d");
    const AnyTensor t = build(c);
    CHECK(strided::to_string(t) == c.text);
    std::ostringstream os;
    os << t;
    CHECK(os.str() == c.text);
    dtypes.insert(c.dtype);
    if (c.text.find("\n       dtype=") != std::string::npos) ++multi_line_suffix;
  }
  CHECK(dtypes.size() == 13);
  CHECK(multi_line_suffix > 10);  // both branches of the suffix placement are exercised
}

TEST_CASE("any_tensor: printing keeps typed Tensor<T> output; empties and options") {
  const Tensor<std::int32_t> t = Tensor<std::int32_t>::from_vector({1, 2}, {2}).value();
  CHECK(strided::to_string(t) == "tensor([1, 2])");
  CHECK(strided::to_string(AnyTensor(t)) == "tensor([1, 2], dtype=torch.int32)");
  const AnyTensor h =
      Tensor<strided::f16>::from_vector({strided::f16(1.0f), strided::f16(2.0f)}, {2}).value();
  CHECK(strided::to_string(h) == "tensor([1., 2.], dtype=torch.float16)");
  // PyTorch names the dtype of every empty tensor but float32; strided keeps its shape form.
  const AnyTensor e64 = Tensor<std::int64_t>::zeros({2, 0}).value();
  CHECK(strided::to_string(e64) == "tensor([], shape=[2, 0], dtype=torch.int64)");
  const AnyTensor eb = Tensor<bool>::zeros({0}).value();
  CHECK(strided::to_string(eb) == "tensor([], shape=[0], dtype=torch.bool)");
  const AnyTensor e32 = Tensor<float>::zeros({0}).value();
  CHECK(strided::to_string(e32) == "tensor([], shape=[0])");
  strided::PrintOptions narrow;
  narrow.linewidth = 30;
  CHECK(strided::display(AnyTensor(t), narrow) == "tensor([1, 2],\n       dtype=torch.int32)");
  narrow.precision = 1;
  const AnyTensor d = Tensor<double>::from_vector({1.25, 2.5}, {2}).value();
  CHECK(strided::display(d, narrow) == "tensor([1.2, 2.5],\n       dtype=torch.float64)");
}

TEST_CASE("any_tensor: Debug form names the dtype") {
  const AnyTensor t = Tensor<std::uint8_t>::from_vector({1, 2, 3}, {3}).value();
  CHECK(strided::to_debug_string(t) ==
        "AnyTensor { dtype: u8, shape: [3], strides: [1], offset: 0, storage_len: 3, data: [1, "
        "2, 3] }");
  CHECK(strided::to_debug_string(t, true) ==
        "AnyTensor {\n    dtype: u8,\n    shape: [3],\n    strides: [1],\n    offset: 0,\n    "
        "storage_len: 3,\n    data: [1, 2, 3],\n}");
}
