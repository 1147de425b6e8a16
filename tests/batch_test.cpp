// Batches: stack_samples / stack / concat_batches / concat against a naive get()-based reference
// on every axis of ranks 0-5, with contiguous, permuted, narrowed, broadcast and reversed samples;
// pair / tuple / custom samples of mixed element types; every error with its context; and
// inference_input.
#include "strided/batch.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "catch_shim.hpp"
#include "strided/tensor_span.hpp"
#include "thread_support.hpp"

namespace {

using strided::DataError;
using strided::DataErrorKind;
using strided::Layout;
using strided::Shape;
using strided::ShapeErrorKind;
using strided::Strides;
using strided::Tensor;

template <class T>
T value_for(std::size_t k) {
  if constexpr (std::is_same_v<T, bool>)
    return k % 3 == 1;
  else if constexpr (std::is_same_v<T, strided::f16>)
    return strided::f16(static_cast<float>(k % 2048));
  else if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(k) + static_cast<T>(0.5);
  else
    return static_cast<T>(k);
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Calls f(index) for every index of `shape` in row-major order.
template <class F>
void for_each_index(const Shape& shape, F&& f) {
  for (std::size_t n : shape)
    if (n == 0) return;
  Shape index(shape.size(), 0);
  for (;;) {
    f(index);
    std::size_t k = shape.size();
    while (k > 0) {
      --k;
      if (++index[k] < shape[k]) break;
      index[k] = 0;
      if (k == 0) return;
    }
    if (shape.size() == 0) return;
  }
}

enum class Kind { contiguous, permuted, narrowed, broadcast, reversed };
constexpr std::array<Kind, 5> all_kinds = {Kind::contiguous, Kind::permuted, Kind::narrowed,
                                           Kind::broadcast, Kind::reversed};

template <class T>
Tensor<T> filled(const Shape& shape, std::size_t seed) {
  std::vector<T> data(strided::detail::checked_numel(shape).value());
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = value_for<T>(seed * 1000 + i);
  return Tensor<T>::from_vector(std::move(data), shape).value();
}

// A tensor of `shape` laid out as `kind` says, with values derived from `seed`.
template <class T>
Tensor<T> make_view(Kind kind, const Shape& shape, std::size_t seed, std::mt19937& rng) {
  const std::size_t rank = shape.size();
  switch (kind) {
    case Kind::contiguous:
      return filled<T>(shape, seed);
    case Kind::permuted: {
      Shape perm(rank, 0);
      std::iota(perm.begin(), perm.end(), std::size_t{0});
      std::shuffle(perm.begin(), perm.end(), rng);
      Shape base(rank, 0);
      for (std::size_t k = 0; k < rank; ++k) base[perm[k]] = shape[k];
      return filled<T>(base, seed).permute(perm).value();
    }
    case Kind::narrowed: {
      Shape base = shape;
      for (auto& n : base) n += 2;
      Tensor<T> t = filled<T>(base, seed);
      for (std::size_t k = 0; k < rank; ++k) t = t.narrow(k, 1, shape[k]).value();
      return t;
    }
    case Kind::broadcast: {
      Shape base = shape;
      for (auto& n : base)
        if (rng() % 2 == 0) n = 1;
      return filled<T>(base, seed).broadcast_to(shape).value();
    }
    case Kind::reversed: {
      const Tensor<T> base = filled<T>(shape, seed);
      Strides strides = base.strides();
      std::size_t offset = 0;
      for (std::size_t k = 0; k < rank; ++k) {
        if (rng() % 2 == 0 || shape[k] == 0) continue;
        offset += (shape[k] - 1) * static_cast<std::size_t>(strides[k]);
        strides[k] = -strides[k];
      }
      if (base.empty()) offset = 0;
      auto layout = Layout::from_parts(shape, strides, offset).value();
      return Tensor<T>::from_shared(base.storage(), base.storage_len(), layout).value();
    }
  }
  return filled<T>(shape, seed);
}

// The naive reference: every element of the batch read with get() from the sample it came from.
template <class T>
void check_stack(const std::vector<Tensor<T>>& samples, std::size_t axis, const Tensor<T>& out) {
  Shape expected = samples[0].shape();
  expected.insert(axis, samples.size());
  REQUIRE(out.shape() == expected);
  REQUIRE(out.is_contiguous());
  REQUIRE(out.offset() == 0);
  for (const auto& s : samples) REQUIRE_FALSE(out.shares_storage_with(s));
  std::size_t mismatches = 0;
  for_each_index(expected, [&](const Shape& index) {
    Shape inner = index;
    inner.erase(axis);
    const auto want = samples[index[axis]].get(inner);
    const auto got = out.get(index);
    if (!want || !got || !same_bits(*want, *got)) ++mismatches;
  });
  REQUIRE(mismatches == 0);
}

template <class T>
void check_concat(const std::vector<Tensor<T>>& parts, std::size_t axis, const Tensor<T>& out) {
  Shape expected = parts[0].shape();
  expected[axis] = 0;
  for (const auto& p : parts) expected[axis] += p.shape()[axis];
  REQUIRE(out.shape() == expected);
  REQUIRE(out.is_contiguous());
  REQUIRE(out.offset() == 0);
  for (const auto& p : parts) REQUIRE_FALSE(out.shares_storage_with(p));
  std::size_t mismatches = 0;
  for_each_index(expected, [&](const Shape& index) {
    Shape inner = index;
    std::size_t part = 0;
    while (inner[axis] >= parts[part].shape()[axis]) inner[axis] -= parts[part++].shape()[axis];
    const auto want = parts[part].get(inner);
    const auto got = out.get(index);
    if (!want || !got || !same_bits(*want, *got)) ++mismatches;
  });
  REQUIRE(mismatches == 0);
}

Shape random_shape(std::size_t rank, std::mt19937& rng, std::size_t max_extent) {
  Shape shape(rank, 0);
  for (auto& n : shape) n = 1 + rng() % max_extent;
  return shape;
}

}  // namespace

TEMPLATE_TEST_CASE("stack matches the reference on every axis of ranks 0-5", "[batch]",
                   std::uint8_t, strided::f16, float, double, bool) {
  using T = TestType;
  std::mt19937 rng(12345);
  for (std::size_t rank = 0; rank <= 5; ++rank) {
    for (std::size_t axis = 0; axis <= rank; ++axis) {
      for (int trial = 0; trial < 4; ++trial) {
        const bool mixed = trial % 2 == 1;
        const Shape shape = random_shape(rank, rng, rank >= 4 ? 3 : 5);
        const std::size_t n = 1 + rng() % 4;
        std::vector<Tensor<T>> samples;
        for (std::size_t i = 0; i < n; ++i) {
          const Kind kind = mixed ? all_kinds[rng() % all_kinds.size()] : Kind::contiguous;
          samples.push_back(make_view<T>(kind, shape, i + 1, rng));
        }
        CAPTURE(rank, axis, trial, n);
        auto out = strided::stack(samples, axis);
        REQUIRE(out.has_value());
        check_stack(samples, axis, *out);
        if (axis == 0) {
          auto leading = strided::stack_samples(samples);
          REQUIRE(leading.has_value());
          check_stack(samples, 0, *leading);
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE("concat matches the reference on every axis of ranks 1-5", "[batch]",
                   std::uint8_t, std::int16_t, float, std::int64_t) {
  using T = TestType;
  std::mt19937 rng(777);
  for (std::size_t rank = 1; rank <= 5; ++rank) {
    for (std::size_t axis = 0; axis < rank; ++axis) {
      for (int trial = 0; trial < 4; ++trial) {
        const bool mixed = trial % 2 == 1;
        const Shape shape = random_shape(rank, rng, rank >= 4 ? 3 : 5);
        const std::size_t n = 1 + rng() % 4;
        std::vector<Tensor<T>> parts;
        for (std::size_t i = 0; i < n; ++i) {
          Shape part_shape = shape;
          part_shape[axis] = rng() % 4;  // 0 .. 3: empty parts included
          const Kind kind = mixed ? all_kinds[rng() % all_kinds.size()] : Kind::contiguous;
          parts.push_back(make_view<T>(kind, part_shape, i + 1, rng));
        }
        CAPTURE(rank, axis, trial, n);
        auto out = strided::concat(parts, axis);
        REQUIRE(out.has_value());
        check_concat(parts, axis, *out);
        if (axis == 0) {
          auto leading = strided::concat_batches(parts);
          REQUIRE(leading.has_value());
          check_concat(parts, 0, *leading);
        }
      }
    }
  }
}

TEST_CASE("every view kind, alone, stacks and joins correctly", "[batch]") {
  std::mt19937 rng(99);
  for (Kind kind : all_kinds) {
    CAPTURE(static_cast<int>(kind));
    std::vector<Tensor<float>> samples;
    for (std::size_t i = 0; i < 3; ++i)
      samples.push_back(make_view<float>(kind, {4, 3, 5}, i, rng));
    for (std::size_t axis = 0; axis <= 3; ++axis)
      check_stack(samples, axis, *strided::stack(samples, axis));
    for (std::size_t axis = 0; axis < 3; ++axis)
      check_concat(samples, axis, *strided::concat(samples, axis));
  }
}

TEST_CASE("any contiguous range of samples is accepted", "[batch]") {
  const auto a = filled<float>({2, 2}, 1), b = filled<float>({2, 2}, 2);
  const std::vector<Tensor<float>> vec{a, b};
  const std::array<Tensor<float>, 2> arr{a, b};
  const std::span<const Tensor<float>> span(vec);
  check_stack(vec, 0, *strided::stack_samples(vec));
  check_stack(vec, 0, *strided::stack_samples(arr));
  check_stack(vec, 0, *strided::stack_samples(span));
  const Tensor<float> c_array[] = {a, b};
  check_stack(vec, 0, *strided::stack_samples(c_array));
  check_concat(vec, 0, *strided::concat_batches(arr));
  STATIC_REQUIRE(strided::SampleRange<std::vector<Tensor<float>>>);
  STATIC_REQUIRE(strided::SampleRange<std::array<Tensor<float>, 3>>);
  STATIC_REQUIRE(strided::SampleRange<std::span<Tensor<float>>>);
  STATIC_REQUIRE_FALSE(strided::SampleRange<std::list<Tensor<float>>>);  // not contiguous
  STATIC_REQUIRE_FALSE(strided::SampleRange<std::vector<int>>);
}

TEST_CASE("a single-sample batch is a fresh copy with a leading axis of 1", "[batch]") {
  std::mt19937 rng(5);
  const std::vector<Tensor<double>> one{make_view<double>(Kind::reversed, {3, 4}, 7, rng)};
  auto stacked = strided::stack_samples(one);
  REQUIRE(stacked->shape() == Shape{1, 3, 4});
  check_stack(one, 0, *stacked);
  auto joined = strided::concat_batches(one);
  REQUIRE(joined->shape() == Shape{3, 4});
  check_concat(one, 0, *joined);

  const std::vector<Tensor<double>> scalar{Tensor<double>::scalar(2.5)};
  auto from_scalar = strided::stack_samples(scalar);
  REQUIRE(from_scalar->shape() == Shape{1});
  REQUIRE(*from_scalar->get({0}) == 2.5);
}

TEST_CASE("scalars stack into a vector", "[batch]") {
  std::vector<Tensor<std::int32_t>> labels;
  for (std::int32_t i = 0; i < 5; ++i) labels.push_back(Tensor<std::int32_t>::scalar(10 * i));
  auto batch = strided::stack_samples(labels);
  REQUIRE(batch->shape() == Shape{5});
  REQUIRE(batch->to_vector() == std::vector<std::int32_t>{0, 10, 20, 30, 40});
}

TEST_CASE("zero-size samples give zero-size batches of the right shape", "[batch]") {
  std::mt19937 rng(3);
  const auto base = filled<float>({4, 3}, 1);
  // narrowed to nothing at the end of an axis: the offset points past the used elements
  const auto at_end = base.narrow(0, 4, 0).value();
  const std::vector<Tensor<float>> empties{Tensor<float>::zeros({0, 3}).value(), at_end, at_end};
  auto stacked = strided::stack_samples(empties);
  REQUIRE(stacked->shape() == Shape{3, 0, 3});
  REQUIRE(stacked->empty());
  REQUIRE(strided::stack(empties, 2)->shape() == Shape{0, 3, 3});
  REQUIRE(strided::concat_batches(empties)->shape() == Shape{0, 3});
  auto wide = strided::concat(empties, 1);
  REQUIRE(wide->shape() == Shape{0, 9});

  const std::vector<Tensor<float>> mixed{at_end, base, at_end, base.narrow(0, 1, 2).value()};
  auto joined = strided::concat_batches(mixed);
  REQUIRE(joined.has_value());
  check_concat(mixed, 0, *joined);
}

TEST_CASE("pairs stack member-wise into a pair of batches", "[batch]") {
  std::mt19937 rng(11);
  using Sample = std::pair<Tensor<float>, Tensor<std::int64_t>>;
  std::vector<Sample> samples;
  std::vector<Tensor<float>> images;
  std::vector<Tensor<std::int64_t>> labels;
  for (std::size_t i = 0; i < 4; ++i) {
    images.push_back(make_view<float>(all_kinds[i % all_kinds.size()], {3, 2, 2}, i, rng));
    labels.push_back(Tensor<std::int64_t>::scalar(static_cast<std::int64_t>(i) - 2));
    samples.emplace_back(images.back(), labels.back());
  }
  auto batch = strided::stack_samples(samples);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(*batch)>, Sample>);
  REQUIRE(batch.has_value());
  check_stack(images, 0, batch->first);
  check_stack(labels, 0, batch->second);
  REQUIRE(batch->second.to_vector() == std::vector<std::int64_t>{-2, -1, 0, 1});

  for (std::size_t axis = 0; axis <= 0; ++axis) {
    auto along = strided::stack(samples, axis);
    check_stack(images, axis, along->first);
  }

  // concat_batches of pair batches joins each member
  const std::vector<Sample> parts{*batch, *batch};
  auto joined = strided::concat_batches(parts);
  check_concat(std::vector<Tensor<float>>{batch->first, batch->first}, 0, joined->first);
  REQUIRE(joined->second.to_vector() == std::vector<std::int64_t>{-2, -1, 0, 1, -2, -1, 0, 1});
}

TEST_CASE("nested tuples of mixed element types stack member-wise", "[batch]") {
  std::mt19937 rng(21);
  using Sample = std::tuple<Tensor<std::uint8_t>, std::pair<Tensor<double>, Tensor<bool>>,
                            Tensor<strided::f16>>;
  std::vector<Sample> samples;
  std::vector<Tensor<std::uint8_t>> a;
  std::vector<Tensor<double>> b;
  std::vector<Tensor<bool>> c;
  std::vector<Tensor<strided::f16>> d;
  for (std::size_t i = 0; i < 3; ++i) {
    a.push_back(make_view<std::uint8_t>(Kind::permuted, {2, 3, 4}, i, rng));
    b.push_back(make_view<double>(Kind::narrowed, {5}, i, rng));
    c.push_back(make_view<bool>(Kind::broadcast, {2, 2}, i, rng));
    d.push_back(make_view<strided::f16>(Kind::reversed, {3, 1}, i, rng));
    samples.emplace_back(a.back(), std::pair(b.back(), c.back()), d.back());
  }
  auto batch = strided::stack_samples(samples);
  STATIC_REQUIRE(std::is_same_v<strided::batch_t<Sample>, Sample>);
  REQUIRE(batch.has_value());
  check_stack(a, 0, std::get<0>(*batch));
  check_stack(b, 0, std::get<1>(*batch).first);
  check_stack(c, 0, std::get<1>(*batch).second);
  check_stack(d, 0, std::get<2>(*batch));

  auto along_last = strided::stack(samples, 1);  // every member has rank >= 1
  REQUIRE(along_last.has_value());
  check_stack(a, 1, std::get<0>(*along_last));
  check_stack(b, 1, std::get<1>(*along_last).first);

  auto joined = strided::concat(std::vector<Sample>{samples[0], samples[2]}, 0);
  REQUIRE(joined.has_value());
  check_concat(std::vector{d[0], d[2]}, 0, std::get<2>(*joined));
}

TEST_CASE("tuples of references are samples; their batches own their tensors", "[batch]") {
  const auto x0 = filled<float>({2}, 1), x1 = filled<float>({2}, 2);
  const auto y0 = Tensor<std::int32_t>::scalar(0), y1 = Tensor<std::int32_t>::scalar(1);
  using Ref = std::tuple<const Tensor<float>&, const Tensor<std::int32_t>&>;
  const std::vector<Ref> samples{Ref(x0, y0), Ref(x1, y1)};
  auto batch = strided::stack_samples(samples);
  STATIC_REQUIRE(
      std::is_same_v<strided::batch_t<Ref>, std::tuple<Tensor<float>, Tensor<std::int32_t>>>);
  check_stack(std::vector{x0, x1}, 0, std::get<0>(*batch));
  REQUIRE(std::get<1>(*batch).to_vector() == std::vector<std::int32_t>{0, 1});
}

namespace user {

struct Example {
  Tensor<float> image;
  Tensor<std::int64_t> label;
};

struct ExampleBatch {
  Tensor<float> images;
  Tensor<std::int64_t> labels;
};

// members() returning copies: the references would dangle, so this is not a sample.
struct ByValue {
  Tensor<float> image;
};

// make_batch that cannot take the batched members: not a sample either.
struct WrongBatch {
  Tensor<float> image;
};

}  // namespace user

template <>
struct strided::sample_traits<user::ByValue> {
  static auto members(const user::ByValue& s) { return std::make_tuple(s.image); }
  static user::ByValue make_batch(Tensor<float> images) { return {std::move(images)}; }
};

template <>
struct strided::sample_traits<user::WrongBatch> {
  static auto members(const user::WrongBatch& s) { return std::tie(s.image); }
  static user::WrongBatch make_batch(Tensor<double> images);
};

template <>
struct strided::sample_traits<user::Example> {
  static auto members(const user::Example& e) { return std::tie(e.image, e.label); }
  static user::ExampleBatch make_batch(Tensor<float> images, Tensor<std::int64_t> labels) {
    return {std::move(images), std::move(labels)};
  }
};

template <>
struct strided::sample_traits<user::ExampleBatch> {
  static auto members(const user::ExampleBatch& b) { return std::tie(b.images, b.labels); }
  static user::ExampleBatch make_batch(Tensor<float> images, Tensor<std::int64_t> labels) {
    return {std::move(images), std::move(labels)};
  }
};

TEST_CASE("user sample types plug in through sample_traits", "[batch]") {
  STATIC_REQUIRE(strided::Sample<user::Example>);
  STATIC_REQUIRE(std::is_same_v<strided::batch_t<user::Example>, user::ExampleBatch>);
  std::vector<user::Example> samples;
  for (std::int64_t i = 0; i < 3; ++i)
    samples.push_back(
        {filled<float>({2, 2}, static_cast<std::size_t>(i)), Tensor<std::int64_t>::scalar(i)});
  auto batch = strided::stack_samples(samples);
  REQUIRE(batch.has_value());
  REQUIRE(batch->images.shape() == Shape{3, 2, 2});
  REQUIRE(batch->labels.to_vector() == std::vector<std::int64_t>{0, 1, 2});
  REQUIRE(&strided::inference_input(*batch) == &batch->images);

  auto joined = strided::concat_batches(std::vector<user::ExampleBatch>{*batch, *batch});
  REQUIRE(joined->images.shape() == Shape{6, 2, 2});
  REQUIRE(joined->labels.to_vector() == std::vector<std::int64_t>{0, 1, 2, 0, 1, 2});

  samples[2].label = Tensor<std::int64_t>::zeros({1}).value();
  auto bad = strided::stack_samples(samples);
  REQUIRE(bad.error().kind() == DataErrorKind::sample_shape_mismatch);
  REQUIRE(bad.error().sample_shape_mismatch()->index == 2);
}

TEST_CASE("Sample accepts tensors, pairs, tuples and customised types only", "[batch]") {
  using strided::Sample;
  STATIC_REQUIRE(Sample<Tensor<float>>);
  STATIC_REQUIRE(Sample<std::pair<Tensor<float>, Tensor<bool>>>);
  STATIC_REQUIRE(Sample<std::tuple<Tensor<float>>>);
  STATIC_REQUIRE(Sample<std::tuple<std::pair<Tensor<float>, Tensor<bool>>, Tensor<double>>>);
  STATIC_REQUIRE_FALSE(Sample<int>);
  STATIC_REQUIRE_FALSE(Sample<std::vector<float>>);
  STATIC_REQUIRE_FALSE(Sample<std::tuple<>>);
  STATIC_REQUIRE_FALSE(Sample<std::pair<Tensor<float>, int>>);
  STATIC_REQUIRE_FALSE(Sample<std::tuple<Tensor<float>, std::tuple<float>>>);
  STATIC_REQUIRE(Sample<user::Example>);
  STATIC_REQUIRE_FALSE(Sample<user::ByValue>);
  STATIC_REQUIRE_FALSE(Sample<user::WrongBatch>);
}

TEST_CASE("inference_input is the tensor or the first member, recursively", "[batch]") {
  const auto x = filled<float>({2, 3}, 1);
  const auto y = Tensor<std::int64_t>::scalar(4);
  REQUIRE(&strided::inference_input(x) == &x);

  const std::pair<Tensor<float>, Tensor<std::int64_t>> pair(x, y);
  REQUIRE(&strided::inference_input(pair) == &pair.first);

  using Nested = std::tuple<std::pair<Tensor<double>, Tensor<float>>, Tensor<std::int64_t>>;
  const Nested nested(std::pair(Tensor<double>::scalar(1.0), x), y);
  STATIC_REQUIRE(std::is_same_v<strided::input_t<Nested>, Tensor<double>>);
  STATIC_REQUIRE(std::is_same_v<strided::SampleTypes<const Nested>::input, Tensor<double>>);
  REQUIRE(&strided::inference_input(nested) == &std::get<0>(nested).first);

  // a temporary batch: returned by value, sharing the buffer
  auto owned = strided::inference_input(std::pair(x, y));
  STATIC_REQUIRE(
      std::is_same_v<decltype(strided::inference_input(std::pair(x, y))), Tensor<float>>);
  REQUIRE(owned.shares_storage_with(x));
}

TEST_CASE("empty input is empty_batch under the calling function's name", "[batch][errors]") {
  const std::vector<Tensor<float>> none;
  const std::array<std::pair<Tensor<float>, Tensor<float>>, 0> no_pairs{};
  struct Case {
    strided::Result<Tensor<float>, DataError> result;
    const char* message;
  };
  const Case cases[] = {
      {strided::stack_samples(none), "stack_samples: no samples to batch"},
      {strided::stack(none, 0), "stack: no samples to batch"},
      {strided::concat_batches(none), "concat_batches: no samples to batch"},
      {strided::concat(none, 3), "concat: no samples to batch"},
  };
  for (const auto& c : cases) {
    REQUIRE_FALSE(c.result.has_value());
    REQUIRE(c.result.error().kind() == DataErrorKind::empty_batch);
    REQUIRE(c.result.error().code() == DataErrorKind::empty_batch);
    REQUIRE(c.result.error().message() == c.message);
  }
  REQUIRE(strided::stack_samples(no_pairs).error().kind() == DataErrorKind::empty_batch);
}

TEST_CASE("the first sample whose shape differs is reported with both shapes", "[batch][errors]") {
  const std::vector<Tensor<float>> samples{filled<float>({2, 3}, 0), filled<float>({2, 3}, 1),
                                           filled<float>({3, 2}, 2), filled<float>({1}, 3)};
  auto r = strided::stack_samples(samples);
  REQUIRE(r.error().kind() == DataErrorKind::sample_shape_mismatch);
  REQUIRE(r.error().sample_shape_mismatch()->index == 2);
  REQUIRE(r.error().sample_shape_mismatch()->expected == Shape{2, 3});
  REQUIRE(r.error().sample_shape_mismatch()->actual == Shape{3, 2});
  // The same fields one by one (the design's accessors), nullopt for a kind without them.
  REQUIRE(r.error().index() == std::size_t{2});
  REQUIRE(r.error().expected() == Shape{2, 3});
  REQUIRE(r.error().actual() == Shape{3, 2});
  REQUIRE(r.error().shape_error() == nullptr);
  REQUIRE(r.error().op() == std::string("stack_samples"));
  REQUIRE(r.error().message() == "stack_samples: sample 2 has shape [3, 2], expected [2, 3]");

  // a transposed view has the transposed shape: same data, different sample shape
  const std::vector<Tensor<float>> transposed{samples[0], samples[1].transpose(0, 1).value()};
  REQUIRE(strided::stack(transposed, 1).error().message() ==
          "stack: sample 1 has shape [3, 2], expected [2, 3]");

  // rank differs
  const std::vector<Tensor<float>> ranks{samples[0], filled<float>({2, 3, 1}, 1)};
  REQUIRE(strided::stack_samples(ranks).error().message() ==
          "stack_samples: sample 1 has shape [2, 3, 1], expected [2, 3]");
}

TEST_CASE("concat reports the part shape it expected, with the part's own joined extent",
          "[batch][errors]") {
  const std::vector<Tensor<float>> rows{filled<float>({2, 3}, 0), filled<float>({4, 3}, 1),
                                        filled<float>({4, 5}, 2)};
  auto r = strided::concat_batches(rows);
  REQUIRE(r.error().kind() == DataErrorKind::sample_shape_mismatch);
  REQUIRE(r.error().sample_shape_mismatch()->index == 2);
  REQUIRE(r.error().sample_shape_mismatch()->expected == Shape{4, 3});
  REQUIRE(r.error().sample_shape_mismatch()->actual == Shape{4, 5});
  REQUIRE(r.error().message() == "concat_batches: sample 2 has shape [4, 5], expected [4, 3]");

  const std::vector<Tensor<float>> cols{filled<float>({2, 3}, 0), filled<float>({2, 5}, 1),
                                        filled<float>({3, 1}, 2)};
  REQUIRE(strided::concat(cols, 1).error().message() ==
          "concat: sample 2 has shape [3, 1], expected [2, 1]");

  const std::vector<Tensor<float>> ranks{filled<float>({2, 3}, 0), filled<float>({3}, 1)};
  REQUIRE(strided::concat_batches(ranks).error().message() ==
          "concat_batches: sample 1 has shape [3], expected [2, 3]");
}

TEST_CASE("a structured sample reports the lowest sample index over all members",
          "[batch][errors]") {
  using Sample = std::pair<Tensor<float>, Tensor<std::int64_t>>;
  const auto img = filled<float>({2, 2}, 0);
  const auto lbl = Tensor<std::int64_t>::scalar(1);
  const std::vector<Sample> samples{
      {img, lbl}, {img, Tensor<std::int64_t>::zeros({2}).value()}, {filled<float>({3}, 1), lbl}};
  auto r = strided::stack_samples(samples);
  REQUIRE(r.error().kind() == DataErrorKind::sample_shape_mismatch);
  REQUIRE(r.error().sample_shape_mismatch()->index == 1);
  REQUIRE(r.error().message() == "stack_samples: sample 1 has shape [2], expected []");
}

TEST_CASE("an axis out of range is a shape error naming the axis and shape", "[batch][errors]") {
  const std::vector<Tensor<float>> samples(4, filled<float>({2, 3}, 0));
  auto s = strided::stack(samples, 3);
  REQUIRE(s.error().kind() == DataErrorKind::shape);
  REQUIRE(s.error().code() == DataErrorKind::shape);
  REQUIRE(s.error().shape_error()->kind() == ShapeErrorKind::axis_out_of_range);
  const auto* axis = s.error().shape_error()->get_if<strided::shape_errors::AxisOutOfRange>();
  REQUIRE(axis != nullptr);
  REQUIRE(axis->axis == 3);
  REQUIRE(axis->shape == Shape{4, 2, 3});
  REQUIRE(s.error().sample_shape_mismatch() == nullptr);
  REQUIRE_FALSE(s.error().index().has_value());
  REQUIRE_FALSE(s.error().expected().has_value());
  REQUIRE(s.error().message() == "stack: axis 3 is out of range for rank 3 (shape [4, 2, 3])");
  REQUIRE(strided::stack(samples, 2).has_value());  // the last axis is a valid place

  auto c = strided::concat(samples, 2);
  REQUIRE(c.error().shape_error()->kind() == ShapeErrorKind::axis_out_of_range);
  REQUIRE(c.error().message() == "concat: axis 2 is out of range for rank 2 (shape [2, 3])");

  // rank-0 tensors have no axis to join (NumPy refuses them too)
  const std::vector<Tensor<float>> scalars{Tensor<float>::scalar(1), Tensor<float>::scalar(2)};
  auto z = strided::concat_batches(scalars);
  REQUIRE(z.error().kind() == DataErrorKind::shape);
  REQUIRE(z.error().shape_error()->kind() == ShapeErrorKind::axis_out_of_range);
  REQUIRE(z.error().message() == "concat_batches: axis 0 is out of range for rank 0 (shape [])");

  // the axis applies to every member: a scalar label cannot be stacked along axis 1
  using Sample = std::pair<Tensor<float>, Tensor<std::int64_t>>;
  const std::vector<Sample> pairs(2,
                                  Sample(filled<float>({2}, 0), Tensor<std::int64_t>::scalar(0)));
  REQUIRE(strided::stack(pairs, 1).error().message() ==
          "stack: axis 1 is out of range for rank 1 (shape [2])");
}

TEST_CASE("element counts that overflow are size_overflow", "[batch][errors]") {
  constexpr std::size_t big = std::size_t{1} << 62;
  const auto huge = Tensor<float>::scalar(1).broadcast_to({big}).value();  // stride 0: no memory
  const std::vector<Tensor<float>> samples(8, huge);
  auto s = strided::stack_samples(samples);
  REQUIRE(s.error().kind() == DataErrorKind::shape);
  REQUIRE(s.error().shape_error()->kind() == ShapeErrorKind::size_overflow);
  REQUIRE(s.error().shape_error()->get_if<strided::shape_errors::SizeOverflow>()->shape ==
          Shape{8, big});
  REQUIRE(s.error().message() ==
          "stack_samples: the element count, a stride or the offset of "
          "shape [8, 4611686018427387904] overflows");

  // the joined extent itself overflows std::size_t
  const auto half = Tensor<float>::scalar(1).broadcast_to({std::size_t{1} << 63}).value();
  auto c = strided::concat_batches(std::vector{half, half});
  REQUIRE(c.error().shape_error()->kind() == ShapeErrorKind::size_overflow);
  REQUIRE(c.error().message() ==
          "concat_batches: the element count, a stride or the offset of "
          "shape [9223372036854775808] overflows");

  // the sum fits std::size_t but not the index range
  auto d = strided::concat_batches(std::vector{huge, huge});
  REQUIRE(d.error().shape_error()->kind() == ShapeErrorKind::size_overflow);
  REQUIRE(d.error().shape_error()->get_if<strided::shape_errors::SizeOverflow>()->shape ==
          Shape{std::size_t{1} << 63});
}

TEST_CASE("a buffer that cannot be allocated is allocation_failed", "[batch][errors]") {
  // 2^62 floats: the count is representable but the byte count is not, so the allocator refuses
  // it without asking the system.
  const auto quarter = Tensor<float>::scalar(1).broadcast_to({std::size_t{1} << 60}).value();
  auto r = strided::stack_samples(std::vector<Tensor<float>>(4, quarter));
  REQUIRE(r.error().kind() == DataErrorKind::allocation_failed);
  REQUIRE(r.error().code() == DataErrorKind::allocation_failed);
  REQUIRE(r.error().shape_error()->get_if<strided::shape_errors::AllocationFailed>()->elements ==
          std::size_t{1} << 62);
  REQUIRE(r.error().message() ==
          "stack_samples: could not allocate a buffer of 4611686018427387904 elements");
}

TEST_CASE("a batch rank above max_rank is rank_too_large", "[batch][errors]") {
  const auto deep = Tensor<float>::from_vector({1.0f}, Shape(strided::max_rank, 1)).value();
  auto r = strided::stack_samples(std::vector{deep, deep});
  REQUIRE(r.error().kind() == DataErrorKind::shape);
  REQUIRE(r.error().shape_error()->kind() == ShapeErrorKind::rank_too_large);
  REQUIRE(r.error().message() == "stack_samples: rank 65 exceeds the maximum rank 64");
  REQUIRE(strided::concat_batches(std::vector{deep, deep})->shape()[0] == 2);
}

// ----- stack_into / concat_into: batches written into the caller's (strided) memory -----------

namespace {

// A destination of `shape` in a bigger buffer (a border of one element, axes reversed in memory,
// the last one flipped), and the tensor that reads it back through the same layout.
template <class T>
struct Destination {
  std::unique_ptr<T[]> memory;  // not std::vector<bool>
  std::size_t len = 0;
  strided::TensorSpan<T> span;
  Tensor<T> read_back() const {
    std::shared_ptr<const T> data(memory.get(), [](const T*) {});
    return Tensor<T>::from_shared(data, len, span.layout()).value().template cast<T>().value();
  }
};

template <class T>
Destination<T> destination(const Shape& shape) {
  const std::size_t rank = shape.size();
  Shape big(rank, 0), reversed(rank, 0);
  std::size_t len = 1;
  for (std::size_t k = 0; k < rank; ++k) len *= (big[rank - 1 - k] = shape[k] + 2);
  for (std::size_t k = 0; k < rank; ++k) reversed[k] = rank - 1 - k;
  auto memory = std::make_unique<T[]>(len);
  std::fill_n(memory.get(), len, value_for<T>(77));
  auto span = strided::TensorSpan<T>::dense(std::span<T>(memory.get(), len), big).value();
  span = span.permute(reversed).value();
  for (std::size_t k = 0; k < rank; ++k) span = span.narrow(k, 1, shape[k]).value();
  if (rank > 0) span = span.flip(rank - 1).value();
  return {std::move(memory), len, span};
}

}  // namespace

TEMPLATE_TEST_CASE("stack_into and concat_into equal stack and concat in a strided destination",
                   "[batch][into]", std::uint8_t, strided::f16, double, bool) {
  using T = TestType;
  std::mt19937 rng(461);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t rank = 1 + rng() % 3, count = 1 + rng() % 4;
    const Shape shape = random_shape(rank, rng, trial % 10 == 0 ? 90 : 5);  // some parallel
    const strided_test::ScopedThreadCount threads(1 + static_cast<std::size_t>(trial % 3));
    std::vector<Tensor<T>> samples;
    for (std::size_t i = 0; i < count; ++i)
      samples.push_back(make_view<T>(all_kinds[rng() % all_kinds.size()], shape, i, rng));
    const std::size_t axis = rng() % (rank + 1);
    Shape stacked = shape;
    stacked.insert(axis, count);
    auto dst = destination<T>(stacked);
    REQUIRE(strided::stack_into(samples, axis, dst.span).has_value());
    check_stack(samples, axis, dst.read_back());
    if (axis == 0) {
      auto again = destination<T>(stacked);
      REQUIRE(strided::stack_samples_into(samples, again.span).has_value());
      check_stack(samples, 0, again.read_back());
    }
    // concat: parts of different extents along the joined axis.
    const std::size_t join = rng() % rank;
    std::vector<Tensor<T>> parts;
    Shape joined = shape;
    joined[join] = 0;
    for (std::size_t i = 0; i < count; ++i) {
      Shape part = shape;
      part[join] = rng() % 4;
      joined[join] += part[join];
      parts.push_back(make_view<T>(all_kinds[rng() % all_kinds.size()], part, i, rng));
    }
    auto cdst = destination<T>(joined);
    REQUIRE(strided::concat_into(parts, join, cdst.span).has_value());
    check_concat(parts, join, cdst.read_back());
    if (join == 0) {
      auto again = destination<T>(joined);
      REQUIRE(strided::concat_batches_into(parts, again.span).has_value());
      check_concat(parts, 0, again.read_back());
    }
  }
}

TEST_CASE("stack_into and concat_into errors come before anything is written", "[batch][errors]") {
  const std::vector<Tensor<float>> samples{filled<float>({2, 3}, 0), filled<float>({2, 3}, 1)};
  std::vector<float> memory(12, -1.0f);
  const auto dst = strided::TensorSpan<float>::dense(memory, {2, 2, 3}).value();
  const auto check = [&](const strided::Result<void, DataError>& r, const std::string& message) {
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message() == message);
    CHECK(std::all_of(memory.begin(), memory.end(), [](float v) { return v == -1.0f; }));
  };
  check(strided::stack_samples_into(std::vector<Tensor<float>>{}, dst),
        "stack_samples_into: no samples to batch");
  check(strided::stack_into(samples, 2, dst),
        "stack_into: shape [2, 3, 2] cannot be broadcast with [2, 2, 3]");
  check(strided::stack_into(samples, 4, dst),
        "stack_into: axis 4 is out of range for rank 3 (shape [2, 2, 3])");
  check(strided::concat_into(std::vector<Tensor<float>>{samples[0], filled<float>({3, 2}, 2)}, 0,
                             dst.reshape({4, 3}).value()),
        "concat_into: sample 1 has shape [3, 2], expected [3, 3]");
  check(strided::concat_batches_into(samples, dst),
        "concat_batches_into: shape [4, 3] cannot be broadcast with [2, 2, 3]");
  // A sample reading the destination's own memory (here its second half).
  std::shared_ptr<const float> shared(memory.data(), [](const float*) {});
  const auto inside =
      Tensor<float>::from_shared(shared, 12, Layout::contiguous({2, 3}, 6).value()).value();
  check(strided::stack_samples_into(std::vector<Tensor<float>>{samples[0], inside}, dst),
        "stack_samples_into: the source and the destination overlap in memory");
  REQUIRE(strided::stack_samples_into(samples, dst).has_value());
  CHECK(memory[7] == samples[1].get({0, 1}).value());
}
