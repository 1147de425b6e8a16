#include "catch_shim.hpp"
// One verbatim message per IoErrorKind: docs/errors.md quotes these strings, and this test keeps
// them true. Built when nlohmann_json is found (file-name convention); the DLPack case also needs
// dlpack (STRIDED_HAVE_DLPACK).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#if defined(STRIDED_HAVE_DLPACK)
#include <strided/interop/dlpack.hpp>
#endif
#include <strided/io/npy.hpp>
#include <strided/io/safetensors.hpp>

using namespace strided;

namespace {

// An element type of the user's, which no safetensors dtype names.
struct Cents {
  std::int64_t value;
};

}  // namespace

template <>
struct strided::element_traits<Cents> {
  static constexpr std::string_view name = "cents";
  static constexpr Cents zero() noexcept { return Cents{0}; }
  static constexpr Cents one() noexcept { return Cents{100}; }
};

namespace {

std::vector<std::byte> bytes(const std::string& s) {
  std::vector<std::byte> out;
  for (char c : s) out.push_back(static_cast<std::byte>(c));
  return out;
}

// A .npy 1.0 image: magic, version, header length, the dict padded with spaces and '\n'.
std::vector<std::byte> npy(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return bytes(out + header + data);
}

// A safetensors image: 8-byte little-endian header size, the JSON header, the data section.
std::vector<std::byte> safetensors_with(const std::string& json, const std::string& data) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((json.size() >> (8 * i)) & 0xff);
  return bytes(out + json + data);
}

// The same with `data_bytes` zero bytes of data.
std::vector<std::byte> safetensors(const std::string& json, std::size_t data_bytes) {
  return safetensors_with(json, std::string(data_bytes, '\0'));
}

template <class R>
std::string message_of(const R& r, IoErrorKind kind) {
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().kind() == kind);
  const std::string message = r.error().message();
  // The operation is named once, at the start: a step's name never leaks in a second time.
  const std::string op = std::string(r.error().op()) + ": ";
  CHECK(message.rfind(op, 0) == 0);
  CHECK(message.find(op, op.size()) == std::string::npos);
  return message;
}

const std::string f4_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";

}  // namespace

