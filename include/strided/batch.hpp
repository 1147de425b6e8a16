// Batches: stack samples into a batch along a new axis, join batches along an existing one, and
// take the model input out of a batch (the reference document's StackSamples, ConcatBatch and
// PredictBatchInput). docs/batches.md has the rules and a data-loader loop.
//
// A sample is a Tensor<T>, a std::pair / std::tuple of samples (nested to any depth), or a user
// type with a strided::sample_traits specialisation. A batch has the same structure, each tensor
// batched member-wise:
//     std::vector<std::pair<Tensor<float>, Tensor<std::int64_t>>> samples = ...;
//     auto batch = strided::stack_samples(samples);  // Result<pair<Tensor<float>, Tensor<i64>>>
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <optional>
#include <ranges>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include "strided/detail/allocation_guard.hpp"
#include "strided/detail/batch.hpp"
#include "strided/element.hpp"
#include "strided/error.hpp"
#include "strided/result.hpp"
#include "strided/tensor.hpp"
#include "strided/tensor_span.hpp"

namespace strided {

/// Customisation point: how a sample (or batch) type splits into members and how the batched
/// members form its batch. The primary template is empty (not a sample). A specialisation gives
///   static auto members(const S& s);        // std::tie / std::forward_as_tuple of s's members:
///                                           // a std::tuple of lvalue references to samples
///   static Batch make_batch(B0 b0, B1 b1...);  // the batch from the batched members, in order
/// Stacking and joining run member-wise; inference_input() takes the first member.
template <class S>
struct sample_traits {};

/// A pair of samples (input, label) stacks member-wise into a pair of batches.
template <class A, class B>
struct sample_traits<std::pair<A, B>> {
  /// std::forward_as_tuple(p.first, p.second).
  static constexpr auto members(const std::pair<A, B>& p) noexcept {
    return std::forward_as_tuple(p.first, p.second);
  }
  /// The pair of batches.
  template <class BA, class BB>
  static std::pair<BA, BB> make_batch(BA a, BB b) {
    return {std::move(a), std::move(b)};
  }
};

/// A tuple of samples stacks member-wise into a tuple of batches.
template <class... Ts>
struct sample_traits<std::tuple<Ts...>> {
  /// A tuple of references to t's members.
  static constexpr auto members(const std::tuple<Ts...>& t) noexcept {
    return std::apply([](const auto&... m) { return std::forward_as_tuple(m...); }, t);
  }
  /// The tuple of batches.
  template <class... Bs>
  static std::tuple<Bs...> make_batch(Bs... bs) {
    return {std::move(bs)...};
  }
};

namespace detail {

template <class S>
inline constexpr bool is_tensor_v = false;
template <Element T>
inline constexpr bool is_tensor_v<Tensor<T>> = true;

template <class S>
using sample_members_t = decltype(sample_traits<S>::members(std::declval<const S&>()));

template <class S>
struct sample_info;

// Members: a non-empty std::tuple of lvalue references (they must outlive the call) to samples.
template <class Tuple>
struct members_are_samples : std::false_type {};
template <class... M>
struct members_are_samples<std::tuple<M...>>
    : std::bool_constant<(sizeof...(M) > 0) && ((std::is_lvalue_reference_v<M> &&
                                                 sample_info<std::remove_cvref_t<M>>::value) &&
                                                ...)> {};

template <class S, class Tuple>
struct can_make_batch : std::false_type {};
template <class S, class... M>
requires requires {
  sample_traits<S>::make_batch(
      std::declval<typename sample_info<std::remove_cvref_t<M>>::batch>()...);
}
struct can_make_batch<S, std::tuple<M...>> : std::true_type {};

template <class S>
concept has_sample_members = requires(const S& s) {
  sample_traits<S>::members(s);
};

// Lazily: members_are_samples is only asked once members() exists.
template <class S>
concept structured_sample = !is_tensor_v<S> && has_sample_members<S> &&
                            (members_are_samples<sample_members_t<S>>::value &&
                             can_make_batch<S, sample_members_t<S>>::value);

// What a sample type is: ::value, and for samples ::batch (its batch type) and ::input (the
// tensor type inference_input() returns).
template <class S>
struct sample_info : std::false_type {};

template <Element T>
struct sample_info<Tensor<T>> : std::true_type {
  using batch = Tensor<T>;
  using input = Tensor<T>;
};

template <class S>
requires structured_sample<S>
struct sample_info<S> : std::true_type {
  using members = sample_members_t<S>;
  template <std::size_t I>
  using member = std::remove_cvref_t<std::tuple_element_t<I, members>>;

