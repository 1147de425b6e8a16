// The program every consumer project under tests/package/ builds and runs: it uses strided through
// nothing but the package's target and checks what it computes. Exit code 0 only if all is right.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <strided/reduce.hpp>
#include <strided/tensor.hpp>
#include <vector>
#ifdef STRIDED_CONSUMER_EIGEN
#include <strided/interop/eigen.hpp>
#endif

#if defined(STRIDED_COMPILED_LIB)
// The compiled mode's promise: a consumer's translation unit sees the engines' declarations only.
#if defined(_IMMINTRIN_H_INCLUDED) || defined(__IMMINTRIN_H) || defined(_GLIBCXX_THREAD) || \
    defined(_LIBCPP_THREAD)
#error "strided::compiled: <immintrin.h> or <thread> reached a consumer's translation unit"
#endif
#endif

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: FAILED: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  using strided::Tensor;

  // [[1, 2, 3], [4, 5, 6]]
  const Tensor<float> t = Tensor<float>::from_vector({1, 2, 3, 4, 5, 6}, {2, 3}).value();
  check(t.numel() == 6 && t.rank() == 2, "from_vector shape");
  check(t.is_contiguous(), "a fresh tensor is contiguous");

  // Transposing is a view: same buffer, swapped strides, no longer row-major.
  const Tensor<float> tt = t.transpose(0, 1).value();
  check(tt.shape()[0] == 3 && tt.shape()[1] == 2, "transpose shape");
  check(!tt.is_contiguous(), "a transposed view is not contiguous");
  check(tt.get({2, 1}) == std::optional<float>(6.0f), "get({2, 1}) on the view");
  check(!tt.get({3, 0}).has_value(), "get() out of range is nullopt");

  const Tensor<float> c = tt.contiguous();
  check(c.is_contiguous(), "contiguous() is contiguous");
  check(c.to_vector() == std::vector<float>{1, 4, 2, 5, 3, 6}, "contiguous() values");

  check(!t.transpose(0, 2).has_value(), "transpose with a bad axis is an error");

  // Reductions of the transposed view (compiled mode: the engine is libstrided's).
  check(strided::sum(tt, {0}).value().to_vector() == std::vector<float>{6, 15}, "sum over axis 0");
  check(strided::argmax(tt, 1).value().to_vector() == std::vector<std::int64_t>{1, 1, 1},
        "argmax along axis 1");
  check(strided::var(t).value().to_vector() == std::vector<float>{3.5f}, "var of all elements");
  check(!strided::min(tt, {2}).has_value(), "min over a bad axis is an error");

#ifdef STRIDED_CONSUMER_EIGEN
  // The Eigen bridge (find_package consumer, where Eigen is installed): a map of the transposed
  // view over t's buffer.
  const auto map = strided::to_eigen(tt).value();
  check(map.data() == t.storage().get() && map(2, 1) == 6.0f, "to_eigen of a transposed view");
#endif

  if (failures != 0) return 1;
  std::puts("strided consumer: ok");
  return 0;
}
