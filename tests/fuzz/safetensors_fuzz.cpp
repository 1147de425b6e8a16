// Fuzz target 3: arbitrary bytes as a safetensors image. parse_safetensors_header either rejects
// them with an IoError or returns entries that tile the data section exactly (sorted, no hole,
// no overlap, each numel x element size long, ending at the end of the image);
// SafetensorsFile::from_bytes agrees; every entry of a type strided reads loads as a tensor whose
// row-major bytes are the entry's bytes (and the wrong type is dtype_mismatch); the whole file
// saves back to an image that parses to the same entries, metadata and bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "strided/io/safetensors.hpp"

namespace {

using strided::IoErrorKind;
using strided::SafetensorsFile;
using strided::SafetensorsInfo;
using strided::Tensor;

#define CHECK STRIDED_FUZZ_CHECK

std::span<const std::byte> entry_bytes(std::span<const std::byte> image, std::size_t data_offset,
                                       const SafetensorsInfo& info) {
  return image.subspan(data_offset + info.begin, info.end - info.begin);
}

/// Loads `info` as T (its dtype is T's) and as Other (not), checking values and the error.
template <class T, class Other>
void check_entry(const SafetensorsFile& file, const SafetensorsInfo& info,
                 std::span<const std::byte> want, std::vector<strided::SafetensorsEntry>& out) {
  const auto t = file.get<T>(info.name);
  const auto wrong = file.get<Other>(info.name);
  CHECK(!wrong && wrong.error().kind() == IoErrorKind::dtype_mismatch);
  if (!t) {
    // bool bytes other than 0/1, or a shape whose row-major strides overflow (no elements).
    const auto k = t.error().kind();
    CHECK(k == IoErrorKind::invalid_value || k == IoErrorKind::shape);
    return;
  }
  CHECK(t->shape() == info.shape && t->is_contiguous());
  CHECK(t->numel() * sizeof(T) == want.size());
  const auto values = t->as_slice().value();
  CHECK(want.empty() || std::memcmp(values.data(), want.data(), want.size()) == 0);
  out.emplace_back(info.name, *t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> image(reinterpret_cast<const std::byte*>(data), size);
  const auto header = strided::parse_safetensors_header(image);
  const auto file = SafetensorsFile::from_bytes(image);
  CHECK(header.has_value() == file.has_value());
  if (!header) {
    CHECK(!header.error().message().empty());
    CHECK(file.error().kind() == header.error().kind());
    return 0;
  }
  // The entries tile [data_offset, size) in order.
  CHECK(header->data_offset >= 8 && header->data_offset <= size);
  std::size_t at = 0;
  for (const SafetensorsInfo& info : header->tensors) {
    CHECK(info.begin == at && info.end >= info.begin);
    CHECK(info.shape.size() <= strided::max_rank);
    // The element count ignores the order of the sizes: a zero makes it 0 whatever comes before.
    std::size_t numel = 1;
    if (std::find(info.shape.begin(), info.shape.end(), 0) != info.shape.end())
      numel = 0;
    else
      for (std::size_t d : info.shape) CHECK(!__builtin_mul_overflow(numel, d, &numel));
    CHECK(numel * strided::safetensors_dtype_size(info.dtype) == info.end - info.begin);
    at = info.end;
  }
  CHECK(header->data_offset + at == size);
  CHECK(file->tensors().size() == header->tensors.size());
  const auto missing = file->get<float>("\x01not a tensor name\x02");
  CHECK(!missing && missing.error().kind() == IoErrorKind::not_found);

  std::vector<strided::SafetensorsEntry> entries;
  for (const SafetensorsInfo& info : file->tensors()) {
    CHECK(file->find(info.name) == &info);  // names are unique
    const auto want = entry_bytes(image, header->data_offset, info);
    const std::string& d = info.dtype;
    if (d == "BOOL") check_entry<bool, std::uint8_t>(*file, info, want, entries);
    if (d == "U8") check_entry<std::uint8_t, std::int8_t>(*file, info, want, entries);
    if (d == "I8") check_entry<std::int8_t, bool>(*file, info, want, entries);
    if (d == "I16") check_entry<std::int16_t, std::uint16_t>(*file, info, want, entries);
    if (d == "U16") check_entry<std::uint16_t, strided::f16>(*file, info, want, entries);
    if (d == "F16") check_entry<strided::f16, strided::bf16>(*file, info, want, entries);
    if (d == "BF16") check_entry<strided::bf16, std::int16_t>(*file, info, want, entries);
    if (d == "I32") check_entry<std::int32_t, float>(*file, info, want, entries);
    if (d == "U32") check_entry<std::uint32_t, std::int32_t>(*file, info, want, entries);
    if (d == "F32") check_entry<float, std::uint32_t>(*file, info, want, entries);
    if (d == "I64") check_entry<std::int64_t, double>(*file, info, want, entries);
    if (d == "U64") check_entry<std::uint64_t, std::int64_t>(*file, info, want, entries);
    if (d == "F64") check_entry<double, std::int64_t>(*file, info, want, entries);
  }
  // Round trip of what loaded: same entries, metadata and bytes.
  const auto saved = strided::save_safetensors_bytes(entries, file->metadata());
  CHECK(saved.has_value());
  const auto again = SafetensorsFile::from_bytes(std::span<const std::byte>(*saved));
  CHECK(again.has_value());
  CHECK(again->tensors().size() == entries.size());
  CHECK(again->metadata() == file->metadata());
  for (const strided::SafetensorsEntry& e : entries) {
    const SafetensorsInfo* info = again->find(e.name());
    CHECK(info != nullptr && info->shape == e.shape() && info->dtype == e.dtype());
    const auto bytes = std::span<const std::byte>(*saved).subspan(
        8 + strided::detail::load_le<8>(saved->data()) + info->begin, info->end - info->begin);
    CHECK(bytes.size() == e.bytes().size());
    CHECK(bytes.empty() || std::memcmp(bytes.data(), e.bytes().data(), bytes.size()) == 0);
  }
  return 0;
}
