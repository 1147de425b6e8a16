// ShapeError's messages (declared in shape_error.hpp): built only when
// an error is shown, so compiled once into libstrided in the compiled mode rather than in every
// translation unit that can fail.
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>

#include "strided/detail/message_text.hpp"
#include "strided/shape_error.hpp"
#include "strided/shape_error_details.hpp"

namespace strided {

[[gnu::cold]] STRIDED_FUNC std::string ShapeError::message() const {
  detail::MessageText m(op_);
  m << description();
  return std::move(m).take();
}

[[gnu::cold]] STRIDED_FUNC std::string ShapeError::description() const {
  detail::MessageText m;
  visit([&](const auto& d) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(d)>, shape_errors::NoDetails>) {
      std::string words = to_string(kind_);
      std::replace(words.begin(), words.end(), '_', ' ');
      m << words;
    } else {
      describe(m, d);
    }
  });
  return std::move(m).take();
}

}  // namespace strided
