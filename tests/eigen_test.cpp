// strided/interop/eigen.hpp: every map case against the tensor's own element access, negative
// and zero strides, the rank errors, Eigen storage as tensors, and the product example.
#include <Eigen/Core>
#include <cstddef>
#include <memory>
#include <numeric>
#include <strided/interop/eigen.hpp>
#include <string>
#include <vector>

#include "catch_shim.hpp"

using namespace strided;

namespace {

Tensor<double> iota(const Shape& shape) {
  std::size_t n = 1;
  for (std::size_t s : shape) n *= s;
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), 1.0);
  return Tensor<double>::from_vector(std::move(v), shape).value();
}

// Every entry of the map equals the tensor's element at the same index (and so do the sizes).
template <class Map>
void require_matches(const Map& m, const Tensor<double>& t) {
  REQUIRE(static_cast<std::size_t>(m.rows()) == t.shape()[0]);
  REQUIRE(static_cast<std::size_t>(m.cols()) == t.shape()[1]);
  const auto values = t.values();
  std::size_t i = 0;
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) REQUIRE(m(r, c) == values[i++]);
}

void require_matches_vector(const EigenVectorMap<double>& m, const Tensor<double>& t) {
  REQUIRE(static_cast<std::size_t>(m.size()) == t.shape()[0]);
  const auto values = t.values();
  for (Eigen::Index i = 0; i < m.size(); ++i) REQUIRE(m(i) == values[static_cast<std::size_t>(i)]);
}

}  // namespace

TEST_CASE("to_eigen maps every rank-2 view without copying") {
  const Tensor<double> base = iota({4, 5});
  const std::vector<std::pair<std::string, Tensor<double>>> views = {
      {"base", base},
      {"transpose", base.transpose(0, 1).value()},
      {"narrow", base.narrow(1, 1, 3).value()},
      {"step", base.slice(1, 0, 5, 2).value()},
      {"flip rows", base.flip(0).value()},
      {"flip both", base.flip({0, 1}).value()},
      {"flipped transpose", base.transpose(0, 1).value().flip(1).value()},
      {"broadcast", base.narrow(0, 2, 1).value().broadcast_to({3, 5}).value()},
      {"column broadcast", iota({3, 1}).broadcast_to({3, 4}).value()},
      {"empty", base.narrow(0, 4, 0).value()},
  };
  for (const auto& [name, t] : views) {
    INFO(name);
    auto m = to_eigen(t);
    REQUIRE(m.has_value());
    require_matches(*m, t);
    if (!t.empty()) REQUIRE(m->data() == t.storage().get() + t.offset());
    REQUIRE(m->outerStride() == t.strides()[0]);
    REQUIRE(m->innerStride() == t.strides()[1]);
  }
}

TEST_CASE("to_eigen_vector maps every rank-1 view") {
  const Tensor<double> base = iota({4, 5});
  const std::vector<std::pair<std::string, Tensor<double>>> views = {
      {"row", base.select(0, 2).value()},
      {"column", base.select(1, 3).value()},
      {"flipped column", base.select(1, 3).value().flip(0).value()},
      {"broadcast", Tensor<double>::scalar(7).broadcast_to({6}).value()},
  };
  for (const auto& [name, t] : views) {
    INFO(name);
    auto m = to_eigen_vector(t);
    REQUIRE(m.has_value());
    require_matches_vector(*m, t);
    REQUIRE(m->data() == t.storage().get() + t.offset());
    REQUIRE(m->innerStride() == t.strides()[0]);
  }
}

TEST_CASE("to_eigen on another rank is a rank error") {
  auto three = to_eigen(iota({2, 3, 4}));
  REQUIRE_FALSE(three.has_value());
  REQUIRE(three.error().kind() == ShapeErrorKind::rank_mismatch);
  REQUIRE(three.error().op() == std::string("to_eigen"));
  REQUIRE(three.error().message() == "to_eigen: needs rank 2, got rank 3");
  auto one = to_eigen(iota({4}));
  REQUIRE(one.error().message() == "to_eigen: needs rank 2, got rank 1");
  auto matrix = to_eigen_vector(iota({2, 2}));
  REQUIRE(matrix.error().message() == "to_eigen_vector: needs rank 1, got rank 2");
}

