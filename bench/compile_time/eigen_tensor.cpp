// Compile-time peer: a 2 x 3 Eigen::Tensor printed.
#include <iostream>
#include <unsupported/Eigen/CXX11/Tensor>

int main() {
  Eigen::Tensor<float, 2> t(2, 3);
  t.setValues({{1, 2, 3}, {4, 5, 6}});
  std::cout << t << "\n";
}
