// The code shown in docs/index.md and docs/semantics.md, compiled and checked here; the docs quote
// it verbatim (docs.snippets test).
#include <sstream>
#include <strided/tensor.hpp>

#include "catch_shim.hpp"

TEST_CASE("docs/index.md: a view, then a copy at memory speed") {
  std::ostringstream out;
  auto& cout = out;
  // index.md
  auto image = strided::Tensor<float>::zeros({224, 224, 3}).value();  // HWC
  auto chw = image.permute({2, 0, 1}).value();                        // a view: nothing copied
  auto planar = chw.contiguous();                                     // one planned copy
  cout << planar.shape()[0] << ' ' << chw.shares_storage_with(image) << '\n';  // 3 1
  // end
  REQUIRE(out.str() == "3 1\n");
  REQUIRE(planar.is_contiguous());
  REQUIRE_FALSE(planar.shares_storage_with(image));
}

TEST_CASE("docs/semantics.md: reshape is a view or an error, never a copy") {
  // semantics.md
  auto t = strided::Tensor<int>::zeros({4, 6}).value().transpose(0, 1).value();  // [6, 4]
  auto split = t.reshape({2, 3, 4});           // a view: strides [3, 1, 6]
  auto merged = t.reshape({24});               // no view exists: non_contiguous_reshape
  auto copied = t.contiguous().reshape({24});  // say so explicitly to copy
  // end
  REQUIRE(split.value().strides() == strided::Strides{3, 1, 6});
  REQUIRE(merged.error().kind() == strided::ShapeErrorKind::non_contiguous_reshape);
  REQUIRE(copied.value().numel() == 24);
}
