#include "catch_shim.hpp"
// SafetensorsFile::get_any / all() and SafetensorsEntry from an AnyTensor: a file written by
// Python (tests/data/safetensors/model.safetensors) read with no type up front, every dtype
// round-tripped, and the dtypes strided cannot hold.
#include <cstdint>
#include <cstring>
#include <set>
#include <strided/io/safetensors.hpp>
#include <string>
#include <vector>

#include "any_support.hpp"

using strided::AnyTensor;
using strided::DType;
using strided::IoErrorKind;
using strided::SafetensorsFile;
using strided::Tensor;

namespace {

const std::string model = STRIDED_TEST_DATA_DIR "/safetensors/model.safetensors";

std::vector<std::byte> image(const std::string& json, std::size_t data_bytes) {
  std::vector<std::byte> out(8);
  const std::uint64_t n = json.size();
  std::memcpy(out.data(), &n, 8);
  for (char c : json) out.push_back(static_cast<std::byte>(c));
  out.resize(out.size() + data_bytes, std::byte{1});
  return out;
}

}  // namespace

TEST_CASE("safetensors_any: every tensor of a Python-written file, with its header's dtype") {
  auto file = SafetensorsFile::open(model);
  REQUIRE(file);
  auto all = file->all();
  REQUIRE(all);
  REQUIRE(all->size() == file->tensors().size());
  std::set<DType> seen;
  for (std::size_t k = 0; k < all->size(); ++k) {
    const auto& [name, t] = (*all)[k];
    const strided::SafetensorsInfo& info = file->tensors()[k];
    INFO(name);
    CHECK(name == info.name);
    CHECK(strided::dtype_info(t.dtype()).safetensors == info.dtype);
    CHECK(t.shape() == info.shape);
    seen.insert(t.dtype());
    auto one = file->get_any(name);
    REQUIRE(one);
    CHECK(one->storage() == t.storage());  // zero-copy: both alias the mapping
    const std::string key = name;  // C++20 lambdas cannot capture a structured binding (clang)
    const bool same = t.visit([&]<class T>(const Tensor<T>& typed) {
      return strided::equal(typed, file->get<T>(key).value());
    });
    CHECK(same);
  }
  CHECK(seen.size() == 13);  // the file holds every dtype
  auto missing = file->get_any("nope");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().kind() == IoErrorKind::not_found);
}

TEST_CASE("safetensors_any: every dtype round-trips through SafetensorsEntry(AnyTensor)") {
  std::vector<strided::SafetensorsEntry> entries;
  std::vector<AnyTensor> originals;
  for (const strided::DTypeInfo& row : strided::dtype_registry) {
    const AnyTensor t =
        strided_test::any_from(Tensor<double>::from_vector({1, 0, 3, -4, 5, 6}, {3, 2}).value(),
                               row.dtype)
            .flip(0)
            .value();  // a view: written row-major
    originals.push_back(t);
    entries.emplace_back(std::string(row.name), t);
    CHECK(entries.back().dtype() == row.safetensors);
  }
  auto bytes = strided::save_safetensors_bytes(entries);
  REQUIRE(bytes);
  auto file = SafetensorsFile::from_bytes(*bytes);
  REQUIRE(file);
  for (std::size_t k = 0; k < originals.size(); ++k) {
    const std::string name(strided::dtype_registry[k].name);
    auto back = file->get_any(name);
    REQUIRE(back);
    CHECK(back->dtype() == strided::dtype_registry[k].dtype);
    CHECK(strided::equal(*back, originals[k]));
  }
}

TEST_CASE("safetensors_any: F8 tensors and bad bool bytes are clear errors") {
  const auto f8 = image(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                        R"("b":{"dtype":"F8_E5M2","shape":[2],"data_offsets":[4,6]}})",
                        6);
  auto file = SafetensorsFile::from_bytes(f8);
  REQUIRE(file);
  auto a = file->get_any("a");
  REQUIRE(a);
  CHECK(a->dtype() == DType::f32);
  auto b = file->get_any("b");
  REQUIRE_FALSE(b);
  CHECK(b.error().kind() == IoErrorKind::unsupported_dtype);
  CHECK(b.error().message() ==
        "SafetensorsFile::get_any: <memory>: tensor \"b\" is F8_E5M2, "
        "which no strided element type holds");
  auto all = file->all();
  REQUIRE_FALSE(all);
  CHECK(all.error().kind() == IoErrorKind::unsupported_dtype);
  // The error names the function called, not get_any inside it.
  CHECK(all.error().message() ==
        "SafetensorsFile::all: <memory>: tensor \"b\" is F8_E5M2, "
        "which no strided element type holds");
  const auto bools = image(R"({"m":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", 2);
  auto bad = SafetensorsFile::from_bytes(bools);  // the filler byte is 1: valid
  REQUIRE(bad);
  CHECK(bad->get_any("m"));
  auto twos = bools;
  twos.back() = std::byte{2};
  auto worse = SafetensorsFile::from_bytes(twos);
  REQUIRE(worse);
  auto m = worse->get_any("m");
  REQUIRE_FALSE(m);
  CHECK(m.error().kind() == IoErrorKind::invalid_value);
  // get_any reads through get<T>: the error is still get_any's.
  CHECK(std::string(m.error().op()) == "SafetensorsFile::get_any");
}
