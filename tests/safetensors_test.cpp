#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <strided/io/safetensors.hpp>
#include <string>
#include <vector>

#include "catch_shim.hpp"

using namespace strided;

namespace {

const std::string dir = std::string(STRIDED_TEST_DATA_DIR) + "/safetensors/";

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

// y[i][j] = sum_k x[i][k] * w[k][j] + b[j], reading every operand through its strides.
Tensor<float> matmul_bias(const Tensor<float>& x, const Tensor<float>& w, const Tensor<float>& b) {
  const std::size_t n = x.shape()[0], k = x.shape()[1], m = w.shape()[1];
  std::vector<float> out(n * m);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      float acc = 0;
      for (std::size_t p = 0; p < k; ++p) acc += *x.get({i, p}) * *w.get({p, j});
      out[i * m + j] = acc + *b.get({j});
    }
  return Tensor<float>::from_vector(std::move(out), {n, m}).value();
}

}  // namespace

TEST_CASE("safetensors: list names, dtypes, shapes and metadata of a Python-written file") {
  auto file = SafetensorsFile::open(dir + "model.safetensors");
  REQUIRE(file.has_value());
  CHECK(file->metadata().at("format") == "pt");
  CHECK(file->metadata().size() == 2);
  const auto names = file->names();
  CHECK(names.size() == 18);
  CHECK(names.front() == "f64");  // data order
  CHECK(names.back() == "mask");
  const SafetensorsInfo* w = file->find("linear.weight");
  REQUIRE(w != nullptr);
  CHECK(w->dtype == "F32");
  CHECK(w->shape == Shape{3, 4});
  CHECK(w->end - w->begin == 48);
  CHECK(file->find("nope") == nullptr);
}

TEST_CASE("safetensors: get<T> is zero-copy and keeps the mapping alive") {
  Tensor<float> w = Tensor<float>::scalar(0);
  const float* mapped = nullptr;
  {
    auto file = SafetensorsFile::open(dir + "model.safetensors");
    REQUIRE(file.has_value());
    w = file->get<float>("linear.weight").value();
    auto again = file->get<float>("linear.weight").value();
    CHECK(again.storage().get() == w.storage().get());  // both alias the mapping
    mapped = w.storage().get();
    // The tensor points into the page-aligned mapping at data_offset + begin: no copy.
    const auto header = parse_safetensors_header(read_all(dir + "model.safetensors")).value();
    const std::size_t at = header.data_offset + file->find("linear.weight")->begin;
    CHECK((reinterpret_cast<std::uintptr_t>(mapped) - at) % 4096 == 0);
  }
  // The file object is gone; the tensor still reads the mapped bytes.
  CHECK(w.storage().get() == mapped);
  std::vector<float> expected(12);
  for (std::size_t i = 0; i < 12; ++i) expected[i] = (static_cast<float>(i) - 6) / 4;
  CHECK(w.to_vector() == expected);
}

TEST_CASE("safetensors: every dtype reads exactly") {
  auto file = SafetensorsFile::open(dir + "model.safetensors").value();
  CHECK(file.get<double>("f64")->to_vector() == std::vector<double>{0.1, -2.5});
  CHECK(file.get<std::int64_t>("i64")->to_vector() ==
        std::vector<std::int64_t>{-(std::int64_t{1} << 40), 7, 8, std::int64_t{1} << 62});
  CHECK(file.get<std::uint64_t>("u64")->to_vector() == std::vector<std::uint64_t>{~0ULL});
  CHECK(file.get<std::int32_t>("i32")->to_vector() == std::vector<std::int32_t>{-3, 4, 5});
  CHECK(file.get<std::uint32_t>("u32")->to_vector() == std::vector<std::uint32_t>{4000000000u});
  auto step = file.get<std::int32_t>("step").value();
  CHECK(step.rank() == 0);
  CHECK(step.get({}) == 42);
  auto empty = file.get<float>("empty").value();
  CHECK(empty.shape() == Shape{0, 5});
  auto h = file.get<f16>("f16").value();
  CHECK(h.shape() == Shape{1, 3});
  CHECK(static_cast<float>(*h.get({0, 2})) == 65504.0f);
  auto b = file.get<bf16>("bf16").value().to_vector();
  CHECK(static_cast<float>(b[0]) == 1.5f);
  CHECK(static_cast<float>(b[2]) == 3.25f);
  CHECK(file.get<std::int16_t>("i16")->to_vector() == std::vector<std::int16_t>{-300, 300});
  CHECK(file.get<std::uint16_t>("u16")->to_vector() == std::vector<std::uint16_t>{65535, 1});
  CHECK(file.get<std::int8_t>("i8")->to_vector() == std::vector<std::int8_t>{-128, 127, 0});
  CHECK(file.get<std::uint8_t>("u8")->to_vector() == std::vector<std::uint8_t>{0, 255});
  CHECK(file.get<bool>("mask")->to_vector() == std::vector<bool>{true, false, false, true});

  auto wrong = file.get<double>("linear.weight");
  REQUIRE_FALSE(wrong.has_value());
  CHECK(wrong.error().kind() == IoErrorKind::dtype_mismatch);
  CHECK(wrong.error().message().find("\"linear.weight\" is F32, not F64") != std::string::npos);
  auto missing = file.get<float>("nope");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().kind() == IoErrorKind::not_found);
}

