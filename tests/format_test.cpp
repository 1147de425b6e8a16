#include "catch_shim.hpp"
// Display (PyTorch 1.13 str(t), byte for byte against tests/data/display_cases.txt) and Debug,
// through tensor.hpp alone (no fmt).
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <numeric>
#include <sstream>
#include <strided/tensor.hpp>
#include <string>
#include <type_traits>
#include <vector>

using strided::bf16;
using strided::f16;
using strided::PrintOptions;
using strided::Shape;
using strided::Tensor;

// A user element type that counts how often the printer reads a value, to check that printing
// touches only the elements it shows.
struct Metres {
  float value;
};
inline std::size_t metres_reads = 0;

template <>
struct strided::element_traits<Metres> {
  static constexpr std::string_view name = "metres";
  static constexpr Metres zero() noexcept { return {0}; }
  static constexpr Metres one() noexcept { return {1}; }
  static float to_f32(Metres m) noexcept {
    ++metres_reads;
    return m.value;
  }
};

// A user element type with its own operator<< and nothing else: printed by its own text.
namespace units {
struct Grams {
  int value;
};
std::ostream& operator<<(std::ostream& os, const Grams& g) { return os << g.value << 'g'; }
}  // namespace units

template <>
struct strided::element_traits<units::Grams> {
  static constexpr std::string_view name = "grams";
  static constexpr units::Grams zero() noexcept { return {0}; }
  static constexpr units::Grams one() noexcept { return {1}; }
};

// Convertible to float AND streamable: the float form wins, as for the built-in floats.
struct Litres {
  float value;
};
inline std::ostream& operator<<(std::ostream& os, const Litres&) { return os << "never"; }
template <>
struct strided::element_traits<Litres> {
  static constexpr std::string_view name = "litres";
  static constexpr Litres zero() noexcept { return {0}; }
  static constexpr Litres one() noexcept { return {1}; }
  static float to_f32(Litres l) noexcept { return l.value; }
};

namespace {

// ----- the PyTorch cases (tests/data/display_cases.txt, see tests/gen_display_cases.py) ---------

struct DisplayCase {
  std::string name, dtype;
  Shape shape;
  std::vector<std::string> values;  // empty when generated
  std::vector<std::string> gen;     // a b mod mul
  std::vector<std::vector<std::string>> views;
  PrintOptions options;
  std::string expected;
};

std::vector<std::string> split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

template <class N>
N parse(const std::string& text) {
  N value{};
  if constexpr (std::is_floating_point_v<N>) {
    // strtod (the test runs in the "C" locale): libc++ before 20 lacks from_chars for floats.
    char* end = nullptr;
    value = static_cast<N>(std::strtod(text.c_str(), &end));
    if (text.empty() || end != text.c_str() + text.size())
      FAIL("cannot parse number '" << text << "'");
  } else {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
      FAIL("cannot parse number '" << text << "'");
  }
  return value;
}

std::vector<DisplayCase> load_cases() {
  std::ifstream in(STRIDED_TEST_DATA_DIR "/display_cases.txt");
  REQUIRE(in.good());
  std::vector<DisplayCase> cases;
  DisplayCase c;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> w = split(line);
    const std::vector<std::string> args(w.begin() + 1, w.end());
    if (w[0] == "case") {
      c = DisplayCase{};
      c.name = args.at(0);
    } else if (w[0] == "dtype") {
      c.dtype = args.at(0);
    } else if (w[0] == "shape") {
      for (const auto& a : args) c.shape.push_back(parse<std::size_t>(a));
    } else if (w[0] == "values") {
      c.values = args;
    } else if (w[0] == "gen") {
      c.gen = args;
    } else if (w[0] == "view") {
      c.views.push_back(args);
    } else if (w[0] == "options") {
      c.options.precision = parse<int>(args.at(0));
      c.options.threshold = parse<std::size_t>(args.at(1));
      c.options.edgeitems = parse<std::size_t>(args.at(2));
      c.options.linewidth = parse<std::size_t>(args.at(3));
      if (args.at(4) != "none") c.options.sci_mode = args.at(4) == "true";
    } else if (w[0] == "expected") {
      const auto lines = parse<std::size_t>(args.at(0));
      for (std::size_t k = 0; k < lines; ++k) {
        std::string text;
        REQUIRE(std::getline(in, text));
        c.expected += (k > 0 ? "\n" : "") + text;
      }
    } else if (w[0] == "end") {
      cases.push_back(c);
    } else {
      FAIL("unknown record '" << line << "'");
    }
  }
  return cases;
}

