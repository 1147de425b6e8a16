// Two data-loader loops. The first stacks (image, label) samples into batches, the model reads
// the batch's input, and the per-batch results are joined again at the end (docs/batches.md).
// The second holds the dataset as one tensor [N, H, W, C] of bytes: each epoch shuffles the
// sample order, gathers each batch into one buffer allocated before the loop, and normalises it
// to NCHW floats with the dataset's per-channel mean and std (docs/examples.md). Exits with 1
// if a batch or a statistic is not what a plain loop computes.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <memory>
#include <random>
#include <span>
#include <strided/batch.hpp>
#include <strided/gather.hpp>
#include <strided/map.hpp>
#include <strided/ranges.hpp>
#include <strided/reduce.hpp>
#include <strided/tensor_span.hpp>
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

int stacked_samples_loop() {
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

// ----- the dataset as one tensor: shuffled epochs into one reused buffer ----------------------

using Bytes = Tensor<std::uint8_t>;
using Labels = Tensor<std::int64_t>;
constexpr std::size_t kSamples = 10, kHeight = 4, kWidth = 5, kChannels = 3;
constexpr std::size_t kBatch = 4, kEpochs = 2;
constexpr std::size_t kSampleBytes = kHeight * kWidth * kChannels;
using Channels = std::array<double, kChannels>;

// Pixel (n, y, x, c) of the dataset: a fixed pattern that differs between samples and channels.
std::uint8_t pixel(std::size_t n, std::size_t y, std::size_t x, std::size_t c) {
  return static_cast<std::uint8_t>((n * 29 + y * 41 + x * 13 + c * 80 + n * x * 7) % 256);
}

Bytes make_images() {
  std::vector<std::uint8_t> bytes;
  for (std::size_t n = 0; n < kSamples; ++n)
    for (std::size_t y = 0; y < kHeight; ++y)
      for (std::size_t x = 0; x < kWidth; ++x)
        for (std::size_t c = 0; c < kChannels; ++c) bytes.push_back(pixel(n, y, x, c));
  return Bytes::from_vector(std::move(bytes), {kSamples, kHeight, kWidth, kChannels}).value();
}

// Fisher-Yates on std::mt19937's raw numbers. std::shuffle draws a different permutation from the
// same engine under libstdc++ and libc++, and this program's printed order must not depend on the
// standard library. (The modulo's bias, below i / 2^32, does not matter here.)
void shuffle(std::vector<std::int64_t>& order, std::mt19937& rng) {
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
}

// u8 -> f32, minus the channel's mean, times 1 / its std. No product is added to anything, so no
// compiler can fuse it into an FMA: the check below may recompute it and compare bit for bit.
constexpr auto normalise = [](std::uint8_t v, float mean, float inv_std) {
  return (static_cast<float>(v) - mean) * inv_std;
};

// [1, C, 1, 1] floats (the values or their inverses), to broadcast against NCHW batches.
Tensor<float> per_channel(const Channels& values, bool invert) {
  std::vector<float> v;
  for (const double d : values) v.push_back(static_cast<float>(invert ? 1 / d : d));
  return Tensor<float>::from_vector(std::move(v), {1, kChannels, 1, 1}).value();
}

// One batch: `nchw` is a view of the loader's byte buffer, `x` of its float buffer.
struct Batch {
  Bytes nchw;
  Tensor<float> x;
};

// A loader over a dataset tensor. Every batch lands in the same three buffers, allocated once,
// with the loader: the samples' bytes, their labels and their normalised floats.
struct DatasetLoader {
  Bytes images;          // [N, H, W, C]
  Labels labels;         // [N]: here sample n's label is n, to see which sample went where
  Channels mean, stdev;  // the dataset's, per channel
  Tensor<float> mean_f32 = per_channel(mean, false), inv_std_f32 = per_channel(stdev, true);
  std::shared_ptr<std::vector<std::uint8_t>> bytes =
      std::make_shared<std::vector<std::uint8_t>>(kBatch * kSampleBytes);
  std::vector<std::int64_t> batch_labels = std::vector<std::int64_t>(kBatch);
  std::shared_ptr<std::vector<float>> floats =
      std::make_shared<std::vector<float>>(kBatch * kSampleBytes);

  strided::Result<Batch> load(std::span<const std::int64_t> picks) {
    const std::size_t n = picks.size();
    // Gather: sample picks[i] to place i of each buffer, in one pass; allocates nothing.
    auto gathered =
        strided::index_select_into(images, 0, picks, std::span(bytes->data(), n * kSampleBytes));
    if (gathered)
      gathered = strided::index_select_into(labels, 0, picks, std::span(batch_labels).first(n));
    if (!gathered) return std::move(gathered).error();
    // The filled part of the buffer as an NHWC tensor sharing it, then NCHW: views, no copy.
    const std::shared_ptr<const std::uint8_t> shared(bytes, bytes->data());
    auto nhwc =
        Bytes::from_shared(shared, n * kSampleBytes,
                           strided::Layout::contiguous({n, kHeight, kWidth, kChannels}).value());
    auto nchw = nhwc ? nhwc->permute({0, 3, 1, 2}) : nhwc;
    if (!nchw) return std::move(nchw).error();
    // Normalise: one pass over the NCHW view of the bytes into the loader's float buffer, in
    // NCHW order (zip_with_into: allocates no output; the mean and 1 / std broadcast per channel).
    const std::span<float> out(floats->data(), n * kSampleBytes);
    auto dst = strided::TensorSpan<float>::dense(out, nchw->shape());
    if (!dst) return std::move(dst).error();
    if (auto done = strided::zip_with_into(*dst, normalise, *nchw, mean_f32, inv_std_f32); !done)
      return std::move(done).error();
    auto x =
        Tensor<float>::from_shared(std::shared_ptr<const float>(floats, floats->data()), out.size(),
                                   strided::Layout::contiguous(nchw->shape()).value());
    if (!x) return std::move(x).error();
    return Batch{std::move(*nchw), std::move(*x)};
  }
};

// The per-channel mean and std (correction 1) by a plain double loop over the bytes.
std::pair<Channels, Channels> naive_channel_stats(std::span<const std::uint8_t> bytes) {
  const std::size_t count = bytes.size() / kChannels;
  Channels mean{}, stdev{};
  for (std::size_t c = 0; c < kChannels; ++c) {
    double sum = 0, squares = 0;
    for (std::size_t i = 0; i < count; ++i) sum += bytes[i * kChannels + c];
    mean[c] = sum / static_cast<double>(count);
    for (std::size_t i = 0; i < count; ++i) {
      const double d = bytes[i * kChannels + c] - mean[c];
      squares += d * d;
    }
    stdev[c] = std::sqrt(squares / static_cast<double>(count - 1));
  }
  return {mean, stdev};
}

// Tolerances against the plain loop. mean: none. Sums of bytes are integers below 2^53, exact in
// double in any order, and both divide the same sum by the same count. std: 1e-12 relative. Both
// work in double, strided merging blocks by Chan's formula, the loop in sequence; each of the
// ~2 x 200 roundings per channel is within 2^-53 relative, so they agree to ~5e-14. Mistakes move
// it far more: correction 0 instead of 1 by 2.5e-3, a pixel of another channel by more.
bool stats_match(const Channels& mean, const Channels& stdev, const Bytes& images) {
  const auto [want_mean, want_std] = naive_channel_stats(images.as_slice().value());
  for (std::size_t c = 0; c < kChannels; ++c)
    if (mean[c] != want_mean[c] || std::abs(stdev[c] - want_std[c]) > 1e-12 * want_std[c])
      return false;
  return true;
}

// A batch against the dataset: its labels are `picks`; its bytes are the picked samples', in the
// buffer allocated before the loop; x[i, c, y, w] is normalise() of the pixel, bit for bit.
bool batch_matches(const DatasetLoader& loader, std::span<const std::int64_t> picks,
                   const Batch& batch, const std::uint8_t* buffer) {
  const std::uint8_t* dataset = loader.images.as_slice().value().data();
  const auto x = batch.x.as_slice().value();  // fresh, so contiguous
  if (batch.nchw.storage().get() != buffer || batch.x.shape() != batch.nchw.shape()) return false;
  std::size_t k = 0;  // x's row-major index: [i, c, y, w]
  for (std::size_t i = 0; i < picks.size(); ++i) {
    const auto n = static_cast<std::size_t>(picks[i]);
    if (loader.batch_labels[i] != picks[i] ||
        std::memcmp(buffer + i * kSampleBytes, dataset + n * kSampleBytes, kSampleBytes) != 0)
      return false;
    for (std::size_t c = 0; c < kChannels; ++c)
      for (std::size_t y = 0; y < kHeight; ++y)
        for (std::size_t w = 0; w < kWidth; ++w)
          if (x[k++] != normalise(pixel(n, y, w, c), static_cast<float>(loader.mean[c]),
                                  static_cast<float>(1 / loader.stdev[c])))
            return false;
  }
  return true;
}

// One epoch: a new order, then its batches, each checked. True when every sample came once.
bool run_epoch(DatasetLoader& loader, std::vector<std::int64_t>& order, std::mt19937& rng,
               const std::uint8_t* buffer) {
  shuffle(order, rng);
  std::vector<int> seen(kSamples, 0);
  for (std::size_t start = 0; start < kSamples; start += kBatch) {
    const auto picks =
        std::span<const std::int64_t>(order).subspan(start, std::min(kBatch, kSamples - start));
    auto batch = loader.load(picks);
    if (!batch) {
      std::cerr << batch.error().message() << "\n";
      return false;
    }
    if (!batch_matches(loader, picks, *batch, buffer)) return false;
    std::cout << "  batch " << batch->x.shape() << " f32, samples";
    for (const std::int64_t label : std::span(loader.batch_labels).first(picks.size())) {
      std::cout << ' ' << label;
      ++seen[static_cast<std::size_t>(label)];
    }
    std::cout << "\n";
  }
  return std::all_of(seen.begin(), seen.end(), [](int times) { return times == 1; });
}

void print_channels(const char* what, const Channels& values) {
  std::cout << what;
  for (const double v : values) std::cout << ' ' << std::fixed << std::setprecision(4) << v;
  std::cout << "\n";
}

int shuffled_epochs() {
  const Bytes images = make_images();
  // Per-channel statistics: axes {0, 1, 2} (samples, rows, columns) of NHWC reduced; u8 reduces
  // to double (mean_type_t), written into two arrays.
  Channels mean{}, stdev{};
  if (!strided::mean_into(images, {0, 1, 2}, std::span(mean)) ||
      !strided::std_into(images, {0, 1, 2}, std::span(stdev)) || !stats_match(mean, stdev, images))
    return 1;
  std::cout << "dataset " << images.shape() << " u8\n";
  print_channels("per-channel mean:", mean);
  print_channels("per-channel std: ", stdev);

  DatasetLoader loader{images, strided::arange<std::int64_t>(kSamples).value(), mean, stdev};
  const std::uint8_t* const buffer = loader.bytes->data();      // every batch must land here
  std::vector<std::int64_t> order = loader.labels.to_vector();  // 0, 1, ..., N - 1
  std::mt19937 rng(5489);
  for (std::size_t epoch = 0; epoch < kEpochs; ++epoch) {
    std::cout << "epoch " << epoch << ":\n";
    if (!run_epoch(loader, order, rng, buffer)) return 1;
  }
  std::cout
      << "each epoch: every sample once, all batches in the one buffer, values as a plain loop\n";
  return 0;
}
}  // namespace

int main() {
  if (stacked_samples_loop() != 0) return 1;
  return shuffled_epochs();
}
