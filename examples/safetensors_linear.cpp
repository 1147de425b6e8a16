// Model weights from a safetensors file: an nn.Linear(4, 3) weight is stored [out, in];
// transpose_2d() turns it, without a copy, into the [in, out] operand of y = x @ W^T + b.
// docs/interop.md shows this file. Exits with 1 if y is wrong.
#include <cstdio>
#include <iostream>
#include <map>
#include <random>
#include <strided/io/safetensors.hpp>
#include <string>
#include <vector>

using strided::Tensor;

// y[i][j] = sum_k x[i][k] * w[k][j] + b[j], through each operand's strides.
Tensor<float> linear(const Tensor<float>& x, const Tensor<float>& w, const Tensor<float>& b) {
  const std::size_t n = x.shape()[0], k = x.shape()[1], m = w.shape()[1];
  std::vector<float> y(n * m);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      float acc = *b.get({j});
      for (std::size_t p = 0; p < k; ++p) acc += *x.get({i, p}) * *w.get({p, j});
      y[i * m + j] = acc;
    }
  return Tensor<float>::from_vector(std::move(y), {n, m}).value();
}

int main() {
  const std::string path =
      "/tmp/strided_example_" + std::to_string(std::random_device{}()) + ".safetensors";

  // Write a checkpoint: tensors of any element type, plus string metadata.
  auto weight = Tensor<float>::from_vector({1, 0, 0, 0,   // out 0 reads in 0
                                            0, 1, 1, 0,   // out 1 = in 1 + in 2
                                            0, 0, 0, 2},  // out 2 = 2 * in 3
                                           {3, 4})
                    .value();
  auto bias = Tensor<float>::from_vector({0.5f, 0, -1}, {3}).value();
  auto saved = strided::save_safetensors(path, {{"fc.weight", weight}, {"fc.bias", bias}},
                                         {{"format", "pt"}});
  if (!saved) {
    std::cerr << saved.error().message() << "\n";
    return 1;
  }

  // Open it: the file is memory-mapped and its header fully validated.
  auto file = strided::SafetensorsFile::open(path);
  if (!file) {
    std::cerr << file.error().message() << "\n";
    return 1;
  }
  for (const strided::SafetensorsInfo& t : file->tensors()) {
    std::cout << t.name << ": " << t.dtype << " [";
    for (std::size_t k = 0; k < t.shape.size(); ++k) std::cout << (k ? ", " : "") << t.shape[k];
    std::cout << "]\n";
  }
  // fc.bias: F32 [3]        (data order: larger elements first, then by name)
  // fc.weight: F32 [3, 4]

  // get<T> aliases the mapping (no copy); the tensors keep it alive after `file` is gone.
  Tensor<float> w = file->get<float>("fc.weight").value();  // [out=3, in=4]
  Tensor<float> b = file->get<float>("fc.bias").value();
  Tensor<float> w_t = w.transpose_2d().value();  // [in=4, out=3], same bytes, strides [1, 4]

  auto x = Tensor<float>::from_vector({1, 2, 3, 4}, {1, 4}).value();
  Tensor<float> y = linear(x, w_t, b);
  std::cout << y << "\n";  // tensor([[1.5000, 5.0000, 7.0000]])

  std::remove(path.c_str());  // the mapping stays valid until the last tensor dies
  return y.to_vector() == std::vector<float>{1.5f, 5, 7} && w_t.shares_storage_with(w) ? 0 : 1;
}