TEST_CASE("safetensors: transpose_2d of an [out, in] weight is the [in, out] matmul operand") {
  auto file = SafetensorsFile::open(dir + "model.safetensors").value();
  auto weight = file.get<float>("linear.weight").value();  // nn.Linear(4, 3): [out=3, in=4]
  auto operand = weight.transpose_2d().value();            // [in=4, out=3], zero-copy
  CHECK(operand.shape() == Shape{4, 3});
  CHECK(operand.strides() == Strides{1, 4});
  CHECK(operand.shares_storage_with(weight));
  auto y =
      matmul_bias(file.get<float>("x").value(), operand, file.get<float>("linear.bias").value());
  // y = x @ weight.T + bias, computed by NumPy in gen_safetensors.py (exact in binary32).
  CHECK(equal(y, file.get<float>("y").value()));
}

TEST_CASE("safetensors: a misaligned tensor is copied, an aligned one is not") {
  auto file = SafetensorsFile::open(dir + "misaligned.safetensors").value();
  auto a = file.get<std::uint8_t>("a").value();
  auto b = file.get<float>("b").value();
  CHECK(reinterpret_cast<std::uintptr_t>(b.storage().get()) % alignof(float) == 0);
  CHECK(b.storage().get() != reinterpret_cast<const float*>(a.storage().get() + 1));
  CHECK(b.to_vector() == std::vector<float>{1.5f, -2.0f, 8.0f});
}

TEST_CASE("safetensors: each validation rule rejects its malformed file") {
  struct Case {
    const char* file;
    IoErrorKind kind;
  };
  const Case cases[] = {
      {"short", IoErrorKind::truncated},
      {"header_too_large", IoErrorKind::header_too_large},
      {"header_past_end", IoErrorKind::truncated},
      {"not_json", IoErrorKind::malformed_header},
      {"not_object", IoErrorKind::malformed_header},
      {"hole", IoErrorKind::invalid_offsets},
      {"overlap", IoErrorKind::invalid_offsets},
      {"end_before_begin", IoErrorKind::invalid_offsets},
      {"size_vs_shape", IoErrorKind::size_mismatch},
      {"data_past_end", IoErrorKind::size_mismatch},
      {"trailing_data", IoErrorKind::size_mismatch},
      {"unknown_dtype", IoErrorKind::unsupported_dtype},
      {"negative_shape", IoErrorKind::malformed_header},
      {"float_offset", IoErrorKind::malformed_header},
      {"missing_field", IoErrorKind::malformed_header},
      {"unknown_field", IoErrorKind::malformed_header},
      {"metadata_not_string", IoErrorKind::malformed_header},
      {"duplicate_key", IoErrorKind::malformed_header},
      {"bad_utf8", IoErrorKind::malformed_header},
      {"huge_shape", IoErrorKind::shape},
  };
  for (const Case& c : cases) {
    const std::string path = dir + "malformed/" + c.file + ".safetensors";
    INFO(path);
    auto file = SafetensorsFile::open(path);
    REQUIRE_FALSE(file.has_value());
    INFO(file.error().message());
    CHECK(file.error().kind() == c.kind);
    CHECK(file.error().source() == path);
    auto bytes = read_all(path);
    auto parsed = parse_safetensors_header(bytes);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().kind() == c.kind);
  }
  auto b = SafetensorsFile::open(dir + "malformed/bool_value_2.safetensors").value();
  auto m = b.get<bool>("m");
  REQUIRE_FALSE(m.has_value());
  CHECK(m.error().kind() == IoErrorKind::invalid_value);
  auto missing = SafetensorsFile::open(dir + "no_such.safetensors");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().kind() == IoErrorKind::open_failed);
}

