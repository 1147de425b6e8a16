// Compile-time probe: the first program with the umbrella header <strided/strided.hpp> (all of
// the library that needs only the standard library) instead of <strided/tensor.hpp>.
#include <iostream>
#include <strided/strided.hpp>

int main() {
  const auto t = strided::Tensor<float>::from_vector({1, 2, 3, 4, 5, 6}, {2, 3}).value();
  std::cout << t << "\n";
}
