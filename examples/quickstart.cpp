// strided in one page: build a tensor, take zero-copy views, make one contiguous, read elements.
// Built and run by the first command of README.md; its output is shown there (and checked by the
// CTest test readme.quickstart_output).
#include <iostream>
#include <strided/tensor.hpp>

int main() {
  using strided::Tensor;

  // from_vector adopts the vector's buffer (no copy) and checks that 6 == 2 * 3.
  const Tensor<float> a = Tensor<float>::from_vector({1, 2, 3, 4, 5, 6}, {2, 3}).value();
  std::cout << "a:\n" << a << "\n";

  // Views share a's buffer: transposing only swaps shape and strides.
  const Tensor<float> at = a.transpose(0, 1).value();
  std::cout << "a.transpose(0, 1):\n" << at << "\n" << strided::to_debug_string(at) << "\n";
  std::cout << "a.narrow(1, 1, 2):\n" << a.narrow(1, 1, 2).value() << "\n";

  // contiguous() copies into a fresh row-major buffer (it returns *this when already contiguous).
  const Tensor<float> c = at.contiguous();
  std::cout << "at.contiguous():\n" << strided::to_debug_string(c) << "\n";
  std::cout << "c.get({2, 1}): " << c.get({2, 1}).value() << "\n";

  // Fallible operations return strided::Result: errors are values, with a readable message.
  const auto bad = a.transpose(0, 2);
  if (!bad) std::cout << "a.transpose(0, 2): " << bad.error().message() << "\n";
  return bad ? 1 : 0;
}
