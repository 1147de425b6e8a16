// Compile-time probe: map_one.cpp plus a second strided::map call with a different lambda.
#include <iostream>
#include <strided/map.hpp>

int main() {
  const auto t = strided::Tensor<float>::from_vector({1, 2, 3, 4, 5, 6}, {2, 3}).value();
  const auto scaled = strided::map(t, [](float x) { return 2 * x + 1; }).value();
  const auto squared = strided::map(scaled, [](float x) { return x * x; });
  std::cout << scaled << "\n" << squared.value() << "\n";
}
