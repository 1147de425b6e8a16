// Eigen bridges (needs Eigen 3.3+, Debian `libeigen3-dev`, CMake `Eigen3::Eigen`):
//
//   to_eigen(t)          rank-2 Tensor<T> -> EigenMatrixMap<T>: a read-only Eigen::Map of the
//                        view (row-major, both strides dynamic: positive, zero and negative)
//   to_eigen_vector(t)   rank-1 Tensor<T> -> EigenVectorMap<T>
//   from_eigen(m, owner) an Eigen matrix, array, Map or block with direct access -> a Tensor
//                        view of its storage with its strides, kept alive by `owner`
//   from_eigen(ptr)      the same for a matrix held by a shared_ptr (the owner)
//   copy_from_eigen(e)   any Eigen expression -> a new row-major tensor with its values
//
// Both directions are zero-copy except copy_from_eigen. Eigen never owns strided memory and
// strided never writes to Eigen's: the maps are of const matrices.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <Eigen/Core>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/tensor.hpp"

namespace strided {

/// An element type Eigen computes with (the arithmetic built-ins; Eigen has its own half types,
/// so f16 and bf16 are not mapped).
template <class T>
concept EigenScalar = Element<T> && std::is_arithmetic_v<T>;

/// What to_eigen returns: a read-only row-major map with run-time row and column strides.
template <EigenScalar T>
using EigenMatrixMap =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>,
               Eigen::Unaligned, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;

/// What to_eigen_vector returns: a read-only column vector with a run-time stride.
template <EigenScalar T>
using EigenVectorMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>, Eigen::Unaligned,
                                  Eigen::InnerStride<Eigen::Dynamic>>;

namespace detail {

/// Address of element [0, ..., 0] (the buffer itself for an empty view, whose offset may lie
/// past the end).
template <class T>
const T* first_element(const Tensor<T>& t) noexcept {
  const T* data = t.storage().get();
  return data == nullptr || t.empty() ? data : data + t.offset();
}

/// A view of `count` axes over memory starting at `first` (element [0, ..., 0]) with signed
/// strides: rebased so the lowest element reached is storage index 0, kept alive by `owner`.
template <class T>
Result<Tensor<T>> view_of_memory(const T* first, Shape shape, Strides strides,
                                 std::shared_ptr<const void> owner, const char* op) {
  auto probe = Layout::from_parts(shape, strides, 0, op);
  if (!probe) return probe.error();
  const bool empty = probe->empty();
  const Reach reach = empty ? Reach{} : probe->reach();
  const auto below = static_cast<std::size_t>(-reach.low);
  const std::size_t len = empty ? 0 : below + static_cast<std::size_t>(reach.high) + 1;
  auto layout = Layout::from_parts(std::move(shape), std::move(strides), below, op);
  if (!layout) return layout.error();
  const T* base = empty ? first : first - below;
  return Tensor<T>::from_shared(std::shared_ptr<const T>(std::move(owner), base), len,
                                std::move(*layout));
}

}  // namespace detail

/// A rank-2 view as an Eigen map of the same memory: rows = shape[0], cols = shape[1], outer
/// stride = strides[0], inner stride = strides[1] (elements; any sign, zero for broadcasts).
/// Every rank-2 view is expressible; another rank is rank_mismatch. The map does not keep the
/// buffer alive: keep `t` (or a copy) as long as the map is used.
template <EigenScalar T>
Result<EigenMatrixMap<T>> to_eigen(const Tensor<T>& t) {
  if (t.rank() != 2) return ShapeError::rank_required("to_eigen", t.rank(), 2);
  const auto rows = static_cast<Eigen::Index>(t.shape()[0]);
  const auto cols = static_cast<Eigen::Index>(t.shape()[1]);
  const Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic> stride(t.strides()[0], t.strides()[1]);
  return EigenMatrixMap<T>(detail::first_element(t), rows, cols, stride);
}

/// A rank-1 view as an Eigen column-vector map (stride = strides[0], any sign). Another rank
/// is rank_mismatch. The map does not keep the buffer alive.
template <EigenScalar T>
Result<EigenVectorMap<T>> to_eigen_vector(const Tensor<T>& t) {
  if (t.rank() != 1) return ShapeError::rank_required("to_eigen_vector", t.rank(), 1);
  return EigenVectorMap<T>(detail::first_element(t), static_cast<Eigen::Index>(t.shape()[0]),
                           Eigen::InnerStride<Eigen::Dynamic>(t.strides()[0]));
}

/// A tensor viewing the storage of `m` (a Matrix, Array, Map, Ref or block of one: anything
/// with direct access), zero-copy: shape [rows, cols] with strides [rowStride, colStride]
/// (row- or column-major alike), or shape [size] with stride [innerStride] for a compile-time
/// vector. `owner` keeps the storage alive (the shared_ptr that holds the matrix, or any owner
/// of the memory a Map points at); the tensor never writes to it, and nothing may while the
/// tensor lives (tensors are immutable).
template <class Derived>
requires EigenScalar<typename Derived::Scalar> &&
    ((static_cast<unsigned>(Derived::Flags) & Eigen::DirectAccessBit) !=
     0) Result<Tensor<typename Derived::Scalar>> from_eigen(const Eigen::DenseBase<Derived>& m,
                                                            std::shared_ptr<const void> owner) {
  using T = typename Derived::Scalar;
  const Derived& d = m.derived();
  if constexpr (Derived::IsVectorAtCompileTime)
    return detail::view_of_memory<T>(d.data(), Shape{static_cast<std::size_t>(d.size())},
                                     Strides{static_cast<std::ptrdiff_t>(d.innerStride())},
                                     std::move(owner), "from_eigen");
  else
    return detail::view_of_memory<T>(
        d.data(), Shape{static_cast<std::size_t>(d.rows()), static_cast<std::size_t>(d.cols())},
        Strides{static_cast<std::ptrdiff_t>(d.rowStride()),
                static_cast<std::ptrdiff_t>(d.colStride())},
        std::move(owner), "from_eigen");
}

/// from_eigen(*matrix, matrix): the shared_ptr that holds the matrix keeps it alive.
template <class Derived>
requires std::is_base_of_v<Eigen::DenseBase<Derived>, Derived>
auto from_eigen(std::shared_ptr<const Derived> matrix) {
  const Derived& m = *matrix;
  return from_eigen(m, std::shared_ptr<const void>(std::move(matrix)));
}

/// The values of any Eigen expression (a product, a transpose, ...) in a new row-major tensor
/// of the same shape as from_eigen gives (rank 1 for compile-time vectors, else rank 2). The
/// expression is evaluated into the tensor's own buffer.
template <class Derived>
requires EigenScalar<typename Derived::Scalar> Result<Tensor<typename Derived::Scalar>>
copy_from_eigen(const Eigen::DenseBase<Derived>& e) {
  using T = typename Derived::Scalar;
  using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto rows = static_cast<std::size_t>(e.rows());
  const auto cols = static_cast<std::size_t>(e.cols());
  std::vector<T> values(rows * cols);
  Eigen::Map<RowMajor>(values.data(), e.rows(), e.cols()) = e;
  if constexpr (Derived::IsVectorAtCompileTime)
    return Tensor<T>::from_vector(std::move(values), {rows * cols});
  else
    return Tensor<T>::from_vector(std::move(values), {rows, cols});
}

}  // namespace strided