// One stored value from its text: floats through double (exact for the values the script
// records), halves from that float, integers as integers, bool from 0/1.
template <class T>
T value_from_text(const std::string& text) {
  if constexpr (std::is_same_v<T, bool>) {
    return text == "1";
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(
        parse<std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>>(text));
  } else if constexpr (std::is_same_v<T, double>) {
    return parse<double>(text);
  } else {
    return T(static_cast<float>(parse<double>(text)));
  }
}

// Value i of a generated tensor: a + b * ((i * mul) % mod), as the script computes it.
template <class T>
T generated_value(const std::vector<std::string>& gen, std::uint64_t i) {
  const std::uint64_t k = (i * parse<std::uint64_t>(gen.at(3))) % parse<std::uint64_t>(gen.at(2));
  if constexpr (std::is_integral_v<T>) {
    const long long v =
        parse<long long>(gen.at(0)) + parse<long long>(gen.at(1)) * static_cast<long long>(k);
    if constexpr (std::is_same_v<T, bool>)
      return v != 0;
    else
      return static_cast<T>(v);
  } else {
    const double v = parse<double>(gen.at(0)) + parse<double>(gen.at(1)) * static_cast<double>(k);
    if constexpr (std::is_same_v<T, double>)
      return v;
    else
      return T(static_cast<float>(v));
  }
}

template <class T>
std::string render_case(const DisplayCase& c) {
  std::size_t n = 1;
  for (std::size_t s : c.shape) n *= s;
  std::vector<T> data;
  data.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    data.push_back(c.gen.empty() ? value_from_text<T>(c.values.at(i))
                                 : generated_value<T>(c.gen, i));
  Tensor<T> t = Tensor<T>::from_vector(std::move(data), c.shape).value();
  for (const auto& v : c.views) {
    std::vector<std::size_t> a;
    for (std::size_t k = 1; k < v.size(); ++k) a.push_back(parse<std::size_t>(v[k]));
    if (v[0] == "transpose")
      t = t.transpose(a.at(0), a.at(1)).value();
    else if (v[0] == "permute")
      t = t.permute(Shape(a)).value();
    else if (v[0] == "narrow")
      t = t.narrow(a.at(0), a.at(1), a.at(2)).value();
    else if (v[0] == "broadcast_to")
      t = t.broadcast_to(Shape(a)).value();
    else if (v[0] == "flip")
      t = t.flip(a.at(0)).value();
    else if (v[0] == "slice")
      t = t.slice(a.at(0), static_cast<std::ptrdiff_t>(a.at(1)),
                  static_cast<std::ptrdiff_t>(a.at(2)), static_cast<std::ptrdiff_t>(a.at(3)))
              .value();
    else if (v[0] == "select")
      t = t.select(a.at(0), a.at(1)).value();
    else if (v[0] == "unsqueeze")
      t = t.unsqueeze(a.at(0)).value();
    else
      FAIL("unknown view " << v[0]);
  }
  return strided::display(t, c.options);
}

std::string render_case(const DisplayCase& c) {
  const std::string& d = c.dtype;
  if (d == "f32") return render_case<float>(c);
  if (d == "f64") return render_case<double>(c);
  if (d == "f16") return render_case<f16>(c);
  if (d == "bf16") return render_case<bf16>(c);
  if (d == "bool") return render_case<bool>(c);
  if (d == "i8") return render_case<std::int8_t>(c);
  if (d == "i16") return render_case<std::int16_t>(c);
  if (d == "i32") return render_case<std::int32_t>(c);
  if (d == "i64") return render_case<std::int64_t>(c);
  if (d == "u8") return render_case<std::uint8_t>(c);
  if (d == "u16") return render_case<std::uint16_t>(c);
  if (d == "u32") return render_case<std::uint32_t>(c);
  if (d == "u64") return render_case<std::uint64_t>(c);
  FAIL("unknown dtype " << d);
  return {};
}

