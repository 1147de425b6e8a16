// The extension module test_pybind11.py drives: strided/interop/pybind11.hpp's casters in both
// directions, the explicit conversions, and a tensor kept past the call that created it.
// clang-format off
#include <strided/interop/pybind11.hpp>  // first: it must compile on its own (tests/self_contained
                                         // cannot build a Python module)
// clang-format on
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>

namespace py = pybind11;
using strided::AnyTensor;
using strided::Tensor;

namespace {

std::optional<AnyTensor> kept;  // a tensor that outlives the call that made it

// What the caster built: dtype, shape, element strides and the address of element [0, ...].
py::dict describe(const AnyTensor& t) {
  py::dict d;
  d["dtype"] = std::string(strided::to_string(t.dtype()));
  d["shape"] = py::tuple(py::cast(std::vector<std::size_t>(t.shape().begin(), t.shape().end())));
  d["strides"] =
      py::tuple(py::cast(std::vector<std::ptrdiff_t>(t.strides().begin(), t.strides().end())));
  const auto* base = static_cast<const char*>(t.storage().get());
  d["address"] = reinterpret_cast<std::uintptr_t>(base + t.offset() * t.element_size());
  return d;
}

}  // namespace

PYBIND11_MODULE(strided_pybind11_test, m) {
  m.def("describe", &describe);
  m.def("identity", [](AnyTensor t) { return t; });
  m.def("identity_f32", [](const Tensor<float>& t) { return t; });
  m.def("identity_u8", [](Tensor<std::uint8_t> t) { return t; });
  m.def("identity_bf16", [](const Tensor<strided::bf16>& t) { return t; });
  m.def("transpose", [](const AnyTensor& t) { return t.transpose(0, 1).value(); });
  m.def("flip", [](const AnyTensor& t, std::size_t dim) { return t.flip(dim).value(); });
  // Overloads: the first pass (no conversion) picks the one whose dtype matches.
  m.def("which", [](const Tensor<float>&) { return "f32"; });
  m.def("which", [](const Tensor<std::int64_t>&) { return "i64"; });
  m.def("which", [](const std::string&) { return "str"; });
  m.def("to_numpy", [](const AnyTensor& t) { return strided::to_numpy(t); });
  m.def("to_numpy_copy", [](const AnyTensor& t) { return strided::to_numpy_copy(t); });
  m.def("to_capsule", [](const AnyTensor& t) { return strided::to_dlpack_capsule(t); });
  m.def("keep", [](AnyTensor t) { kept = std::move(t); });
  m.def("kept", []() { return *kept; });
  m.def("drop", []() { kept.reset(); });
  // The last reference dies with the GIL released: the buffer owner must take it back.
  m.def("drop_without_gil", []() {
    py::gil_scoped_release released;
    kept.reset();
  });
}
