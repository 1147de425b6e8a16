#include <cstdint>
#include <cstdio>
#include <strided/io/npy.hpp>
#include <string>
#include <vector>

#include "catch_shim.hpp"

using namespace strided;

namespace {

const std::string dir = std::string(STRIDED_TEST_DATA_DIR) + "/npy/";

// The values tests/gen_npy_files.py writes: element i (row-major) of each dtype.
template <class T>
T expected_value(std::size_t i) {
  const auto s = static_cast<std::int64_t>(i);
  if constexpr (std::is_same_v<T, bool>)
    return i % 2 == 1;
  else if constexpr (std::is_same_v<T, f16>)
    return f16(static_cast<float>(s - 10) * 0.25f);
  else if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(static_cast<double>(s - 10) * 0.25);
  else if constexpr (std::is_signed_v<T>)
    return static_cast<T>(s * 7 - 30);
  else
    return static_cast<T>(s * 7);
}

template <class T>
void check_values(const Tensor<T>& t) {
  const std::vector<T> v = t.to_vector();
  REQUIRE(v.size() == t.numel());
  for (std::size_t i = 0; i < v.size(); ++i) {
    INFO("element " << i);
    CHECK(detail::elements_equal<T>(v[i], expected_value<T>(i)));
  }
}

template <class T>
void check_dtype(const std::string& tag) {
  INFO("dtype " << tag);
  for (int version = 1; version <= 3; ++version) {
    const std::string path = dir + tag + "_c_v" + std::to_string(version) + ".npy";
    INFO(path);
    auto t = load_npy<T>(path);
    REQUIRE(t.has_value());
    CHECK(t->shape() == Shape{2, 3, 4});
    CHECK(t->is_contiguous());
    check_values(*t);
  }
  for (int version = 1; version <= 3; ++version) {
    const std::string path = dir + tag + "_f_v" + std::to_string(version) + ".npy";
    INFO(path);
    auto f = load_npy<T>(path);
    REQUIRE(f.has_value());
    CHECK(f->shape() == Shape{2, 3, 4});
    CHECK(f->strides() == Strides{1, 2, 6});  // column-major: a transposed view, not a copy
    CHECK_FALSE(f->is_contiguous());
    CHECK(f->storage_len() == 24);
    check_values(*f);
  }
}

std::vector<std::byte> read_all(const std::string& path) {
  std::vector<std::byte> out;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::byte buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
  std::fclose(f);
  return out;
}

}  // namespace

TEST_CASE("npy: every NumPy dtype, C and Fortran order, versions 1.0-3.0") {
  check_dtype<bool>("b1");
  check_dtype<std::int8_t>("i1");
  check_dtype<std::uint8_t>("u1");
  check_dtype<std::int16_t>("i2");
  check_dtype<std::uint16_t>("u2");
  check_dtype<std::int32_t>("i4");
  check_dtype<std::uint32_t>("u4");
  check_dtype<std::int64_t>("i8");
  check_dtype<std::uint64_t>("u8");
  check_dtype<f16>("f2");
  check_dtype<float>("f4");
  check_dtype<double>("f8");
}

TEST_CASE("npy: rank 0, empty and rank 1 files") {
  auto s = load_npy<double>(dir + "scalar_f8.npy");
  REQUIRE(s.has_value());
  CHECK(s->rank() == 0);
  CHECK(s->get({}) == 2.5);
  auto e = load_npy<float>(dir + "empty_f4.npy");
  REQUIRE(e.has_value());
  CHECK(e->shape() == Shape{0, 3});
  CHECK(e->empty());
  auto v = load_npy<std::int32_t>(dir + "vec_i4.npy");
  REQUIRE(v.has_value());
  CHECK(v->shape() == Shape{5});
  check_values(*v);
}

TEST_CASE("npy: the loaded tensor aliases the file buffer (one allocation, no copy)") {
  auto t = load_npy<float>(dir + "f4_c_v1.npy");
  REQUIRE(t.has_value());
  auto u = t->transpose(0, 2);
  REQUIRE(u.has_value());
  CHECK(u->shares_storage_with(*t));
  // NumPy pads headers to 64 bytes and our read buffer is 64-byte aligned.
  CHECK(reinterpret_cast<std::uintptr_t>(t->storage().get()) % 64 == 0);
}

