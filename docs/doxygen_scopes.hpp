// Read by Doxygen only (docs/Doxyfile.in lists it; no code includes it): declares the third-party
// scope that strided/format.hpp specialises, so that the API reference can place
// fmt::formatter<strided::Tensor<T>>.

/// {fmt} (https://fmt.dev): strided/format.hpp specialises its formatter for strided::Tensor.
namespace fmt {
/// {fmt}'s formatter template (declared in <fmt/format.h>).
template <class T, class Char = char, class Enable = void>
struct formatter;
}  // namespace fmt

/// Everything strided declares: Tensor, Layout, Shape, Result, the errors, element types, batching,
/// printing and the interop doors. Implementation details live in strided::detail (not part of
/// the API).
namespace strided {}
