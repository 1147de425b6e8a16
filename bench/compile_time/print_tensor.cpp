// Compile-time probe: a newcomer's first program (a 2 x 3 tensor printed), with the one header it
// needs. bench/compile_time.py times it beside Eigen's and xtensor's equivalents.
#include <iostream>
#include <strided/tensor.hpp>

int main() {
  const auto t = strided::Tensor<float>::from_vector({1, 2, 3, 4, 5, 6}, {2, 3}).value();
  std::cout << t << "\n";
}
