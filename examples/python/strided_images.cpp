// A Python extension module built on strided: normalise a batch of u8 NHWC images into the f32
// NCHW batch a network expects, (x / 255 - mean[c]) / std[c]. The argument arrives zero-copy from
// a NumPy array or a PyTorch tensor (any strides); the result goes back as a read-only NumPy
// array over the tensor's buffer. normalize.py calls it and checks it against PyTorch.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <strided/interop/pybind11.hpp>
#include <strided/map.hpp>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;
using strided::Tensor;

namespace {

// [normalize]
Tensor<float> normalize(const Tensor<std::uint8_t>& nhwc, std::vector<float> mean,
                        std::vector<float> stdev) {
  if (nhwc.rank() != 4 || mean.size() != nhwc.shape()[3] || stdev.size() != mean.size())
    throw py::value_error("normalize: expected an NHWC batch and one mean and std per channel");
  const std::size_t channels = mean.size();
  // The pass over the batch touches no Python object: other Python threads run meanwhile.
  py::gil_scoped_release released;
  const auto m = Tensor<float>::from_vector(std::move(mean), {channels, 1, 1}).value();
  const auto s = Tensor<float>::from_vector(std::move(stdev), {channels, 1, 1}).value();
  const auto nchw = nhwc.permute({0, 3, 1, 2}).value();  // a view: no copy
  auto result = strided::zip_with(
      [](std::uint8_t x, float mu, float sigma) { return (x / 255.0f - mu) / sigma; }, nchw, m, s);
  if (!result) throw py::value_error(result.error().message());
  return std::move(*result);
}
// [normalize]

}  // namespace

PYBIND11_MODULE(strided_images, module) {
  module.doc() = "strided example: image batch normalisation";
  module.def("normalize", &normalize, py::arg("nhwc"), py::arg("mean"), py::arg("std"),
             "u8 NHWC batch -> normalised f32 NCHW batch (a read-only NumPy array)");
  // For PyTorch callers: a DLPack capsule that torch.from_dlpack turns into a tensor sharing
  // the result's buffer.
  module.def(
      "normalize_dlpack",
      [](const Tensor<std::uint8_t>& nhwc, std::vector<float> mean, std::vector<float> stdev) {
        return strided::to_dlpack_capsule(normalize(nhwc, std::move(mean), std::move(stdev)));
      },
      py::arg("nhwc"), py::arg("mean"), py::arg("std"));
}
