#include "catch_shim.hpp"
// The dtype registry: every fact against NumPy and PyTorch (tests/data/dtype_cases.txt, written
// by tests/gen_dtype_cases.py), the DLPack header, the C++ types, and the formats that read it.
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <strided/dtype.hpp>
#include <strided/element.hpp>
#include <strided/io/npy.hpp>
#include <string>
#include <type_traits>
#if STRIDED_HAVE_DLPACK
#include <strided/interop/dlpack.hpp>
#endif
#if STRIDED_HAVE_NLOHMANN_JSON
#include <strided/io/safetensors.hpp>
#endif

using strided::DType;
using strided::dtype_info;
using strided::dtype_registry;

namespace {

struct Fact {
  std::string npy_descr, npy_size, torch_name, torch_size;
};

std::map<std::string, Fact> read_facts() {
  std::ifstream in(STRIDED_TEST_DATA_DIR "/dtype_cases.txt");
  REQUIRE(in.good());
  std::map<std::string, Fact> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string tag, name;
    words >> tag >> name;
    if (tag != "fact") continue;
    Fact f;
    words >> f.npy_descr >> f.npy_size >> f.torch_name >> f.torch_size;
    out[name] = f;
  }
  return out;
}

template <class T>
void check_type(DType d) {
  STATIC_REQUIRE(strided::is_builtin_element_v<T>);
  CHECK(strided::dtype_of<T> == d);
  CHECK(std::is_same_v<strided::dtype_type<strided::dtype_of<T>>, T>);
  CHECK(dtype_info(d).size == sizeof(T));
  CHECK(strided::element_traits<T>::name == dtype_info(d).name);
  CHECK(strided::npy_descr<T>() == dtype_info(d).npy_descr);
  const bool is_float = std::is_floating_point_v<T> || std::is_same_v<T, strided::f16> ||
                        std::is_same_v<T, strided::bf16>;
  const auto kind = dtype_info(d).kind;
  CHECK(is_float == (kind == strided::DTypeKind::floating));
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    CHECK((std::is_signed_v<T> ? strided::DTypeKind::signed_int
                               : strided::DTypeKind::unsigned_int) == kind);
  CHECK(std::is_same_v<T, bool> == (kind == strided::DTypeKind::boolean));
}

}  // namespace

TEST_CASE("dtype: the registry is indexed by DType and agrees with the C++ types") {
  REQUIRE(dtype_registry.size() == 13);
  for (std::size_t i = 0; i < dtype_registry.size(); ++i)
    CHECK(static_cast<std::size_t>(dtype_registry[i].dtype) == i);
  check_type<bool>(DType::bool_);
  check_type<std::uint8_t>(DType::u8);
  check_type<std::int8_t>(DType::i8);
  check_type<std::uint16_t>(DType::u16);
  check_type<std::int16_t>(DType::i16);
  check_type<std::uint32_t>(DType::u32);
  check_type<std::int32_t>(DType::i32);
  check_type<std::uint64_t>(DType::u64);
  check_type<std::int64_t>(DType::i64);
  check_type<strided::f16>(DType::f16);
  check_type<strided::bf16>(DType::bf16);
  check_type<float>(DType::f32);
  check_type<double>(DType::f64);
  STATIC_REQUIRE(!strided::is_builtin_element_v<char>);
  STATIC_REQUIRE(!strided::is_builtin_element_v<long double>);
  STATIC_REQUIRE(!strided::is_builtin_element_v<const float>);
}

TEST_CASE("dtype: every fact agrees with NumPy and PyTorch (tests/gen_dtype_cases.py)") {
  const auto facts = read_facts();
  REQUIRE(facts.size() == dtype_registry.size());
  for (const strided::DTypeInfo& row : dtype_registry) {
    INFO("dtype " << row.name);
    const auto it = facts.find(std::string(row.name));
    REQUIRE(it != facts.end());
    const Fact& f = it->second;
    CHECK(f.npy_descr == (row.npy_descr.empty() ? "-" : std::string(row.npy_descr)));
    if (!row.npy_descr.empty()) CHECK(f.npy_size == std::to_string(row.size));
    // torch 1.13 lacks uint16/32/64 ('-'): their names are those of PyTorch >= 2.3.
    if (f.torch_name != "-") {
      CHECK(f.torch_name == row.torch_name);
      CHECK(f.torch_size == std::to_string(row.size));
    } else {
      CHECK(row.kind == strided::DTypeKind::unsigned_int);
      CHECK(row.torch_name == "torch.uint" + std::to_string(row.size * 8));
    }
  }
}

