// A small data-loader loop: (image, label) samples are stacked into batches, the model reads the
// batch's input, and the per-batch results are joined again at the end. docs/batches.md shows
// this file. Exits with 1 if a batch does not hold what the loop expects.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <span>
#include <strided/batch.hpp>
#include <utility>
#include <vector>

namespace {

using strided::Tensor;

// One sample: a 3 x 4 x 4 image whose pixels all equal its label, and the label.
using Sample = std::pair<Tensor<float>, Tensor<std::int64_t>>;

std::vector<Sample> make_dataset(std::size_t count) {
  std::vector<Sample> dataset;
  for (std::size_t i = 0; i < count; ++i) {
    const auto label = static_cast<std::int64_t>(i % 3);
    dataset.emplace_back(Tensor<float>::full({3, 4, 4}, static_cast<float>(label)).value(),
                         Tensor<std::int64_t>::scalar(label));
  }
  return dataset;
}

// A stand-in for a model: the mean pixel of each image in the batch, shape [batch, 1].
Tensor<float> model(const Tensor<float>& images) {
  const std::size_t n = images.shape()[0];
  const std::size_t per_image = images.numel() / n;
  const auto pixels = images.as_slice().value();  // batches are always contiguous
  std::vector<float> means(n);
  for (std::size_t i = 0; i < n; ++i) {
    float sum = 0;
    for (std::size_t j = 0; j < per_image; ++j) sum += pixels[i * per_image + j];
    means[i] = sum / static_cast<float>(per_image);
  }
  return Tensor<float>::from_vector(std::move(means), {n, 1}).value();
}

}  // namespace

int main() {
  const std::vector<Sample> dataset = make_dataset(10);
  const std::size_t batch_size = 4;

  // [loader-loop]
  std::vector<Tensor<float>> outputs;
  for (std::size_t start = 0; start < dataset.size(); start += batch_size) {
    const auto samples =
        std::span(dataset).subspan(start, std::min(batch_size, dataset.size() - start));
    auto batch = strided::stack_samples(samples);  // pair<Tensor<float>, Tensor<int64_t>>
    if (!batch) {
      std::cerr << batch.error().message() << "\n";
      return 1;
    }
    const auto& [images, labels] = *batch;  // images [n, 3, 4, 4], labels [n]
    outputs.push_back(model(strided::inference_input(*batch)));
    std::cout << "batch of " << labels.shape()[0] << ": images [" << images.shape()[0] << ", "
              << images.shape()[1] << ", " << images.shape()[2] << ", " << images.shape()[3]
              << "], labels";
    for (std::int64_t label : labels.to_vector()) std::cout << ' ' << label;
    std::cout << "\n";
  }
  auto all = strided::concat_batches(outputs);  // [10, 1]: one output per sample
  // [loader-loop]

  if (!all || all->shape() != strided::Shape{dataset.size(), 1}) return 1;
  for (std::size_t i = 0; i < dataset.size(); ++i) {
    // each image's mean pixel is its label: the rows came back in sample order
    if (*all->get({i, 0}) != static_cast<float>(*dataset[i].second.get({}))) return 1;
  }
  std::cout << "outputs: " << all->shape()[0] << " x " << all->shape()[1] << ", in sample order\n";

  // A mistake is reported, not thrown: the first sample whose shape differs.
  std::vector<Sample> broken = dataset;
  broken[6].first = Tensor<float>::zeros({3, 4, 5}).value();
  auto bad = strided::stack_samples(broken);
  std::cout << bad.error().message() << "\n";
  return bad ? 1 : 0;
}
