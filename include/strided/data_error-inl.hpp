// DataError's message (declared in data_error.hpp), compiled once into libstrided in the compiled
// mode, like ShapeError's (error-inl.hpp).
#pragma once

#include <string>
#include <utility>

#include "strided/data_error.hpp"
#include "strided/detail/message_text.hpp"

namespace strided {

[[gnu::cold]] STRIDED_FUNC std::string DataError::message() const {
  if (const ShapeError* wrapped = shape_error()) return wrapped->message();
  detail::MessageText m(op_);
  if (kind_ == DataErrorKind::empty_batch) {
    m << "no samples to batch";
  } else if (const data_errors::SampleShapeMismatch* s = sample_shape_mismatch()) {
    m << "sample " << s->index << " has shape ";
    m.dims(s->actual.span()) << ", expected ";
    m.dims(s->expected.span());
  } else {
    m << "unknown error";
  }
  return std::move(m).take();
}

}  // namespace strided