  template <std::size_t... I>
  static auto batch_of(std::index_sequence<I...>)  // declared only: for decltype
      -> decltype(sample_traits<S>::make_batch(
          std::declval<typename sample_info<member<I>>::batch>()...));

  using batch = decltype(batch_of(std::make_index_sequence<std::tuple_size_v<members>>{}));
  using input = typename sample_info<member<0>>::input;
};

}  // namespace detail

/// A type stack_samples / concat_batches accept as one element: Tensor<T>, a std::pair or
/// std::tuple of Samples, or a type with a sample_traits specialisation. A failed call names the
/// offending type in this concept's diagnostic.
template <class S>
concept Sample = detail::sample_info<std::remove_cv_t<S>>::value;

/// A contiguous, sized range (std::vector, std::array, std::span, ...) of Samples.
template <class R>
concept SampleRange = std::ranges::contiguous_range<const R> && std::ranges::sized_range<const R> &&
    Sample<std::ranges::range_value_t<const R>>;

/// The types a Sample S stands for in batching; batch_t and input_t name them.
template <Sample S>
class SampleTypes {
  using Info = detail::sample_info<std::remove_cv_t<S>>;

 public:
  /// What stack_samples / concat_batches return for samples of type S: Tensor<T> for a
  /// Tensor<T>; for a pair, tuple or sample_traits type, its make_batch of the members' batches.
  using batch = typename Info::batch;
  /// When S is a batch, the tensor type inference_input() returns: its first member's, down to a
  /// Tensor.
  using input = typename Info::input;
};

/// The batch a sample type stacks into (and the type concat_batches returns for it).
template <Sample S>
using batch_t = typename SampleTypes<S>::batch;

/// The tensor type inference_input() returns for a batch type.
template <Sample B>
using input_t = typename SampleTypes<B>::input;

/// The batch type stacking the samples of range R gives.
template <SampleRange R>
using range_batch_t = batch_t<std::ranges::range_value_t<const R>>;

namespace detail {

// Calls f(leaf) for each tensor in s, depth first, in member order; stops when f returns false.
template <class S, class F>
bool visit_leaves(const S& s, F& f) {
  if constexpr (is_tensor_v<S>) {
    return f(s);
  } else {
    return std::apply([&](const auto&... m) { return (visit_leaves(m, f) && ...); },
                      sample_traits<S>::members(s));
  }
}

// Calls f(leaf_of_a, same_leaf_of_b) for each tensor position; stops when f returns false.
template <class S, class F>
bool visit_leaf_pairs(const S& a, const S& b, F& f) {
  if constexpr (is_tensor_v<S>) {
    return f(a, b);
  } else {
    const auto ma = sample_traits<S>::members(a);
    const auto mb = sample_traits<S>::members(b);
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return (visit_leaf_pairs(std::get<I>(ma), std::get<I>(mb), f) && ...);
    }
    (std::make_index_sequence<std::tuple_size_v<std::remove_const_t<decltype(ma)>>>{});
  }
}

// Builds the batch of structure S from get(0) ... get(count - 1) (each a const S&), member by
// member; the first member that fails stops the build.
template <class S, class Get>
Result<batch_t<S>, DataError> build_batch(const BatchOp& op, std::size_t count, const Get& get) {
  if constexpr (is_tensor_v<S>) {
    return build_batch_leaf<typename S::value_type>(op, count, get);
  } else {
    using Info = sample_info<S>;
    return [&]<std::size_t... I>(std::index_sequence<I...>)->Result<batch_t<S>, DataError> {
      std::tuple<std::optional<batch_t<typename Info::template member<I>>>...> built;
      std::optional<DataError> failed;
      (
          [&] {
            using M = typename Info::template member<I>;
            if (failed) return;
            auto member_of = [&](std::size_t i) -> const M& {
              return std::get<I>(sample_traits<S>::members(get(i)));
            };
            auto made = build_batch<M>(op, count, member_of);
            if (made)
              std::get<I>(built).emplace(std::move(*made));
            else
              failed.emplace(std::move(made).error());
          }(),
          ...);
      if (failed) return std::move(*failed);
      return sample_traits<S>::make_batch(std::move(*std::get<I>(built))...);
    }
    (std::make_index_sequence<std::tuple_size_v<typename Info::members>>{});
  }
}

// The checks of every batching call, in the documented order: empty, axis, the first sample
// whose shape differs.
template <class S>
Result<void, DataError> check_samples(const BatchOp& op, std::span<const S> samples) {
  if (samples.empty()) return DataError::empty_batch(op.name);
  const S& first = samples[0];
  std::optional<DataError> failed;
  auto check_axis = [&](const auto& leaf) {
    auto checked = check_batch_axis(op, samples.size(), leaf.shape());
    if (!checked) failed.emplace(checked.error());
    return checked.has_value();
  };
  visit_leaves(first, check_axis);
  if (failed) return std::move(*failed);
  for (std::size_t i = 1; i < samples.size() && !failed; ++i) {
    auto check_sample = [&](const auto& expected, const auto& actual) {
      auto checked = check_batch_sample(op, i, expected.shape(), actual.shape());
      if (!checked) failed.emplace(checked.error());
      return checked.has_value();
    };
    visit_leaf_pairs(first, samples[i], check_sample);
  }
  if (failed) return std::move(*failed);
  return {};
}

// Every batching call: check_samples, then builds each member (overflow, allocation).
template <class S>
Result<batch_t<S>, DataError> run_batch_checked(const BatchOp& op, std::span<const S> samples) {
  if (auto checked = check_samples(op, samples); !checked) return std::move(checked).error();
  return build_batch<S>(op, samples.size(), [&](std::size_t i) -> const S& { return samples[i]; });
}

// The *_into forms: check_samples, dst's shape against the batch's, overlap; then each sample
// copied into its slice of dst (select for stack, narrow for concat) by copy_to.
template <Element T>
Result<void, DataError> fill_batch_into(const BatchOp& op, std::span<const Tensor<T>> samples,
                                        const TensorSpan<T>& dst) {
  if (auto checked = check_samples(op, samples); !checked) return std::move(checked).error();
  auto get = [&](std::size_t i) -> const Tensor<T>& { return samples[i]; };
  auto shape = batch_shape(op, batch_parts<T>(samples.size(), get));
  if (!shape) return std::move(shape).error();
  if (*shape != dst.shape())
    return DataError::from_shape(ShapeError::broadcast_incompatible(op.name, *shape, dst.shape()));
  const auto out = byte_extent(dst.data(), dst.layout(), sizeof(T));
  for (const Tensor<T>& sample : samples)
    if (extents_overlap(byte_extent(sample.storage().get(), sample.layout(), sizeof(T)), out))
      return DataError::from_shape(ShapeError::memory_overlap(op.name));
  std::size_t at = 0;  // index along the batched axis where the next sample starts
  for (const Tensor<T>& sample : samples) {
    const bool stacked = op.mode == BatchMode::stack;
    const std::size_t n = stacked ? 1 : sample.shape()[op.axis];
    auto slice = stacked ? dst.select(op.axis, at) : dst.narrow(op.axis, at, n);
    if (!slice) return DataError::from_shape(std::move(slice).error().in(op.name));
    if (auto copied = sample.copy_to(*slice); !copied)
      return DataError::from_shape(std::move(copied).error().in(op.name));
    at += n;
  }
  return {};
}

template <Element T>
Result<void, DataError> run_batch_into(const BatchOp& op, std::span<const Tensor<T>> samples,
                                       const TensorSpan<T>& dst) {
  return guard_allocations(
      [&] { return fill_batch_into(op, samples, dst); },
      [&] { return DataError::from_shape(ShapeError::out_of_memory(op.name)); });
}

// run_batch_checked through guard_allocations: shapes of more than 8 axes and error contexts are
// heap memory, and their exhaustion is allocation_failed like the batch buffer's.
template <class S>
Result<batch_t<S>, DataError> run_batch(const BatchOp& op, std::span<const S> samples) {
  return guard_allocations(
      [&] { return run_batch_checked(op, samples); },
      [&] { return DataError::from_shape(ShapeError::out_of_memory(op.name)); });
}

template <SampleRange R>
auto sample_span(const R& range) {
  using S = std::ranges::range_value_t<const R>;
  return std::span<const S>(std::ranges::data(range), std::ranges::size(range));
}

template <class B>
const input_t<B>& input_of(const B& batch) {
  if constexpr (is_tensor_v<B>)
    return batch;
  else
    return input_of(std::get<0>(sample_traits<B>::members(batch)));
}

}  // namespace detail