TEST_CASE("safetensors: every prefix of a valid file is rejected") {
  const auto good = read_all(dir + "misaligned.safetensors");
  for (std::size_t n = 0; n < good.size(); ++n) {
    auto parsed = parse_safetensors_header(std::span<const std::byte>(good.data(), n));
    CHECK_FALSE(parsed.has_value());
  }
  CHECK(parse_safetensors_header(good).has_value());
}

TEST_CASE("safetensors: save_safetensors round-trips the Python file and views") {
  auto file = SafetensorsFile::open(dir + "model.safetensors").value();
  std::vector<SafetensorsEntry> entries;
  entries.emplace_back("linear.weight", file.get<float>("linear.weight").value());
  entries.emplace_back("weight_t", file.get<float>("linear.weight")->transpose_2d().value());
  entries.emplace_back("mask", file.get<bool>("mask").value());
  entries.emplace_back("i64", file.get<std::int64_t>("i64").value());
  entries.emplace_back("bf16", file.get<bf16>("bf16").value());
  entries.emplace_back("step", file.get<std::int32_t>("step").value());
  entries.emplace_back("empty", file.get<float>("empty").value());
  const std::string path = "/tmp/strided_safetensors_test_" + std::to_string(::getpid());
  REQUIRE(save_safetensors(path, entries, file.metadata()).has_value());
  auto bytes = save_safetensors_bytes(entries, file.metadata());
  REQUIRE(bytes.has_value());
  const auto written = read_all(path);
  CHECK(written == *bytes);
  auto back = SafetensorsFile::open(path);
  std::remove(path.c_str());
  REQUIRE(back.has_value());
  // Header padded so the data section starts at a multiple of 8; every tensor aligned.
  const std::uint64_t n = detail::load_le<8>(written.data());
  CHECK((8 + n) % 8 == 0);
  for (const SafetensorsInfo& t : back->tensors())
    CHECK(t.begin % safetensors_dtype_size(t.dtype) == 0);
  CHECK(back->names() == std::vector<std::string>{"i64", "empty", "linear.weight", "step",
                                                  "weight_t", "bf16", "mask"});
  CHECK(back->metadata() == file.metadata());
  CHECK(equal(back->get<float>("weight_t").value(),
              file.get<float>("linear.weight")->transpose_2d().value()));
  CHECK(back->get<float>("weight_t")->is_contiguous());
  CHECK(equal(back->get<float>("linear.weight").value(), file.get<float>("linear.weight").value()));
  CHECK(back->get<bool>("mask")->to_vector() == std::vector<bool>{true, false, false, true});
  CHECK(equal(back->get<std::int64_t>("i64").value(), file.get<std::int64_t>("i64").value()));
  CHECK(equal(back->get<bf16>("bf16").value(), file.get<bf16>("bf16").value()));
  CHECK(back->get<std::int32_t>("step")->rank() == 0);
  CHECK(back->get<float>("empty")->shape() == Shape{0, 5});

  auto from_memory = SafetensorsFile::from_bytes(*bytes);
  REQUIRE(from_memory.has_value());
  CHECK(from_memory->names() == back->names());
}

TEST_CASE("safetensors: the writer rejects duplicate, reserved and non-UTF-8 names") {
  auto t = Tensor<float>::zeros({2}).value();
  auto dup = save_safetensors_bytes({{"a", t}, {"a", Tensor<double>::zeros({1}).value()}});
  REQUIRE_FALSE(dup.has_value());
  CHECK(dup.error().kind() == IoErrorKind::invalid_argument);
  auto reserved = save_safetensors_bytes({{"__metadata__", t}});
  REQUIRE_FALSE(reserved.has_value());
  CHECK(reserved.error().kind() == IoErrorKind::invalid_argument);
  auto utf8 = save_safetensors_bytes({{"\xff", t}});
  REQUIRE_FALSE(utf8.has_value());
  CHECK(utf8.error().kind() == IoErrorKind::invalid_argument);
  auto bad_meta = save_safetensors_bytes({{"a", t}}, {{"k", "\xc3"}});
  REQUIRE_FALSE(bad_meta.has_value());
  auto none = save_safetensors_bytes({});
  REQUIRE(none.has_value());
  auto parsed = parse_safetensors_header(*none);
  REQUIRE(parsed.has_value());
  CHECK(parsed->tensors.empty());
  auto unwritable = save_safetensors("/nonexistent-dir/x.safetensors", {{"a", t}});
  REQUIRE_FALSE(unwritable.has_value());
  CHECK(unwritable.error().kind() == IoErrorKind::write_failed);
}
