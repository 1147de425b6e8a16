// Helpers for the tests of the runtime-dtype formats (npy, safetensors, DLPack with AnyTensor).
#pragma once

#include <type_traits>

#include "strided/any_tensor.hpp"

namespace strided_test {

/// `values` converted to dtype `d`, as `AnyTensor(values).cast(d)` would give. It casts from
/// double only: AnyTensor::cast visits both dtypes, so each file calling it compiles all 13 x 13
/// cast pairs (half a minute per file under ASan); any_tensor_test tests that one.
inline strided::AnyTensor any_from(const strided::Tensor<double>& values, strided::DType d) {
  return strided::visit_dtype(d, [&]<class U>(std::type_identity<U>) {
    return strided::AnyTensor(values.template cast<U>().value());
  });
}

}  // namespace strided_test
