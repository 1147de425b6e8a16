// Runtime element types: the DType enum, dtype_of<T>, and THE registry of per-dtype facts (size,
// name, kind, NumPy descr, safetensors name, DLPack code and bits, PyTorch name). Every format,
// printer and trait reads its facts here; adding a built-in type means adding one row below and
// one type to `dtype_type`'s list, nothing else. Needs only the standard library.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "strided/half.hpp"

namespace strided {

/// The built-in element types, in registry order (the order AnyTensor's alternatives use too).
enum class DType : std::uint8_t {
  bool_,
  u8,
  i8,
  u16,
  i16,
  u32,
  i32,
  u64,
  i64,
  f16,
  bf16,
  f32,
  f64
};

/// How a dtype's bits mean a number.
enum class DTypeKind : std::uint8_t {
  boolean,       ///< one byte, 0 or 1
  signed_int,    ///< two's complement
  unsigned_int,  ///< unsigned binary
  floating,      ///< IEEE 754 binary16/32/64 or bfloat16
};

/// Everything the library knows about one built-in element type. An empty name means the
/// format has no such type (NumPy has no bfloat16).
struct DTypeInfo {
  DType dtype;                   ///< the enumerator this row describes
  std::string_view name;         ///< strided's short name: "f32" (element_traits<T>::name)
  std::size_t size;              ///< bytes per element
  DTypeKind kind;                ///< integer, float or bool
  std::string_view npy_descr;    ///< little-endian NumPy descr, "<f4"; empty: none
  std::string_view safetensors;  ///< safetensors dtype, "F32"
  std::uint8_t dlpack_code;      ///< DLDataTypeCode: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4,
                                 ///< kDLBool 6
  std::uint8_t dlpack_bits;      ///< DLDataType::bits
  std::string_view torch_name;   ///< str(torch dtype): "torch.float32"
  FloatFormat format;            ///< floats: significand and exponent bits; others {0, 0}
};

/// The registry: one row per DType, indexed by the enumerator's value.
inline constexpr std::array<DTypeInfo, 13> dtype_registry = {{
    {DType::bool_, "bool", 1, DTypeKind::boolean, "|b1", "BOOL", 6, 8, "torch.bool", {}},
    {DType::u8, "u8", 1, DTypeKind::unsigned_int, "|u1", "U8", 1, 8, "torch.uint8", {}},
    {DType::i8, "i8", 1, DTypeKind::signed_int, "|i1", "I8", 0, 8, "torch.int8", {}},
    {DType::u16, "u16", 2, DTypeKind::unsigned_int, "<u2", "U16", 1, 16, "torch.uint16", {}},
    {DType::i16, "i16", 2, DTypeKind::signed_int, "<i2", "I16", 0, 16, "torch.int16", {}},
    {DType::u32, "u32", 4, DTypeKind::unsigned_int, "<u4", "U32", 1, 32, "torch.uint32", {}},
    {DType::i32, "i32", 4, DTypeKind::signed_int, "<i4", "I32", 0, 32, "torch.int32", {}},
    {DType::u64, "u64", 8, DTypeKind::unsigned_int, "<u8", "U64", 1, 64, "torch.uint64", {}},
    {DType::i64, "i64", 8, DTypeKind::signed_int, "<i8", "I64", 0, 64, "torch.int64", {}},
    {DType::f16, "f16", 2, DTypeKind::floating, "<f2", "F16", 2, 16, "torch.float16",
     float_formats::binary16},
    {DType::bf16, "bf16", 2, DTypeKind::floating, "", "BF16", 4, 16, "torch.bfloat16",
     float_formats::bfloat16},
    {DType::f32, "f32", 4, DTypeKind::floating, "<f4", "F32", 2, 32, "torch.float32",
     float_formats::binary32},
    {DType::f64, "f64", 8, DTypeKind::floating, "<f8", "F64", 2, 64, "torch.float64",
     float_formats::binary64},
}};

/// Element types a format can name but strided cannot hold (listed so that headers naming them
/// can still be inspected and sized): name and bytes per element.
struct ForeignDType {
  std::string_view safetensors;  ///< e.g. "F8_E5M2"
  std::size_t size;              ///< bytes per element
};
/// The safetensors dtypes without a DType.
inline constexpr std::array<ForeignDType, 2> safetensors_foreign_dtypes = {{
    {"F8_E5M2", 1},
    {"F8_E4M3", 1},
}};

/// The C++ type of a DType: dtype_type<DType::f32> is float.
template <DType D>
using dtype_type = std::tuple_element_t<
    static_cast<std::size_t>(D),
    std::tuple<bool, std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t,
               std::int32_t, std::uint64_t, std::int64_t, f16, bf16, float, double>>;

namespace detail {
template <class... Ts>
struct type_list {};

template <std::size_t... I>
auto dtype_types(std::index_sequence<I...>) -> type_list<dtype_type<static_cast<DType>(I)>...>;

/// The C++ type of each DType, in registry order (dtype_type's list, as a type_list).
using builtin_element_types =
    decltype(dtype_types(std::make_index_sequence<dtype_registry.size()>{}));

template <class T, class... Ts>
constexpr std::size_t index_in(type_list<Ts...>) noexcept {
  constexpr bool matches[] = {std::is_same_v<T, Ts>...};
  for (std::size_t i = 0; i < sizeof...(Ts); ++i)
    if (matches[i]) return i;
  return sizeof...(Ts);
}

template <class... Ts>
constexpr bool registry_matches_types(type_list<Ts...>) noexcept {
  constexpr std::size_t sizes[] = {sizeof(Ts)...};
  if (sizeof...(Ts) != dtype_registry.size()) return false;
  for (std::size_t i = 0; i < sizeof...(Ts); ++i)
    if (dtype_registry[i].size != sizes[i] ||
        static_cast<std::size_t>(dtype_registry[i].dtype) != i)
      return false;
  return true;
}
static_assert(registry_matches_types(builtin_element_types{}),
              "dtype_registry rows must follow DType and dtype_type, with their sizes");
}  // namespace detail

/// True for the 13 built-in element types (those a DType names).
template <class T>
inline constexpr bool is_builtin_element_v =
    detail::index_in<T>(detail::builtin_element_types{}) < dtype_registry.size();

/// A built-in element type.
template <class T>
concept BuiltinElement = is_builtin_element_v<T>;

/// The DType of a built-in element type: dtype_of<float> == DType::f32.
template <BuiltinElement T>
inline constexpr DType dtype_of =
    static_cast<DType>(detail::index_in<T>(detail::builtin_element_types{}));

/// True when T is a built-in element type of kind `kind`.
template <class T>
constexpr bool is_dtype_kind(DTypeKind kind) noexcept {
  if constexpr (BuiltinElement<T>)
    return dtype_registry[static_cast<std::size_t>(dtype_of<T>)].kind == kind;
  else
    return false;
}

/// The registry row of `d`. A value outside the enumerators (a cast from a bad integer) gives
/// the row of bool rather than reading out of bounds.
constexpr const DTypeInfo& dtype_info(DType d) noexcept {
  const auto i = static_cast<std::size_t>(d);
  return dtype_registry[i < dtype_registry.size() ? i : 0];
}

/// True when `d` is one of the enumerators.
constexpr bool is_valid(DType d) noexcept {
  return static_cast<std::size_t>(d) < dtype_registry.size();
}

/// strided's short name of `d`: "f32".
constexpr std::string_view to_string(DType d) noexcept { return dtype_info(d).name; }

/// Bytes per element of `d`.
constexpr std::size_t dtype_size(DType d) noexcept { return dtype_info(d).size; }

/// Writes to_string(d).
inline std::ostream& operator<<(std::ostream& os, DType d) { return os << to_string(d); }

namespace detail {
template <class Pred>
constexpr std::optional<DType> find_dtype(Pred pred) noexcept {
  for (const DTypeInfo& row : dtype_registry)
    if (pred(row)) return row.dtype;
  return std::nullopt;
}
}  // namespace detail

/// @name Lookups: the DType a name, descr or code stands for, or nullopt
///@{

/// By strided's short name ("f32"), or (torch_name) PyTorch's ("torch.float32").
constexpr std::optional<DType> dtype_from_name(std::string_view name) noexcept {
  return detail::find_dtype([&](const DTypeInfo& r) { return r.name == name; });
}
constexpr std::optional<DType> dtype_from_torch_name(std::string_view name) noexcept {
  return detail::find_dtype([&](const DTypeInfo& r) { return r.torch_name == name; });
}
/// By NumPy kind character ('b', 'i', 'u', 'f') and item size.
constexpr std::optional<DType> dtype_from_npy(char kind, std::size_t size) noexcept {
  return detail::find_dtype([&](const DTypeInfo& r) {
    return !r.npy_descr.empty() && r.npy_descr[1] == kind && r.size == size;
  });
}
/// By safetensors dtype name ("F32").
constexpr std::optional<DType> dtype_from_safetensors(std::string_view name) noexcept {
  return detail::find_dtype([&](const DTypeInfo& r) { return r.safetensors == name; });
}
/// By DLPack type code and bits (lanes are the caller's business).
constexpr std::optional<DType> dtype_from_dlpack(std::uint8_t code, std::uint8_t bits) noexcept {
  return detail::find_dtype(
      [&](const DTypeInfo& r) { return r.dlpack_code == code && r.dlpack_bits == bits; });
}
///@}

namespace detail {
// The i-th type of the list, by a chain of comparisons (no table of function pointers: clang
// does not instantiate member templates called from lambdas converted in a constant table).
template <class F, class T, class... Rest>
constexpr decltype(auto) visit_type_at(std::size_t i, F& f, type_list<T, Rest...>) {
  if constexpr (sizeof...(Rest) == 0) {
    return f(std::type_identity<T>{});
  } else {
    if (i == 0) return f(std::type_identity<T>{});
    return visit_type_at(i - 1, f, type_list<Rest...>{});
  }
}
}  // namespace detail

/// Calls `f(std::type_identity<T>{})` with the C++ type of `d` and returns what it returns
/// (every instantiation must return the same type). The one place a runtime DType becomes a
/// compile-time type.
template <class F>
constexpr decltype(auto) visit_dtype(DType d, F&& f) {
  return detail::visit_type_at(static_cast<std::size_t>(dtype_info(d).dtype), f,
                               detail::builtin_element_types{});
}

/// The error of a typed access to a runtime-typed tensor: the tensor holds `actual`, the caller
/// asked for `expected`.
class DTypeError {
 public:
  /// `op` (a string literal) asked for `expected`; the tensor holds `actual`.
  constexpr DTypeError(const char* op, DType expected, DType actual) noexcept
      : op_(op), expected_(expected), actual_(actual) {}

  /// The operation, e.g. "as".
  constexpr const char* op() const noexcept { return op_; }
  /// The dtype asked for.
  constexpr DType expected() const noexcept { return expected_; }
  /// The dtype the tensor holds.
  constexpr DType actual() const noexcept { return actual_; }
  /// `as: the tensor holds i64, not f32`.
  std::string message() const {
    return std::string(op_) + ": the tensor holds " + std::string(to_string(actual_)) + ", not " +
           std::string(to_string(expected_));
  }

 private:
  const char* op_;
  DType expected_;
  DType actual_;
};

}  // namespace strided
