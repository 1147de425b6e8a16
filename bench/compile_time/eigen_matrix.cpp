// Compile-time reference point: a 2 x 3 Eigen matrix printed (ratio 1.0 in bench/compile_time.py).
#include <Eigen/Dense>
#include <iostream>

int main() {
  Eigen::MatrixXf m(2, 3);
  m << 1, 2, 3, 4, 5, 6;
  std::cout << m << "\n";
}
