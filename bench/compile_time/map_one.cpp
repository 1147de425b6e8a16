// Compile-time probe: one strided::map call (its loop is instantiated for the lambda), printed.
// map_two.cpp adds a second call with another lambda: the difference is the cost of one more call.
#include <iostream>
#include <strided/map.hpp>

int main() {
  const auto t = strided::Tensor<float>::from_vector({1, 2, 3, 4, 5, 6}, {2, 3}).value();
  const auto scaled = strided::map(t, [](float x) { return 2 * x + 1; }).value();
  std::cout << scaled << "\n";
}