TEST_CASE("dtype: names, descrs and codes are unique and look up their row") {
  std::set<std::string_view> names, torch, safetensors, npy;
  std::set<std::pair<int, int>> dlpack;
  for (const strided::DTypeInfo& row : dtype_registry) {
    CHECK(names.insert(row.name).second);
    CHECK(torch.insert(row.torch_name).second);
    CHECK(safetensors.insert(row.safetensors).second);
    if (!row.npy_descr.empty()) CHECK(npy.insert(row.npy_descr).second);
    CHECK(dlpack.insert({row.dlpack_code, row.dlpack_bits}).second);
    CHECK(row.dlpack_bits == row.size * 8);
    CHECK(strided::dtype_from_name(row.name) == row.dtype);
    CHECK(strided::dtype_from_torch_name(row.torch_name) == row.dtype);
    CHECK(strided::dtype_from_safetensors(row.safetensors) == row.dtype);
    CHECK(strided::dtype_from_dlpack(row.dlpack_code, row.dlpack_bits) == row.dtype);
    if (!row.npy_descr.empty())
      CHECK(strided::dtype_from_npy(row.npy_descr[1], row.size) == row.dtype);
    CHECK(strided::to_string(row.dtype) == row.name);
    std::ostringstream os;
    os << row.dtype;
    CHECK(os.str() == row.name);
  }
  CHECK_FALSE(strided::dtype_from_name("float32"));
  CHECK_FALSE(strided::dtype_from_name(""));
  CHECK_FALSE(strided::dtype_from_torch_name("torch.complex64"));
  CHECK_FALSE(strided::dtype_from_safetensors("F8_E5M2"));
  CHECK_FALSE(strided::dtype_from_safetensors("f32"));
  CHECK_FALSE(strided::dtype_from_npy('c', 8));
  CHECK_FALSE(strided::dtype_from_npy('f', 16));
  CHECK_FALSE(strided::dtype_from_npy('b', 2));
  CHECK_FALSE(strided::dtype_from_dlpack(2, 8));
  CHECK_FALSE(strided::dtype_from_dlpack(5, 64));  // kDLComplex
  CHECK_FALSE(strided::is_valid(static_cast<DType>(13)));
  CHECK(strided::is_valid(DType::f64));
  CHECK(strided::to_string(static_cast<DType>(200)) == "bool");  // clamped, never out of bounds
}

TEST_CASE("dtype: visit_dtype reaches the C++ type of every DType") {
  for (const strided::DTypeInfo& row : dtype_registry) {
    const std::size_t size =
        strided::visit_dtype(row.dtype, []<class T>(std::type_identity<T>) { return sizeof(T); });
    CHECK(size == row.size);
    const std::string_view name = strided::visit_dtype(
        row.dtype, []<class T>(std::type_identity<T>) { return strided::element_traits<T>::name; });
    CHECK(name == row.name);
  }
  STATIC_REQUIRE(strided::visit_dtype(
                     DType::i16, []<class T>(std::type_identity<T>) { return sizeof(T); }) == 2);
}

TEST_CASE("dtype: DTypeError names the operation and both dtypes") {
  const strided::DTypeError e("as", DType::f32, DType::i64);
  CHECK(e.op() == std::string("as"));
  CHECK(e.expected() == DType::f32);
  CHECK(e.actual() == DType::i64);
  CHECK(e.message() == "as: the tensor holds i64, not f32");
}

TEST_CASE("dtype: npy descr parsing reads the registry") {
  for (const strided::DTypeInfo& row : dtype_registry) {
    if (row.npy_descr.empty()) continue;
    auto parsed = strided::parse_npy_descr(row.npy_descr);
    REQUIRE(parsed);
    CHECK(parsed->kind == row.npy_descr[1]);
    CHECK(parsed->size == row.size);
  }
  CHECK_FALSE(strided::parse_npy_descr("<c8"));
  CHECK_FALSE(strided::parse_npy_descr("<f16"));
  CHECK_FALSE(strided::parse_npy_descr("|b2"));
  CHECK(strided::npy_descr<strided::bf16>().empty());
}

#if STRIDED_HAVE_DLPACK
TEST_CASE("dtype: DLPack codes agree with <dlpack/dlpack.h>") {
  auto code = [](DType d) { return static_cast<int>(dtype_info(d).dlpack_code); };
  CHECK(code(DType::i8) == kDLInt);
  CHECK(code(DType::i64) == kDLInt);
  CHECK(code(DType::u8) == kDLUInt);
  CHECK(code(DType::u64) == kDLUInt);
  CHECK(code(DType::f16) == kDLFloat);
  CHECK(code(DType::f32) == kDLFloat);
  CHECK(code(DType::f64) == kDLFloat);
  CHECK(code(DType::bf16) == kDLBfloat);
  // kDLBool (6) exists from DLPack 0.8; older headers (Debian 12 ships 0.6) lack the name.
#if defined(DLPACK_MAJOR_VERSION) || (defined(DLPACK_VERSION) && DLPACK_VERSION >= 80)
  CHECK(code(DType::bool_) == kDLBool);
#endif
  CHECK(code(DType::bool_) == 6);
  const auto f32 = strided::dlpack_dtype<float>();
  REQUIRE(f32);
  CHECK((f32->code == kDLFloat && f32->bits == 32 && f32->lanes == 1));
}
#endif

#if STRIDED_HAVE_NLOHMANN_JSON
TEST_CASE("dtype: safetensors names and sizes come from the registry") {
  for (const strided::DTypeInfo& row : dtype_registry)
    CHECK(strided::safetensors_dtype_size(row.safetensors) == row.size);
  CHECK(strided::safetensors_dtype_size("F8_E5M2") == 1);
  CHECK(strided::safetensors_dtype_size("F8_E4M3") == 1);
  CHECK(strided::safetensors_dtype_size("F32 ") == 0);
  CHECK(strided::safetensors_dtype<float>() == "F32");
  CHECK(strided::safetensors_dtype<bool>() == "BOOL");
  CHECK(strided::safetensors_dtype<char>().empty());
}
#endif