/// Stacks equally shaped samples along a new leading axis: n samples of shape [d...] give a batch
/// of shape [n, d...], member-wise for pair / tuple / custom samples. Errors: empty_batch; the
/// first sample whose shape differs (sample_shape_mismatch with its index, the expected and the
/// actual shape); shape (size_overflow, rank_too_large); allocation_failed. The result is always
/// a fresh row-major tensor; samples may be any views. Returns Result<range_batch_t<R>, DataError>
/// (declared `auto` so that a wrong sample type fails on the SampleRange concept, naming the
/// type, rather than inside the return type).
template <SampleRange R>
auto stack_samples(const R& samples) {
  return detail::run_batch({"stack_samples", detail::BatchMode::stack, 0},
                           detail::sample_span(samples));
}

/// stack_samples along any axis: the new axis of extent n is inserted before `axis` of each
/// member (0 <= axis <= the member's rank, else shape / axis_out_of_range).
template <SampleRange R>
auto stack(const R& samples, std::size_t axis) {
  return detail::run_batch({"stack", detail::BatchMode::stack, axis}, detail::sample_span(samples));
}

/// Joins batches along axis 0: parts of shape [n_i, d...] give [sum n_i, d...], member-wise.
/// Errors as stack_samples; a part whose shape differs off axis 0 (or whose rank differs) is
/// sample_shape_mismatch, and a rank-0 part is shape / axis_out_of_range (NumPy refuses it too).
template <SampleRange R>
auto concat_batches(const R& parts) {
  return detail::run_batch({"concat_batches", detail::BatchMode::concat, 0},
                           detail::sample_span(parts));
}