TEST_CASE("npy: dtype mismatch, big-endian and unknown descr are clear errors") {
  auto wrong = load_npy<double>(dir + "f4_c_v1.npy");
  REQUIRE_FALSE(wrong.has_value());
  CHECK(wrong.error().kind() == IoErrorKind::dtype_mismatch);
  CHECK(wrong.error().message().find("'<f4'") != std::string::npos);
  CHECK(wrong.error().message().find("f4_c_v1.npy") != std::string::npos);

  auto big = load_npy<float>(dir + "big_endian_f4.npy");
  REQUIRE_FALSE(big.has_value());
  CHECK(big.error().kind() == IoErrorKind::unsupported_dtype);
  CHECK(big.error().message().find("big-endian") != std::string::npos);

  auto complex = load_npy<float>(dir + "complex_c8.npy");
  REQUIRE_FALSE(complex.has_value());
  CHECK(complex.error().kind() == IoErrorKind::unsupported_dtype);
  CHECK(complex.error().message().find("'<c8'") != std::string::npos);

  std::error_code code = big.error().code();
  CHECK(code == IoErrorKind::unsupported_dtype);
  CHECK(std::string(code.category().name()) == "strided.io");
  CHECK(code.message() == "unsupported_dtype");
}

TEST_CASE("npy: malformed files") {
  struct Case {
    const char* file;
    IoErrorKind kind;
  };
  const Case cases[] = {
      {"truncated_data.npy", IoErrorKind::truncated},
      {"truncated_header.npy", IoErrorKind::truncated},
      {"bad_magic.npy", IoErrorKind::bad_magic},
      {"bad_version.npy", IoErrorKind::unsupported_version},
      {"header_len_past_end.npy", IoErrorKind::truncated},
      {"trailing_bytes.npy", IoErrorKind::size_mismatch},
      {"bool_value_2.npy", IoErrorKind::invalid_value},
      {"dict_missing_shape.npy", IoErrorKind::malformed_header},
      {"dict_unknown_key.npy", IoErrorKind::malformed_header},
      {"dict_bad_shape.npy", IoErrorKind::malformed_header},
      {"dict_not_a_dict.npy", IoErrorKind::malformed_header},
      {"dict_structured.npy", IoErrorKind::malformed_header},
      {"dict_huge_shape.npy", IoErrorKind::shape},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    const std::string path = dir + "malformed/" + c.file;
    Result<Tensor<float>, IoError> f = IoError(IoErrorKind::invalid_argument, "", "", "");
    if (std::string(c.file).rfind("bool", 0) == 0) {
      auto b = load_npy<bool>(path);
      REQUIRE_FALSE(b.has_value());
      CHECK(b.error().kind() == c.kind);
      continue;
    }
    f = load_npy<float>(path);
    REQUIRE_FALSE(f.has_value());
    INFO(f.error().message());
    CHECK(f.error().kind() == c.kind);
    // The same bytes in memory fail the same way.
    auto m = load_npy_bytes<float>(read_all(path));
    REQUIRE_FALSE(m.has_value());
    CHECK(m.error().kind() == c.kind);
  }
  auto huge = load_npy<float>(dir + "malformed/dict_huge_shape.npy");
  REQUIRE(huge.error().shape_error() != nullptr);
  CHECK(huge.error().shape_error()->kind() == ShapeErrorKind::size_overflow);
  CHECK(std::string(huge.error().op()) == "load_npy");  // not the header parse inside it
  CHECK(std::string(huge.error().shape_error()->op()) == "load_npy");
  auto missing_shape = load_npy<float>(dir + "no_such_file.npy");
  CHECK(missing_shape.error().shape_error() == nullptr);  // no placeholder for the other kinds
  auto missing = load_npy<float>(dir + "no_such_file.npy");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().kind() == IoErrorKind::open_failed);
  CHECK(missing.error().sys_errno() != 0);
}

