// The error-message appender under its internal spelling: the class is the public
// strided::MessageText (strided/message_text.hpp), which shape_errors::describe takes.
#pragma once

#include "strided/message_text.hpp"

namespace strided::detail {
using MessageText = strided::MessageText;
}  // namespace strided::detail