TEST_CASE("from_eigen views Eigen storage with its strides") {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  auto col = std::make_shared<Eigen::MatrixXd>(3, 4);
  auto row = std::make_shared<RowMajor>(3, 4);
  for (Eigen::Index r = 0; r < 3; ++r)
    for (Eigen::Index c = 0; c < 4; ++c) (*col)(r, c) = (*row)(r, c) = double(10 * r + c);

  auto require_values = [](const Tensor<double>& t, const auto& m) {
    REQUIRE(t.shape() ==
            Shape{static_cast<std::size_t>(m.rows()), static_cast<std::size_t>(m.cols())});
    for (std::size_t r = 0; r < t.shape()[0]; ++r)
      for (std::size_t c = 0; c < t.shape()[1]; ++c)
        REQUIRE(*t.get({r, c}) == m(Eigen::Index(r), Eigen::Index(c)));
  };

  std::weak_ptr<const Eigen::MatrixXd> watch = col;
  {
    const Tensor<double> t = from_eigen(std::shared_ptr<const Eigen::MatrixXd>(col)).value();
    REQUIRE(t.strides() == Strides{1, 3});  // column-major
    REQUIRE(t.storage().get() == col->data());
    require_values(t, *col);
    col.reset();
    REQUIRE_FALSE(watch.expired());  // the tensor holds the matrix
    REQUIRE(*t.get({2, 3}) == 23.0);
  }
  REQUIRE(watch.expired());

  const Tensor<double> r = from_eigen(std::shared_ptr<const RowMajor>(row)).value();
  REQUIRE(r.strides() == Strides{4, 1});
  REQUIRE(r.is_contiguous());
  require_values(r, *row);

  // A block, and a Map with negative strides over memory another owner holds.
  const auto block = row->block(1, 1, 2, 3);
  const Tensor<double> b = from_eigen(block, row).value();
  REQUIRE(b.strides() == Strides{4, 1});
  REQUIRE(b.storage().get() + b.offset() == &(*row)(1, 1));
  require_values(b, block);
  const Eigen::Map<const RowMajor, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>> reversed(
      &(*row)(2, 3), 3, 4, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(-4, -1));
  const Tensor<double> n = from_eigen(reversed, row).value();
  REQUIRE(n.strides() == Strides{-4, -1});
  REQUIRE(n.storage().get() == row->data());  // rebased to the lowest element
  REQUIRE(n.storage_len() == 12);
  require_values(n, reversed);

  auto vec = std::make_shared<Eigen::VectorXd>(Eigen::VectorXd::LinSpaced(5, 0.0, 4.0));
  const Tensor<double> v = from_eigen(std::shared_ptr<const Eigen::VectorXd>(vec)).value();
  REQUIRE(v.shape() == Shape{5});
  REQUIRE(v.to_vector() == std::vector<double>{0, 1, 2, 3, 4});
  const Tensor<double> column = from_eigen(row->col(2), row).value();
  REQUIRE(column.strides() == Strides{4});
  REQUIRE(column.to_vector() == std::vector<double>{2, 12, 22});
}

TEST_CASE("copy_from_eigen evaluates an expression into a new row-major tensor") {
  Eigen::MatrixXd a(2, 3);
  a << 1, 2, 3, 4, 5, 6;
  const Tensor<double> t = copy_from_eigen(a.transpose() * 2.0).value();
  REQUIRE(t.shape() == Shape{3, 2});
  REQUIRE(t.to_vector() == std::vector<double>{2, 8, 4, 10, 6, 12});
  const Tensor<double> v = copy_from_eigen(Eigen::Vector3d(1, 2, 3)).value();
  REQUIRE(v.shape() == Shape{3});
}

// The docs/interop.md example: A^T * B[1:6, :] through Eigen maps of the two views.
TEST_CASE("a product of a transposed and a narrowed view through Eigen, without copies") {
  const Tensor<double> a = iota({5, 3});
  const Tensor<double> b = iota({7, 4});
  const Tensor<double> at = a.transpose(0, 1).value();  // 3 x 5
  const Tensor<double> bn = b.narrow(0, 1, 5).value();  // 5 x 4
  const auto ma = to_eigen(at).value();
  const auto mb = to_eigen(bn).value();
  REQUIRE(ma.data() == a.storage().get());      // no copy of A
  REQUIRE(mb.data() == b.storage().get() + 4);  // no copy of B: row 1 of it
  const Eigen::MatrixXd product = ma * mb;
  REQUIRE(product.rows() == 3);
  REQUIRE(product.cols() == 4);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      double naive = 0;
      for (std::size_t k = 0; k < 5; ++k) naive += *at.get({i, k}) * *bn.get({k, j});
      REQUIRE(product(Eigen::Index(i), Eigen::Index(j)) == naive);
    }
}
