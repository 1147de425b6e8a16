// A Python module built against an installed strided (tests/package/find_package): the pybind11
// casters of strided/interop/pybind11.hpp; consumer_py_check.py imports and checks it.
#include <pybind11/pybind11.h>

#include <strided/interop/pybind11.hpp>

PYBIND11_MODULE(consumer_py, m) {
  m.def("flip_rows", [](const strided::Tensor<float>& t) { return t.flip(0).value(); });
}
