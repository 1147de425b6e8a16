// Linear algebra on strided views through Eigen (strided/interop/eigen.hpp): the product of a
// transposed view and a narrowed view, with no copy of either operand (their Eigen maps point
// into the tensors' buffers), checked against a naive triple loop; then the product back as a
// tensor. Exits with 1 on a wrong value.
#include <cstddef>
#include <iostream>
#include <memory>
#include <strided/interop/eigen.hpp>
#include <vector>

int main() {
  using strided::Tensor;
  std::vector<double> a_values(5 * 3), b_values(7 * 4);
  for (std::size_t i = 0; i < a_values.size(); ++i) a_values[i] = double(i % 7) - 3.0;
  for (std::size_t i = 0; i < b_values.size(); ++i) b_values[i] = double(i % 5) * 0.5;
  const auto a = Tensor<double>::from_vector(a_values, {5, 3}).value();
  const auto b = Tensor<double>::from_vector(b_values, {7, 4}).value();

  // [product]
  const Tensor<double> at = a.transpose(0, 1).value();    // 3 x 5, strides [1, 3]
  const Tensor<double> rows = b.narrow(0, 1, 5).value();  // 5 x 4, rows 1..5 of b
  const auto ma = strided::to_eigen(at).value();          // Eigen::Map over a's buffer
  const auto mb = strided::to_eigen(rows).value();
  const Eigen::MatrixXd product = ma * mb;  // Eigen reads the views in place
  // [product]

  const bool shared = ma.data() == a.storage().get() && mb.data() == b.storage().get() + 4;
  std::cout << "maps share the tensors' buffers: " << (shared ? "yes" : "no") << "\n";
  bool equal = true;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      double naive = 0;
      for (std::size_t k = 0; k < 5; ++k)
        naive += at.get({i, k}).value() * rows.get({k, j}).value();
      equal = equal && naive == product(Eigen::Index(i), Eigen::Index(j));
    }
  std::cout << "equal to the naive product: " << (equal ? "yes" : "no") << "\n";

  // The result as a tensor: a view of the Eigen matrix (column-major strides), kept alive by
  // the shared_ptr, then printed through strided.
  auto held = std::make_shared<const Eigen::MatrixXd>(product);
  const Tensor<double> c = strided::from_eigen(held).value();
  std::cout << "strides " << c.strides()[0] << ", " << c.strides()[1] << "\n" << c << "\n";
  return shared && equal ? 0 : 1;
}
