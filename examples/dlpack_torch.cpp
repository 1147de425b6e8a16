// Zero-copy exchange with PyTorch through DLPack (strided/interop/dlpack.hpp, needs dlpack.h).
//
// Built twice: as the program dlpack_torch (main below: a round trip inside C++) and as the shared
// library dlpack_torch_lib, whose two C functions examples/dlpack_torch.py calls through ctypes to
// hand a strided view to torch and a torch view to strided. CTest runs both. The library uses no
// Python API: the Python side wraps and unwraps the DLPack capsules itself.
// docs/examples.md shows this file.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <strided/interop/dlpack.hpp>
#include <string>
#include <vector>

namespace {

using strided::Tensor;

// [export]
// A [3, 4] float tensor 0 .. 11, exported as its transpose: torch receives shape [4, 3] with
// strides [1, 4] pointing into this buffer, which it keeps alive until it calls the deleter.
DLManagedTensor* export_weights() {
  std::vector<float> values(12);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  const auto w = Tensor<float>::from_vector(std::move(values), {3, 4}).value();
  return strided::to_dlpack(w.transpose_2d().value());  // nullptr only when out of memory
}
// [export]

}  // namespace

extern "C" {

/// A DLManagedTensor* for Python to wrap in a "dltensor" capsule.
DLManagedTensor* strided_example_export() { return export_weights(); }

/// Imports a float DLPack tensor (taking ownership: its deleter runs before this returns, when the
/// tensor dies) and writes its Display and Debug text into `text`. Returns the address of element
/// [0, ..., 0] as strided sees it (equal to torch's data_ptr(): nothing was copied), or 0 on error
/// with the error message in `text`.
std::uintptr_t strided_example_import(DLManagedTensor* m, char* text, std::size_t size) {
  // [import]
  auto t = strided::from_dlpack<float>(m);  // checks device, dtype, shape and strides
  std::string out =
      t ? strided::to_string(*t) + "\n" + strided::to_debug_string(*t) : t.error().message();
  // [import]
  std::strncpy(text, out.c_str(), size - 1);
  text[size - 1] = '\0';
  return t ? reinterpret_cast<std::uintptr_t>(t->storage().get() + t->offset()) : 0;
}

}  // extern "C"

// The same round trip without Python: export, import, compare.
int main() {
  DLManagedTensor* m = export_weights();
  const auto shape = m->dl_tensor.shape, strides = m->dl_tensor.strides;
  std::cout << "exported: ndim " << m->dl_tensor.ndim << ", shape [" << shape[0] << ", " << shape[1]
            << "], strides [" << strides[0] << ", " << strides[1] << "]\n";
  const void* data = m->dl_tensor.data;
  const auto t = strided::from_dlpack<float>(m).value();
  std::cout << "imported: " << strided::to_debug_string(t) << "\n";
  std::cout << "same memory: " << std::boolalpha << (t.storage().get() + t.offset() == data)
            << "\n";
  std::cout << strided::from_dlpack<double>(strided::to_dlpack(t)).error().message() << "\n";
  return t.storage().get() + t.offset() == data && *t.get({3, 2}) == 11.0f ? 0 : 1;
}
