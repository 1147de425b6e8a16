// DLPack: hand a strided view to another framework without a copy, and take one back.
// docs/interop.md shows this file. Exits with 1 if the exchange is not zero-copy.
#include <cstdint>
#include <iostream>
#include <strided/interop/dlpack.hpp>
#include <vector>

int main() {
  using strided::Tensor;
  auto base = Tensor<float>::from_vector({0, 1, 2, 3, 4, 5}, {2, 3}).value();
  Tensor<float> view = base.transpose_2d().value();  // [3, 2], strides [1, 3]

  // Export: the consumer gets data = &element[0][0], int64 shape and strides, and a deleter that
  // releases our reference to the buffer. A consumer calls the deleter exactly once when done.
  DLManagedTensor* exported = strided::to_dlpack(view);
  if (exported == nullptr) return 1;
  const DLTensor& dl = exported->dl_tensor;
  std::cout << "ndim " << dl.ndim << ", shape [" << dl.shape[0] << ", " << dl.shape[1]
            << "], strides [" << dl.strides[0] << ", " << dl.strides[1] << "]\n";
  // ndim 2, shape [3, 2], strides [1, 3]

  // Import: from_dlpack takes ownership whatever happens. Here the "foreign" tensor is our own
  // export; in practice it comes from torch.utils.dlpack.to_dlpack, a capsule, ONNX Runtime ...
  auto imported = strided::from_dlpack<float>(exported);
  if (!imported) {
    std::cerr << imported.error().message() << "\n";
    return 1;
  }
  const bool zero_copy = imported->storage().get() + imported->offset() == view.storage().get();
  std::cout << *imported << (zero_copy ? " (zero-copy)" : " (copied?)") << "\n";
  // tensor([[0., 3.],
  //         [1., 4.],
  //         [2., 5.]]) (zero-copy)

  // Errors name what was wrong; the producer's deleter still runs exactly once.
  auto wrong = strided::from_dlpack<std::int32_t>(strided::to_dlpack(view));
  std::cout << wrong.error().message() << "\n";
  // from_dlpack: <dlpack>: dtype f32 is not i32
  return zero_copy && !wrong ? 0 : 1;
}