template <class T>
Tensor<T> make(std::vector<T> values, const Shape& shape) {
  return Tensor<T>::from_vector(std::move(values), shape).value();
}

}  // namespace

TEST_CASE("Display matches PyTorch 1.13 str(t) byte for byte") {
  const std::vector<DisplayCase> cases = load_cases();
  REQUIRE(cases.size() >= 80);
  std::size_t matched = 0;
  for (const DisplayCase& c : cases) {
    INFO("case " << c.name);
    const std::string actual = render_case(c);
    CHECK(actual == c.expected);
    if (actual == c.expected) ++matched;
  }
  std::cout << "display cases matched: " << matched << " / " << cases.size() << '\n';
  CHECK(matched == cases.size());
}

TEST_CASE("Display: the forms of the reference document and design") {
  CHECK(strided::to_string(make<std::int64_t>({1, 2, 3, 4}, {2, 2})) ==
        "tensor([[1, 2],\n        [3, 4]])");
  CHECK(strided::to_string(Tensor<std::int32_t>::scalar(3)) == "tensor(3)");
  CHECK(strided::to_string(Tensor<float>::zeros({2, 0}).value()) == "tensor([], shape=[2, 0])");
  CHECK(strided::to_string(Tensor<float>::zeros({0}).value()) == "tensor([], shape=[0])");
  CHECK(strided::to_string(Tensor<bool>::zeros({3, 0, 2}).value()) ==
        "tensor([], shape=[3, 0, 2])");
  CHECK(strided::to_string(make<bool>({true, false}, {2})) == "tensor([ True, False])");
  CHECK(strided::to_string(make<f16>({f16(1.5f), f16(-2.0f)}, {2})) ==
        "tensor([ 1.5000, -2.0000])");
  CHECK(strided::to_string(make<bf16>({bf16(1.0f), bf16(2.0f)}, {2})) == "tensor([1., 2.])");
}

TEST_CASE("Display: integers beyond int64 (uint64 has no PyTorch counterpart)") {
  const auto t = make<std::uint64_t>({18446744073709551615ull, 0, 9223372036854775808ull}, {3});
  CHECK(strided::to_string(t) ==
        "tensor([18446744073709551615,                    0,  9223372036854775808])");
}

TEST_CASE("Display: edgeitems 0 shows only the ellipsis (PyTorch fails or repeats the row)") {
  PrintOptions o;
  o.threshold = 3;
  o.edgeitems = 0;
  CHECK(strided::display(make<std::int32_t>({1, 2, 3, 4}, {4}), o) == "tensor([ ...])");
  CHECK(strided::display(make<std::int32_t>({1, 2, 3, 4}, {2, 2}), o) == "tensor([...])");
}

TEST_CASE("Display: options are per call and negative precision counts as 0") {
  const auto t = make<float>({1.25f, 2.5f}, {2});
  PrintOptions o;
  o.precision = -3;
  CHECK(strided::display(t, o) == "tensor([1, 2])");  // "{:.0f}": 1.25 -> 1, 2.5 -> 2 (to even)
  CHECK(strided::to_string(t) == "tensor([1.2500, 2.5000])");
}

TEST_CASE("Display reads only the elements it shows") {
  std::vector<Metres> values(1000 * 1000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i].value = static_cast<float>(i % 7);
  const auto t = make<Metres>(std::move(values), {1000, 1000});
  metres_reads = 0;
  const std::string text = strided::to_string(t);
  CHECK(metres_reads == 36);  // 6 shown rows x 6 shown columns
  CHECK(text.substr(0, 39) == "tensor([[0., 1., 2.,  ..., 3., 4., 5.],");
  metres_reads = 0;
  (void)strided::to_debug_string(t);
  CHECK(metres_reads == 16);
}

