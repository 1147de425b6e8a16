#include "catch_shim.hpp"
// MessageText: the appender of error messages, and shape_errors::describe writing into it.
#include <cstddef>
#include <cstdint>
#include <strided/message_text.hpp>
#include <strided/shape_error.hpp>
#include <strided/shape_error_details.hpp>
#include <string>
#include <vector>

using strided::MessageText;

TEST_CASE("MessageText appends pieces, sizes, lists and signed values", "[message_text]") {
  MessageText m("reshape");
  const std::vector<std::size_t> dims = {2, 3};
  const std::vector<std::size_t> written = {SIZE_MAX, 4};
  m << "shape " << std::size_t{6} << " ";
  m.dims(dims) << " ";
  m.dims_with_infer(written) << " ";
  m.signed_value(-1);
  CHECK(std::move(m).take() == "reshape: shape 6 [2, 3] [infer, 4] -1");
  CHECK(std::move(MessageText()).take().empty());
  MessageText empty_list;
  empty_list.dims({});
  CHECK(std::move(empty_list).take() == "[]");
}

TEST_CASE("describe writes a details' text, the message after op", "[message_text]") {
  namespace se = strided::shape_errors;
  const se::AxisOutOfRange details{.axis = 3, .shape = {4, 5}};
  MessageText m;
  describe(m, details);  // found by argument-dependent lookup
  const std::string text = std::move(m).take();
  const strided::ShapeError error("permute", details);
  CHECK(text == "axis 3 is out of range for rank 2 (shape [4, 5])");
  CHECK(text == error.description());
  CHECK(error.message() == "permute: " + text);
}
