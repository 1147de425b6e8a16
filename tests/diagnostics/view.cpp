// t.view(shape) is a PyTorch habit: it must fail with advice to use reshape(), not with an error
// about a private member.
#include <strided/tensor.hpp>

int main() {
  const auto t = strided::Tensor<float>::zeros({2, 3}).value();
  t.view({6});
  return 0;
}
