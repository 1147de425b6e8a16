// Compile-time probe: one three-input strided::zip_with call (broadcast mean and scale), printed.
// zip_with_two.cpp adds a second call with another lambda: the cost of one more call.
#include <iostream>
#include <strided/map.hpp>

int main() {
  using strided::Tensor;
  const auto x = Tensor<float>::from_vector({1, 2, 3, 4, 5, 6}, {2, 3}).value();
  const auto mean = Tensor<float>::from_vector({1, 2, 3}, {3}).value();
  const auto scale = Tensor<float>::from_vector({0.5f, 2}, {2, 1}).value();
  auto normalize = [](float v, float m, float s) { return (v - m) * s; };
  const auto y = strided::zip_with(normalize, x, mean, scale).value();
  std::cout << y << "\n";
}
