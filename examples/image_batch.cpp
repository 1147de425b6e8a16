// Images as a model wants them: two HWC uint8 images (height x width x channels, the layout of
// image files and of OpenCV) become one NCHW float batch in [0, 1], then bfloat16.
// docs/examples.md shows this file and its output (examples/expected/image_batch.txt, checked by
// CTest). Exits with 1 if a value lands somewhere it should not.
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <strided/batch.hpp>
#include <strided/map.hpp>
#include <strided/tensor.hpp>
#include <vector>

namespace {

using strided::Tensor;

constexpr std::size_t height = 2, width = 3, channels = 3;

// A tiny HWC image: pixel (y, x) has channels (r, g, b) = (base + 10x + 40y, 20 + x, 250 - y).
Tensor<std::uint8_t> make_image(std::uint8_t base) {
  std::vector<std::uint8_t> pixels;
  for (std::size_t y = 0; y < height; ++y)
    for (std::size_t x = 0; x < width; ++x)
      for (std::size_t c = 0; c < channels; ++c) {
        const std::size_t v = c == 0 ? base + 10 * x + 40 * y : c == 1 ? 20 + x : 250 - y;
        pixels.push_back(static_cast<std::uint8_t>(v));
      }
  return Tensor<std::uint8_t>::from_vector(std::move(pixels), {height, width, channels}).value();
}

}  // namespace

int main() {
  const std::vector<Tensor<std::uint8_t>> images = {make_image(0), make_image(100)};
  std::cout << "image 1 (HWC, u8):\n" << images[1] << "\n";

  // [pipeline]
  // 1. Stack: [2, H, W, C] uint8 in one new buffer.
  const Tensor<std::uint8_t> nhwc = strided::stack_samples(images).value();
  // 2. NHWC -> NCHW is a view: output axis k is input axis perm[k]. Nothing is copied.
  const Tensor<std::uint8_t> nchw_view = nhwc.permute({0, 3, 1, 2}).value();
  // 3. map reads the view in logical order and writes a contiguous NCHW float tensor: the
  //    layout change, the conversion and the scaling to [0, 1] in one pass.
  const Tensor<float> batch =
      strided::map(nchw_view, [](std::uint8_t v) { return v / 255.0f; }).value();
  // 4. bfloat16 for the model: round to nearest even, exactly as PyTorch's .to(torch.bfloat16).
  const Tensor<strided::bf16> batch_bf16 = batch.cast<strided::bf16>().value();
  // [pipeline]

  std::cout << "NHWC -> NCHW view: " << strided::to_debug_string(nchw_view) << "\n";
  std::cout << "view shares the stacked buffer: " << std::boolalpha
            << nchw_view.shares_storage_with(nhwc) << "\n";
  std::cout << "batch[1] red channel (f32):\n" << batch.select(0, 1)->select(0, 0).value() << "\n";
  strided::PrintOptions two_digits;
  two_digits.precision = 2;
  std::cout << "batch (bf16, precision 2):\n" << strided::display(batch_bf16, two_digits) << "\n";

  // Every value must have travelled from pixel (n, y, x, c) to element (n, c, y, x).
  for (std::size_t n = 0; n < 2; ++n)
    for (std::size_t c = 0; c < channels; ++c)
      for (std::size_t y = 0; y < height; ++y)
        for (std::size_t x = 0; x < width; ++x) {
          const float pixel = *images[n].get({y, x, c});
          if (*batch.get({n, c, y, x}) != pixel / 255.0f) return 1;
          const auto rounded = strided::bf16(pixel / 255.0f);
          if (batch_bf16.get({n, c, y, x})->raw != rounded.raw) return 1;
        }
  return 0;
}