TEST_CASE("npy: every prefix of a valid file is rejected without a crash") {
  const std::vector<std::byte> good = read_all(dir + "i2_f_v2.npy");
  for (std::size_t n = 0; n < good.size(); ++n) {
    auto t = load_npy_bytes<std::int16_t>(std::span<const std::byte>(good.data(), n));
    REQUIRE_FALSE(t.has_value());
    CHECK(t.error().kind() == IoErrorKind::truncated);
  }
  auto whole = load_npy_bytes<std::int16_t>(good);
  REQUIRE(whole.has_value());
  check_values(*whole);
}

TEST_CASE("npy: header parse entry point") {
  const std::vector<std::byte> good = read_all(dir + "u8_f_v3.npy");
  auto h = parse_npy_header(good);
  REQUIRE(h.has_value());
  CHECK(h->major == 3);
  CHECK(h->descr == "<u8");
  CHECK(h->dtype == NpyDtype{'u', 8});
  CHECK(h->fortran_order);
  CHECK(h->shape == Shape{2, 3, 4});
  CHECK(h->data_offset % 64 == 0);
  CHECK(h->data_bytes == 24 * 8);
}

namespace {

template <class T>
void round_trip(const Tensor<T>& t, int version) {
  auto bytes = save_npy_bytes(t, {version});
  REQUIRE(bytes.has_value());
  auto h = parse_npy_header(*bytes);
  REQUIRE(h.has_value());
  CHECK(h->major == (version == 0 ? 1 : version));
  CHECK(h->data_offset % 64 == 0);
  auto back = load_npy_bytes<T>(*bytes);
  REQUIRE(back.has_value());
  CHECK(back->shape() == t.shape());
  CHECK(equal(*back, t));
}

}  // namespace

TEST_CASE("npy: save then load, views written in logical order") {
  std::vector<float> v(24);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.5f;
  auto base = Tensor<float>::from_vector(v, {2, 3, 4}).value();
  for (int version : {0, 1, 2, 3}) {
    round_trip(base, version);
    round_trip(base.permute({2, 0, 1}).value(), version);
    round_trip(base.narrow(2, 1, 2).value(), version);
    round_trip(base.narrow(0, 1, 1).value().broadcast_to({3, 1, 3, 4}).value(), version);
  }
  round_trip(Tensor<double>::scalar(-1.5), 0);
  round_trip(Tensor<float>::zeros({0, 5}).value(), 0);
  round_trip(Tensor<bool>::from_vector({true, false, true}, {3}).value(), 0);
  round_trip(Tensor<f16>::full({2, 2}, f16(0.5f)).value(), 0);
  round_trip(Tensor<std::uint64_t>::full({3}, ~std::uint64_t{0}).value(), 0);

  auto bad = save_npy_bytes(Tensor<bf16>::zeros({2}).value());
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().kind() == IoErrorKind::unsupported_dtype);
  auto bad_version = save_npy_bytes(base, {4});
  REQUIRE_FALSE(bad_version.has_value());
  CHECK(bad_version.error().kind() == IoErrorKind::unsupported_version);
}

TEST_CASE("npy: save_npy writes a file load_npy reads back; bad paths fail cleanly") {
  auto t = Tensor<std::int32_t>::from_vector({1, -2, 3, -4, 5, -6}, {2, 3}).value();
  const std::string path = "/tmp/strided_npy_test_" + std::to_string(::getpid()) + ".npy";
  REQUIRE(save_npy(path, t.transpose_2d().value()).has_value());
  auto back = load_npy<std::int32_t>(path);
  std::remove(path.c_str());
  REQUIRE(back.has_value());
  CHECK(back->shape() == Shape{3, 2});
  CHECK(back->to_vector() == std::vector<std::int32_t>{1, -4, -2, 5, 3, -6});
  auto fail = save_npy("/nonexistent-dir/x.npy", t);
  REQUIRE_FALSE(fail.has_value());
  CHECK(fail.error().kind() == IoErrorKind::write_failed);
}
