// Normalising a batch of images in one pass (strided/map.hpp):
//   normalize_images [dir]   (dir defaults to the working directory)
// u8 NHWC images -> f32 NCHW, x / 255 then (x - mean[c]) / std[c], with zip_with over a permuted
// (zero-copy) view and [3, 1, 1] mean / std tensors. Writes <dir>/images_nhwc.npy and
// <dir>/normalized_nchw.npy; normalize_images.py does the same in PyTorch and compares. Exits
// with 1 on a wrong value.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <strided/io/npy.hpp>
#include <strided/map.hpp>
#include <vector>

int main(int argc, char** argv) {
  using strided::Tensor;
  const std::filesystem::path dir = argc > 1 ? argv[1] : ".";
  // Two 4 x 5 RGB images, height x width x channel, as a camera or decoder delivers them.
  std::vector<std::uint8_t> pixels(2 * 4 * 5 * 3);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 37);
  const auto nhwc = Tensor<std::uint8_t>::from_vector(pixels, {2, 4, 5, 3}).value();

  // [normalize]
  // NHWC -> NCHW is a view; zip_with reads it, broadcasts mean / std ([3, 1, 1]: one value per
  // channel) against it and writes a new contiguous f32 tensor, in one pass.
  const Tensor<std::uint8_t> nchw = nhwc.permute({0, 3, 1, 2}).value();
  const auto mean = Tensor<float>::from_vector({0.485f, 0.456f, 0.406f}, {3, 1, 1}).value();
  const auto stdev = Tensor<float>::from_vector({0.229f, 0.224f, 0.225f}, {3, 1, 1}).value();
  auto normalize = [](std::uint8_t x, float m, float s) { return (x / 255.0f - m) / s; };
  const Tensor<float> input = strided::zip_with(normalize, nchw, mean, stdev).value();
  // [normalize]
  // A map: one input, no broadcasting (here the batch's range, for the printout).
  const Tensor<float> clipped =
      strided::map(input, [](float v) { return std::fmin(std::fmax(v, -2.0f), 2.0f); }).value();

  std::cout << "input " << strided::to_debug_string(input).substr(0, 48) << "...\n";
  std::cout << "image 0, channel 0:\n" << input.select(0, 0).value().select(0, 0).value() << "\n";
  std::cout << "clipped to [-2, 2], image 1, channel 2, row 0: "
            << clipped.select(0, 1).value().select(0, 2).value().select(0, 0).value() << "\n";
  // [runs]
  // A hand-written kernel over a view: the red channel of image 0 read straight from the NHWC
  // buffer, run by run (here one run of 20 pixels, 3 bytes apart).
  const Tensor<std::uint8_t> red = nchw.select(0, 0).value().select(0, 0).value();
  std::size_t runs = 0, sum = 0;
  strided::for_each_run(red, [&](const std::uint8_t* p, std::size_t n, std::ptrdiff_t stride) {
    ++runs;
    for (std::size_t i = 0; i < n; ++i) sum += p[static_cast<std::ptrdiff_t>(i) * stride];
  });
  // [runs]
  std::cout << "red channel of image 0: " << runs << " run(s), sum " << sum << "\n";
  std::size_t by_get = 0;
  for (std::size_t h = 0; h < 4; ++h)
    for (std::size_t w = 0; w < 5; ++w) by_get += nhwc.get({0, h, w, 0}).value();
  if (by_get != sum) return 1;
  // Check one element by hand: image 1, channel 2 (blue), row 3, column 4.
  const float x = nhwc.get({1, 3, 4, 2}).value();
  if (input.get({1, 2, 3, 4}).value() != (x / 255.0f - 0.406f) / 0.225f) return 1;

  for (const auto& [name, ok] :
       {std::pair{"images_nhwc.npy",
                  bool(strided::save_npy((dir / "images_nhwc.npy").string(), nhwc))},
        std::pair{"normalized_nchw.npy",
                  bool(strided::save_npy((dir / "normalized_nchw.npy").string(), input))}})
    if (!ok) {
      std::cerr << "cannot write " << name << "\n";
      return 1;
    }
  return 0;
}
