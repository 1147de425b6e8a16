// Compile-time probe: zip_with_one.cpp plus a second three-input zip_with with another lambda.
#include <iostream>
#include <strided/map.hpp>

int main() {
  using strided::Tensor;
  const auto x = Tensor<float>::from_vector({1, 2, 3, 4, 5, 6}, {2, 3}).value();
  const auto mean = Tensor<float>::from_vector({1, 2, 3}, {3}).value();
  const auto scale = Tensor<float>::from_vector({0.5f, 2}, {2, 1}).value();
  auto normalize = [](float v, float m, float s) { return (v - m) * s; };
  const auto y = strided::zip_with(normalize, x, mean, scale).value();
  auto blend = [](float a, float b, float w) { return w * a + (1 - w) * b; };
  const auto z = strided::zip_with(blend, y, x, scale).value();
  std::cout << y << "\n" << z << "\n";
}
