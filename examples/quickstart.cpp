// strided in one page: build a tensor, take zero-copy views, make one contiguous, read elements.
// Built and run by the first command of README.md; its output is shown there.
#include <cstddef>
#include <iostream>
#include <strided/tensor.hpp>
#include <vector>

namespace {

// TODO(lead): print with `std::cout << t` once operator<< (the text engine) lands, and update the
// output shown in README.md. Until then: a row-major dump through get().
void print(const char* name, const strided::Tensor<float>& t) {
  std::cout << name << ": shape [";
  for (std::size_t k = 0; k < t.rank(); ++k) std::cout << (k ? ", " : "") << t.shape()[k];
  std::cout << "], strides [";
  for (std::size_t k = 0; k < t.rank(); ++k) std::cout << (k ? ", " : "") << t.strides()[k];
  std::cout << "], contiguous: " << (t.is_contiguous() ? "yes" : "no") << "\n";
  for (std::size_t i = 0; i < t.shape()[0]; ++i) {
    std::cout << "  ";
    for (std::size_t j = 0; j < t.shape()[1]; ++j) std::cout << ' ' << *t.get({i, j});
    std::cout << "\n";
  }
}

}  // namespace

int main() {
  using strided::Tensor;

  // from_vector adopts the vector's buffer (no copy) and checks that 6 == 2 * 3.
  const Tensor<float> a = Tensor<float>::from_vector({1, 2, 3, 4, 5, 6}, {2, 3}).value();
  print("a", a);

  // Views share a's buffer: transposing only swaps shape and strides.
  const Tensor<float> at = a.transpose(0, 1).value();
  print("a.transpose(0, 1)", at);

  // contiguous() copies into a fresh row-major buffer (it returns *this when already contiguous).
  const Tensor<float> c = at.contiguous();
  print("contiguous()", c);
  std::cout << "to_vector():";
  for (float x : c.to_vector()) std::cout << ' ' << x;
  std::cout << "\n";

  // Fallible operations return strided::Result: errors are values, with a readable message.
  const auto bad = a.transpose(0, 2);
  if (!bad) std::cout << "a.transpose(0, 2): error: " << bad.error().message() << "\n";
  return bad ? 1 : 0;
}