TEST_CASE("Display of a broadcast view with 10^12 elements takes well under a second") {
  const auto big = make<float>({-1.5f}, {1}).broadcast_to({1000000, 1000000}).value();
  const auto start = std::chrono::steady_clock::now();
  const std::string text = strided::to_string(big);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  CHECK(took.count() < 0.25);
  CHECK(text ==
        "tensor([[-1.5000, -1.5000, -1.5000,  ..., -1.5000, -1.5000, -1.5000],\n"
        "        [-1.5000, -1.5000, -1.5000,  ..., -1.5000, -1.5000, -1.5000],\n"
        "        [-1.5000, -1.5000, -1.5000,  ..., -1.5000, -1.5000, -1.5000],\n"
        "        ...,\n"
        "        [-1.5000, -1.5000, -1.5000,  ..., -1.5000, -1.5000, -1.5000],\n"
        "        [-1.5000, -1.5000, -1.5000,  ..., -1.5000, -1.5000, -1.5000],\n"
        "        [-1.5000, -1.5000, -1.5000,  ..., -1.5000, -1.5000, -1.5000]])");
}

TEST_CASE("operator<< writes to_string and leaves the stream's state alone") {
  const auto t = make<double>({1.0 / 3.0, 2.0}, {2});
  std::ostringstream os;
  os << std::hex << std::showpos << std::scientific << std::setprecision(17) << std::setfill('*')
     << std::uppercase;
  const auto flags = os.flags();
  os << t;
  CHECK(os.str() == "tensor([0.3333, 2.0000])");
  CHECK(os.flags() == flags);
  CHECK(os.precision() == 17);
  CHECK(os.fill() == '*');
  os << ' ' << 255;
  CHECK(os.str() == "tensor([0.3333, 2.0000]) FF");  // hex still applies afterwards

  const auto cout_flags = std::cout.flags();
  const auto cout_precision = std::cout.precision();
  std::cout << t << '\n';
  CHECK(std::cout.flags() == cout_flags);
  CHECK(std::cout.precision() == cout_precision);
}

TEST_CASE("Debug: exact strings") {
  const auto t = make<std::int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(strided::to_debug_string(t) ==
        "Tensor { shape: [2, 3], strides: [3, 1], offset: 0, storage_len: 6, data: [1, 2, 3, 4, "
        "5, 6] }");
  CHECK(strided::to_debug_string(t.transpose(0, 1).value()) ==
        "Tensor { shape: [3, 2], strides: [1, 3], offset: 0, storage_len: 6, data: [1, 4, 2, 5, "
        "3, 6] }");
  CHECK(strided::to_debug_string(t.narrow(1, 1, 2).value(), true) ==
        "Tensor {\n"
        "    shape: [2, 2],\n"
        "    strides: [3, 1],\n"
        "    offset: 1,\n"
        "    storage_len: 6,\n"
        "    data: [2, 3, 5, 6],\n"
        "}");
  CHECK(strided::to_debug_string(Tensor<double>::scalar(0.1)) ==
        "Tensor { shape: [], strides: [], offset: 0, storage_len: 1, data: [0.1] }");
  CHECK(strided::to_debug_string(make<bool>({true, false}, {2})) ==
        "Tensor { shape: [2], strides: [1], offset: 0, storage_len: 2, data: [true, false] }");
  CHECK(strided::to_debug_string(Tensor<float>::zeros({2, 0}).value()) ==
        "Tensor { shape: [2, 0], strides: [0, 1], offset: 0, storage_len: 0, data: [] }");
}

TEST_CASE("Debug: values in their shortest round-trip form") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(strided::to_debug_string(make<float>({0.1f, 1e-7f, 3e38f, -nan, -inf, -0.0f}, {6})) ==
        "Tensor { shape: [6], strides: [1], offset: 0, storage_len: 6, data: [0.1, 1e-07, 3e+38, "
        "nan, -inf, -0] }");
  CHECK(
      strided::to_debug_string(make<f16>({f16(0.1f), f16(65504.0f), f16(1e-7f)}, {3})) ==
      "Tensor { shape: [3], strides: [1], offset: 0, storage_len: 3, data: [0.1, 65500, 1e-07] }");
  CHECK(strided::to_debug_string(make<bf16>({bf16(0.1f), bf16(3.0f)}, {2})) ==
        "Tensor { shape: [2], strides: [1], offset: 0, storage_len: 2, data: [0.1, 3] }");
  CHECK(strided::to_debug_string(make<std::int8_t>({-128, 65}, {2})) ==
        "Tensor { shape: [2], strides: [1], offset: 0, storage_len: 2, data: [-128, 65] }");
}

