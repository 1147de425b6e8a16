// Model weights in a safetensors file: save a linear layer, map the file back (zero-copy), and
// turn its [out, in] weight into the [in, out] operand of y = x W^T + b with transpose_2d.
// Needs nlohmann_json (strided/io/safetensors.hpp). docs/examples.md shows this file and its
// output (examples/expected/safetensors_weights.txt, checked by CTest). Writes and removes
// weights_example.safetensors in the working directory. Exits with 1 on a wrong result.
#include <cstddef>
#include <cstdio>
#include <iostream>
#include <strided/io/safetensors.hpp>
#include <string>
#include <vector>

namespace {

using strided::Tensor;

// y[i, j] = b[j] + sum_k x[i, k] * wt[k, j] for a contiguous [in, out] operand `wt`.
Tensor<float> linear(const Tensor<float>& x, const Tensor<float>& wt, const Tensor<float>& b) {
  const std::size_t n = x.shape()[0], in = wt.shape()[0], out = wt.shape()[1];
  const auto xs = x.as_slice().value(), ws = wt.as_slice().value(), bs = b.as_slice().value();
  std::vector<float> y(n * out);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < out; ++j) {
      float sum = bs[j];
      for (std::size_t k = 0; k < in; ++k) sum += xs[i * in + k] * ws[k * out + j];
      y[i * out + j] = sum;
    }
  return Tensor<float>::from_vector(std::move(y), {n, out}).value();
}

}  // namespace

int main() {
  const std::string path = "weights_example.safetensors";

  // [save]
  // A linear layer with 4 inputs and 3 outputs, stored the PyTorch way: weight [out, in].
  const auto weight =
      Tensor<float>::from_vector({1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1}, {3, 4}).value();
  const auto bias = Tensor<float>::from_vector({0.5f, -0.5f, 0}, {3}).value();
  auto saved = strided::save_safetensors(path, {{"linear.weight", weight}, {"linear.bias", bias}},
                                         {{"format", "pt"}});
  if (!saved) {
    std::cerr << saved.error().message() << "\n";
    return 1;
  }
  // [save]

  // [load]
  // open() maps the file and validates the whole header; get<T>() checks the dtype and returns
  // a tensor that points into the mapping (it keeps the mapping alive, even after `file` dies).
  const auto file = strided::SafetensorsFile::open(path).value();
  for (const strided::SafetensorsInfo& info : file.tensors()) {
    std::cout << info.name << ": " << info.dtype << " [";  // every axis, and none for a scalar
    for (std::size_t k = 0; k < info.shape.size(); ++k)
      std::cout << (k ? ", " : "") << info.shape[k];
    std::cout << "]\n";
  }
  std::cout << "metadata format = " << file.metadata().at("format") << "\n";
  const Tensor<float> w = file.get<float>("linear.weight").value();  // [out=3, in=4]
  const Tensor<float> b = file.get<float>("linear.bias").value();

  // x W^T wants W as [in, out]: transpose_2d is a view (strides swapped, nothing copied);
  // contiguous() then lays it out row-major once, for the inner loop.
  const Tensor<float> wt_view = w.transpose_2d().value();
  const Tensor<float> wt = wt_view.contiguous();
  // [load]
  std::cout << "weight:\n" << w << "\n";
  std::cout << "transpose_2d(): " << strided::to_debug_string(wt_view) << "\n";
  std::cout << "contiguous():   " << strided::to_debug_string(wt) << "\n";

  const auto x = Tensor<float>::from_vector({1, 2, 3, 4, 10, 20, 30, 40}, {2, 4}).value();
  const Tensor<float> y = linear(x, wt, b);
  std::cout << "y = x W^T + b:\n" << y << "\n";

  // Errors are values naming the file and the problem.
  std::cout << file.get<strided::f16>("linear.weight").error().message() << "\n";
  std::cout << file.get<float>("linear.scale").error().message() << "\n";
  std::remove(path.c_str());

  // Row i of y: (x0 + 0.5, x1 - 0.5, x0 + x1 + x2 + x3).
  const auto expected = Tensor<float>::from_vector({1.5f, 1.5f, 10, 10.5f, 19.5f, 100}, {2, 3});
  return strided::equal(y, expected.value()) ? 0 : 1;
}