TEST_CASE("io error messages (quoted in docs/errors.md)") {
  using K = IoErrorKind;
  const std::string two_floats(8, '\0');

  CHECK(message_of(load_npy<float>("/nonexistent/weights.npy"), K::open_failed) ==
        "load_npy: /nonexistent/weights.npy: cannot open the file (No such file or directory)");
  CHECK(message_of(save_npy("/nonexistent/out.npy", Tensor<float>::scalar(1)), K::write_failed) ==
        "save_npy: /nonexistent/out.npy: cannot create the file (No such file or directory)");
  CHECK(message_of(load_npy_bytes<float>(npy(f4_dict, "1234")), K::truncated) ==
        "load_npy_bytes: <memory>: shape [2] of '<f4' needs 8 data bytes, the file has 4");
  auto wrong_magic = npy(f4_dict, two_floats);
  wrong_magic[1] = std::byte{'n'};
  CHECK(message_of(load_npy_bytes<float>(wrong_magic), K::bad_magic) ==
        "load_npy_bytes: <memory>: does not start with \"\\x93NUMPY\"");
  // The header parser is public too: called directly, it names itself.
  CHECK(message_of(parse_npy_header(wrong_magic), K::bad_magic) ==
        "parse_npy_header: <memory>: does not start with \"\\x93NUMPY\"");
  auto version_9 = npy(f4_dict, two_floats);
  version_9[6] = std::byte{9};
  CHECK(message_of(load_npy_bytes<float>(version_9), K::unsupported_version) ==
        "load_npy_bytes: <memory>: format version 9.0 (supported: 1.0, 2.0, 3.0)");
  CHECK(message_of(load_npy_bytes<float>(npy("{'descr': '<f4', 'shape': (2,), }", two_floats)),
                   K::malformed_header) ==
        "load_npy_bytes: <memory>: the header needs the keys 'descr', 'fortran_order' and "
        "'shape' at header byte 54");
  CHECK(message_of(parse_safetensors_header(bytes(std::string("\xff\xff\xff\xff\0\0\0\0", 8))),
                   K::header_too_large) ==
        "parse_safetensors_header: <memory>: not a safetensors file (or a damaged one): its 8-byte "
        "size prefix announces a header of 4294967295 bytes, above the limit 100000000");
  CHECK(message_of(parse_safetensors_header(bytes(std::string("\x10\0\0\0\0\0\0\0{}", 10))),
                   K::truncated) ==
        "parse_safetensors_header: <memory>: not a safetensors file (or a truncated one): its "
        "8-byte size prefix announces a header of 16 bytes but only 2 bytes follow");
  // A .npy file opened as safetensors: named as what it is.
  CHECK(message_of(SafetensorsFile::from_bytes(npy(f4_dict, two_floats)), K::bad_magic) ==
        "SafetensorsFile::from_bytes: <memory>: not a safetensors file: it starts with the .npy "
        "magic "
        "\\x93NUMPY (read it with strided::load_npy)");
  CHECK(message_of(load_npy_bytes<bf16>(npy(f4_dict, two_floats)), K::unsupported_dtype) ==
        "load_npy_bytes: <memory>: element type bf16 has no NumPy dtype; load the file as float "
        "and cast<bf16>() it");
  CHECK(message_of(save_npy_bytes(Tensor<bf16>::scalar(bf16(1.0f))), K::unsupported_dtype) ==
        "save_npy_bytes: <memory>: element type bf16 has no NumPy dtype; save t.cast<float>() "
        "(exact) and cast back after loading");
  CHECK(message_of(load_npy_bytes<std::int32_t>(npy(f4_dict, two_floats)), K::dtype_mismatch) ==
        "load_npy_bytes: <memory>: the file holds descr '<f4', not i32 ('<i4')");
  CHECK(message_of(load_npy_bytes<float>(npy(f4_dict, two_floats + "!")), K::size_mismatch) ==
        "load_npy_bytes: <memory>: 1 bytes follow the data of shape [2]");
  const std::string hole = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                           R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})";
  CHECK(message_of(parse_safetensors_header(safetensors(hole, 12)), K::invalid_offsets) ==
        "parse_safetensors_header: <memory>: tensor \"b\" begins at 8, expected 4 (a hole)");
  const std::string b1_dict = "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }";
  CHECK(message_of(load_npy_bytes<bool>(npy(b1_dict, std::string("\x01\x02", 2))),
                   K::invalid_value) == "load_npy_bytes: <memory>: a bool byte is neither 0 nor 1");
  const auto file = SafetensorsFile::from_bytes(
                        safetensors(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8))
                        .value();
  CHECK(message_of(file.get<float>("bias"), K::not_found) ==
        "SafetensorsFile::get: <memory>: no tensor named \"bias\"");
  CHECK(message_of(file.get<std::int32_t>("w"), K::dtype_mismatch) ==
        "SafetensorsFile::get: <memory>: tensor \"w\" is F32, not I32");
  CHECK(message_of(file.get<Cents>("w"), K::unsupported_dtype) ==
        "SafetensorsFile::get: <memory>: element type cents has no safetensors dtype");
  const auto flags =
      SafetensorsFile::from_bytes(
          safetensors(R"({"f":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", 2))
          .value();
  CHECK(flags.get<bool>("f").has_value());
  const auto bad_flags =
      SafetensorsFile::from_bytes(
          safetensors_with(R"({"f":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})",
                           std::string("\x01\x02", 2)))
          .value();
  CHECK(message_of(bad_flags.get<bool>("f"), K::invalid_value) ==
        "SafetensorsFile::get: <memory>: tensor \"f\" has a BOOL byte that is neither 0 nor 1");
  const std::string huge_dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }";
  const auto huge = load_npy_bytes<float>(npy(huge_dict, ""));
  REQUIRE(huge.error().shape_error() != nullptr);
  CHECK(std::string(huge.error().shape_error()->op()) == "load_npy_bytes");
  CHECK(message_of(huge, K::shape) ==
        "load_npy_bytes: <memory>: the element count, a stride or the offset of shape "
        "[4294967296, 4294967296] overflows");
#if defined(STRIDED_HAVE_DLPACK)
  CHECK(message_of(from_dlpack<float>(nullptr), K::invalid_argument) ==
        "from_dlpack: <dlpack>: null pointer");
  std::vector<float> values(2);
  std::int64_t shape[] = {2};
  DLManagedTensor cuda{};
  cuda.dl_tensor = DLTensor{values.data(), {kDLCUDA, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
  CHECK(message_of(from_dlpack<float>(&cuda), K::unsupported_device) ==
        "from_dlpack: <dlpack>: device type 2 is not kDLCPU (1); copy the tensor to the CPU "
        "first");
  // dtypes by name, not DLPack's type codes
  DLManagedTensor floats{};
  floats.dl_tensor = DLTensor{values.data(), {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
  CHECK(message_of(from_dlpack<std::int32_t>(&floats), K::dtype_mismatch) ==
        "from_dlpack: <dlpack>: dtype f32 is not i32");
  DLManagedTensor complex{};
  complex.dl_tensor =
      DLTensor{values.data(), {kDLCPU, 0}, 1, {kDLComplex, 64, 1}, shape, nullptr, 0};
  CHECK(message_of(from_dlpack<float>(&complex), K::dtype_mismatch) ==
        "from_dlpack: <dlpack>: dtype {code 5, bits 64} is not f32");
#endif
}