/// concat_batches along any axis (0 <= axis < the member's rank, else shape / axis_out_of_range).
template <SampleRange R>
auto concat(const R& parts, std::size_t axis) {
  return detail::run_batch({"concat", detail::BatchMode::concat, axis}, detail::sample_span(parts));
}

/// A SampleRange of tensors (the samples the *_into forms take).
template <class R>
concept TensorRange = SampleRange<R> && detail::is_tensor_v<std::ranges::range_value_t<const R>>;
/// The element type of a TensorRange's tensors.
template <TensorRange R>
using range_element_t = typename std::ranges::range_value_t<const R>::value_type;

/// @name Batches into the caller's memory
/// stack_samples / stack / concat_batches / concat writing into `dst` (a TensorSpan over the
/// caller's memory, e.g. a pinned buffer reused for every batch) instead of a fresh tensor. The
/// samples are tensors (for a pair or tuple, call once per member with that member's
/// destination). Each sample is copied into its slice of dst by copy_to, at the copy engine's
/// speed. Errors, before anything is written: those of the allocating form; dst's shape other
/// than the batch's (shape / broadcast_incompatible: the batch's shape, dst's shape); a sample
/// overlapping dst's memory (shape / memory_overlap).
///@{

/// stack_samples into dst (of shape [n, d...]).
template <TensorRange R>
Result<void, DataError> stack_samples_into(const R& samples, TensorSpan<range_element_t<R>> dst) {
  return detail::run_batch_into({"stack_samples_into", detail::BatchMode::stack, 0},
                                detail::sample_span(samples), dst);
}
/// stack into dst: the new axis before `axis`.
template <TensorRange R>
Result<void, DataError> stack_into(const R& samples, std::size_t axis,
                                   TensorSpan<range_element_t<R>> dst) {
  return detail::run_batch_into({"stack_into", detail::BatchMode::stack, axis},
                                detail::sample_span(samples), dst);
}
/// concat_batches into dst (of shape [sum n_i, d...]).
template <TensorRange R>
Result<void, DataError> concat_batches_into(const R& parts, TensorSpan<range_element_t<R>> dst) {
  return detail::run_batch_into({"concat_batches_into", detail::BatchMode::concat, 0},
                                detail::sample_span(parts), dst);
}
/// concat into dst along `axis`.
template <TensorRange R>
Result<void, DataError> concat_into(const R& parts, std::size_t axis,
                                    TensorSpan<range_element_t<R>> dst) {
  return detail::run_batch_into({"concat_into", detail::BatchMode::concat, axis},
                                detail::sample_span(parts), dst);
}
///@}

/// The model input of a batch: the tensor itself, or, for a pair / tuple / custom batch, the
/// inference_input of its first member (recursively: the first tensor depth first). A reference
/// into `batch`.
template <Sample B>
const input_t<B>& inference_input(const B& batch) {
  return detail::input_of(batch);
}

/// The same for a temporary batch: returned by value (a tensor copy shares its buffer), so that
/// the result cannot dangle.
template <class B>
requires(!std::is_lvalue_reference_v<B> && Sample<B>) input_t<B> inference_input(B&& batch) {
  return detail::input_of(batch);
}

}  // namespace strided