TEST_CASE("Debug: bounded output for rank 64 and 10^8 elements") {
  const auto rank64 = Tensor<float>::ones(Shape(64, 1)).value();
  const std::string a = strided::to_debug_string(rank64);
  CHECK(a.size() < 1024);
  CHECK(a.find("shape: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ...]") !=
        std::string::npos);
  CHECK(strided::to_debug_string(rank64, true).size() < 1024);

  const auto many = Tensor<std::uint8_t>::zeros({10000, 10000}).value();  // 10^8 elements
  const std::string b = strided::to_debug_string(many);
  CHECK(b.size() < 1024);
  CHECK(b ==
        "Tensor { shape: [10000, 10000], strides: [10000, 1], offset: 0, storage_len: 100000000, "
        "data: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ...] }");
  CHECK(strided::to_string(many).size() < 1024);
}

TEST_CASE("docs/printing.md examples") {
  const auto t = strided::Tensor<float>::from_vector({1.23456f, -2.5f, 3.14159f}, {3}).value();
  strided::PrintOptions two;
  two.precision = 2;
  CHECK(strided::display(t, two) == "tensor([ 1.23, -2.50,  3.14])");

  strided::PrintOptions sci;
  sci.sci_mode = true;
  CHECK(strided::display(t, sci) == "tensor([1.2346e+00, -2.5000e+00, 3.1416e+00])");

  strided::PrintOptions narrow;
  narrow.linewidth = 40;
  const auto row = t.broadcast_to({3, 3}).value().contiguous().reshape({9}).value();
  CHECK(strided::display(row, narrow) ==
        "tensor([ 1.2346, -2.5000,  3.1416,\n"
        "         1.2346, -2.5000,  3.1416,\n"
        "         1.2346, -2.5000,  3.1416])");

  std::vector<std::int64_t> ten(10), twelve(12);
  std::iota(ten.begin(), ten.end(), 0);
  std::iota(twelve.begin(), twelve.end(), 0);
  strided::PrintOptions summary;
  summary.threshold = 5;
  CHECK(strided::display(strided::Tensor<std::int64_t>::from_vector(ten, {10}).value(), summary) ==
        "tensor([0, 1, 2,  ..., 7, 8, 9])");
  summary.edgeitems = 1;
  CHECK(strided::display(strided::Tensor<std::int64_t>::from_vector(twelve, {3, 4}).value(),
                         summary) ==
        "tensor([[ 0,  ...,  3],\n"
        "        ...,\n"
        "        [ 8,  ..., 11]])");

  const auto ints = strided::Tensor<std::int64_t>::from_vector({1, 2, 3, 4}, {2, 2}).value();
  std::ostringstream os;
  os << ints;
  CHECK(os.str() == "tensor([[1, 2],\n        [3, 4]])");
}

TEST_CASE("user element types print through their own operator<<") {
  using units::Grams;
  const auto t = Tensor<Grams>::from_vector({{5}, {-120}, {7}, {42}}, {2, 2}).value();
  CHECK(strided::to_string(t) == "tensor([[   5g, -120g],\n        [   7g,   42g]])");
  CHECK(strided::to_string(Tensor<Grams>::scalar({3})) == "tensor(3g)");
  CHECK(strided::to_debug_string(t.transpose(0, 1).value()) ==
        "Tensor { shape: [2, 2], strides: [1, 2], offset: 0, storage_len: 4, data: [5g, 7g, -120g, "
        "42g] }");
  std::ostringstream os;
  os << Tensor<Grams>::from_vector({{1}, {2}}, {2}).value();
  CHECK(os.str() == "tensor([1g, 2g])");
  // Summarised like integers: 3 edge items, "...".
  std::vector<Grams> many(2000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = Grams{static_cast<int>(i)};
  CHECK(strided::to_string(Tensor<Grams>::from_vector(many, {2000}).value()) ==
        "tensor([   0g,    1g,    2g,  ..., 1997g, 1998g, 1999g])");
  CHECK(strided::to_string(Tensor<Litres>::from_vector({{1.5f}, {2}}, {2}).value()) ==
        "tensor([1.5000, 2.0000])");
}
