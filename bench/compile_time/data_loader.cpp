// Compile-time probe and a working program: a small data loader. It reads a batch of u8 NHWC
// images from a .npy file, makes normalised f32 NCHW inputs (permute, cast, map, zip_with), mixes
// each image with its mirror image (zip_with), splits the batch into samples and stacks them
// again in reverse order with their labels (unbind, stack_samples), then writes the batch as .npy
// and as safetensors. bench/compile_time.py times its compile and runs it once.
//     data_loader images.npy out_dir    (writes out_dir/inputs.npy, out_dir/batch.safetensors)
#include <cstdint>
#include <iostream>
#include <strided/io/safetensors.hpp>
#include <strided/strided.hpp>
#include <string>
#include <utility>
#include <vector>

namespace {

using strided::Tensor;

int fail(const std::string& message) {
  std::cerr << "data_loader: " << message << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: data_loader images.npy out_dir");
  const std::string out_dir = argv[2];
  auto images = strided::load_npy<std::uint8_t>(argv[1]);  // [n, h, w, 3]
  if (!images) return fail(images.error().message());
  if (images->rank() != 4 || images->shape()[3] != 3) return fail("expected [n, h, w, 3] images");

  // NHWC -> NCHW is a view; the cast and the element-wise passes each write a contiguous tensor.
  const Tensor<float> pixels = images->permute({0, 3, 1, 2}).value().cast<float>().value();
  const Tensor<float> unit = strided::map(pixels, [](float x) { return x / 255.0f; }).value();
  const auto mean = Tensor<float>::from_vector({0.485f, 0.456f, 0.406f}, {3, 1, 1}).value();
  const auto stdev = Tensor<float>::from_vector({0.229f, 0.224f, 0.225f}, {3, 1, 1}).value();
  auto normalize = [](float x, float m, float s) { return (x - m) / s; };
  const Tensor<float> input = strided::zip_with(normalize, unit, mean, stdev).value();
  const auto weight = Tensor<float>::scalar(0.75f);
  auto blend = [](float x, float mirrored, float w) { return w * x + (1 - w) * mirrored; };
  const Tensor<float> mixed =
      strided::zip_with(blend, input, input.flip(3).value(), weight).value();

  // Split into samples and stack them again, last image first, each with its label.
  std::vector<std::pair<Tensor<float>, Tensor<std::int64_t>>> samples;
  const std::vector<Tensor<float>> split = mixed.unbind(0).value();
  for (std::size_t i = split.size(); i-- > 0;)
    samples.emplace_back(split[i], Tensor<std::int64_t>::scalar(static_cast<std::int64_t>(i)));
  auto batch = strided::stack_samples(samples);
  if (!batch) return fail(batch.error().message());
  const auto& [inputs, labels] = *batch;

  auto npy = strided::save_npy(out_dir + "/inputs.npy", inputs);
  if (!npy) return fail(npy.error().message());
  auto st = strided::save_safetensors(out_dir + "/batch.safetensors",
                                      {{"inputs", inputs}, {"labels", labels}}, {{"format", "pt"}});
  if (!st) return fail(st.error().message());
  std::cout << "wrote " << labels.shape()[0] << " samples of " << inputs.shape()[1] << " x "
            << inputs.shape()[2] << " x " << inputs.shape()[3] << " to " << out_dir << "\n";
}
