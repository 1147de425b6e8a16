// ShapeError's messages, built only when an error is shown, and its copies, moves and
// destruction at run time (declared in shape_error.hpp): compiled once into libstrided in the
// compiled mode rather than in every translation unit that can fail.
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

STRIDED_FUNC auto ShapeError::copy_of_out_of_line(const ShapeError& other) -> Details {
  return copy_of(other);
}

STRIDED_FUNC auto ShapeError::move_of_out_of_line(ShapeError& other) noexcept -> Details {
  return move_of(other);
}

STRIDED_FUNC void ShapeError::move_assign_out_of_line(ShapeError& other) noexcept {
  move_assign(other);
}

STRIDED_FUNC void ShapeError::destroy_details_out_of_line() noexcept { destroy_details(); }

}  // namespace strided
