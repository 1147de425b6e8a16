#include "catch_shim.hpp"
// load_npy_any / save_npy of an AnyTensor: every file NumPy wrote (tests/data/npy, from
// tests/gen_npy_files.py) loads with the dtype its descr names, equal to load_npy<T>; every
// dtype round-trips; the errors of a file strided cannot hold.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <strided/io/npy.hpp>
#include <string>
#include <vector>

#include "any_support.hpp"

using strided::AnyTensor;
using strided::DType;
using strided::IoErrorKind;
using strided::Tensor;

namespace {

const std::string dir = STRIDED_TEST_DATA_DIR "/npy/";

std::vector<std::byte> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

}  // namespace

TEST_CASE("npy_any: every NumPy-written file loads with its dtype, equal to load_npy<T>") {
  int files = 0;
  for (const strided::DTypeInfo& row : strided::dtype_registry) {
    if (row.npy_descr.empty()) continue;  // bf16: NumPy has no such dtype
    const std::string code = std::string(row.npy_descr.substr(1));
    for (const char* order : {"c", "f"})
      for (int version = 1; version <= 3; ++version) {
        const std::string path = dir + code + "_" + order + "_v" + std::to_string(version) + ".npy";
        INFO(path);
        auto any = strided::load_npy_any(path);
        REQUIRE(any);
        CHECK(any->dtype() == row.dtype);
        CHECK(any->shape() == strided::Shape{2, 3, 4});
        CHECK(any->is_contiguous() == (order[0] == 'c'));
        auto from_bytes = strided::load_npy_bytes_any(read_all(path));
        REQUIRE(from_bytes);
        const bool same = strided::visit_dtype(row.dtype, [&]<class T>(std::type_identity<T>) {
          const Tensor<T> typed = strided::load_npy<T>(path).value();
          return strided::equal(*any->as<T>(), typed) && strided::equal(*from_bytes, typed) &&
                 any->strides() == typed.strides();
        });
        CHECK(same);
        ++files;
      }
  }
  CHECK(files == 12 * 6);
}

TEST_CASE("npy_any: every dtype NumPy has round-trips through save_npy(AnyTensor); bf16 fails") {
  const auto dir_out = std::filesystem::temp_directory_path() / "strided_npy_any_test";
  std::filesystem::create_directories(dir_out);
  for (const strided::DTypeInfo& row : strided::dtype_registry) {
    INFO(row.name);
    const AnyTensor base = strided_test::any_from(
        Tensor<double>::from_vector({0, 1, -2, 3, 4, -5}, {2, 3}).value(), row.dtype);
    const AnyTensor view = base.transpose(0, 1).value();  // saved row-major
    auto bytes = strided::save_npy_bytes(view);
    const std::string path = (dir_out / (std::string(row.name) + ".npy")).string();
    auto saved = strided::save_npy(path, view, {2});
    if (row.npy_descr.empty()) {
      REQUIRE_FALSE(bytes);
      CHECK(bytes.error().kind() == IoErrorKind::unsupported_dtype);
      REQUIRE_FALSE(saved);
      CHECK(saved.error().kind() == IoErrorKind::unsupported_dtype);
      continue;
    }
    REQUIRE(bytes);
    REQUIRE(saved);
    auto back = strided::load_npy_bytes_any(*bytes);
    REQUIRE(back);
    CHECK(back->dtype() == row.dtype);
    CHECK(strided::equal(*back, view));
    auto file = strided::load_npy_any(path);
    REQUIRE(file);
    CHECK(strided::equal(*file, view));
    CHECK(strided::parse_npy_header(*bytes)->descr == row.npy_descr);
  }
  std::filesystem::remove_all(dir_out);
}

TEST_CASE("npy_any: files strided cannot hold are clear errors") {
  auto big = strided::load_npy_any(dir + "big_endian_f4.npy");
  REQUIRE_FALSE(big);
  CHECK(big.error().kind() == IoErrorKind::unsupported_dtype);
  auto complex = strided::load_npy_any(dir + "complex_c8.npy");
  REQUIRE_FALSE(complex);
  CHECK(complex.error().kind() == IoErrorKind::unsupported_dtype);
  auto missing = strided::load_npy_any(dir + "no_such_file.npy");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().kind() == IoErrorKind::open_failed);
  auto good = read_all(dir + "i2_c_v1.npy");
  auto cut = strided::load_npy_bytes_any(std::span<const std::byte>(good.data(), good.size() - 1));
  REQUIRE_FALSE(cut);
  CHECK(cut.error().kind() == IoErrorKind::truncated);
  CHECK(cut.error().message().find("load_npy_bytes_any") != std::string::npos);
  auto nothing = strided::load_npy_bytes_any({});
  REQUIRE_FALSE(nothing);
  CHECK(nothing.error().kind() == IoErrorKind::truncated);
  auto bad_bool = read_all(dir + "b1_c_v1.npy");
  bad_bool.back() = std::byte{7};
  auto b = strided::load_npy_bytes_any(bad_bool);
  REQUIRE_FALSE(b);
  CHECK(b.error().kind() == IoErrorKind::invalid_value);
}
