// Display: PyTorch 1.13's str(t) without the `, dtype=...` suffix (torch/_tensor_str.py), as a
// function of a buffer pointer, a Layout and PrintOptions. Only the elements that are shown are
// read: a summarised tensor is walked through the few indices its summary needs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strided/detail/format_number.hpp"
#include "strided/detail/walk.hpp"
#include "strided/layout.hpp"
#include "strided/print_options.hpp"
#include "strided/shape.hpp"

namespace strided {

namespace detail {

/// Which indices of one axis are shown: all of them, or the first and last `edge` ones.
struct ShownAxis {
  std::size_t size = 0;
  std::size_t edge = 0;
  bool cut = false;
  std::size_t count() const noexcept { return cut ? 2 * edge : size; }
  std::size_t index(std::size_t j) const noexcept {
    return cut && j >= edge ? size - count() + j : j;
  }
};

/// PyTorch's _Formatter for floating-point values, computed over the shown values only.
struct FloatStyle {
  bool int_mode = true;
  bool sci_mode = false;
  std::size_t width = 1;
};

inline int clamped_precision(const PrintOptions& o) { return std::max(o.precision, 0); }

inline FloatStyle float_style(std::span<const double> values, const PrintOptions& o) {
  FloatStyle s;
  const int precision = clamped_precision(o);
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  bool any = false;
  for (double v : values) {
    if (!std::isfinite(v) || v == 0) continue;
    any = true;
    lo = std::min(lo, std::fabs(v));
    hi = std::max(hi, std::fabs(v));
    if (v != std::ceil(v)) s.int_mode = false;
  }
  if (!any) return s;  // PyTorch returns before applying the sci_mode option here
  const bool wide = hi / lo > 1000.0 || hi > 1.0e8;
  s.sci_mode = s.int_mode ? wide : wide || lo < 1.0e-4;
  std::string text;
  for (double v : values) {
    if (!std::isfinite(v) || v == 0) continue;
    text.clear();
    if (s.sci_mode) {
      append_scientific(text, v, precision);
    } else if (s.int_mode) {
      append_fixed(text, v, 0);
      text += '.';
    } else {
      append_fixed(text, v, precision);
    }
    s.width = std::max(s.width, text.size());
  }
  if (o.sci_mode) s.sci_mode = *o.sci_mode;
  return s;
}

inline void pad_left(std::string& cell, std::size_t width) {
  if (cell.size() < width) cell.insert(0, width - cell.size(), ' ');
}

inline std::string format_float(double v, const FloatStyle& s, const PrintOptions& o) {
  std::string cell;
  if (s.sci_mode) {
    append_scientific(cell, v, clamped_precision(o));
  } else if (s.int_mode) {
    append_fixed(cell, v, 0);
    if (std::isfinite(v)) cell += '.';
  } else {
    append_fixed(cell, v, clamped_precision(o));
  }
  pad_left(cell, s.width);
  return cell;
}

/// The shown cells (already padded) in row-major order of the shown grid, laid out as
/// _tensor_str_with_formatter does: nested brackets, `...` for cut axes, rows wrapped at linewidth.
class DisplayRenderer {
 public:
  DisplayRenderer(std::span<const std::string> cells, std::span<const ShownAxis> axes,
                  std::size_t width, const PrintOptions& o)
      : cells_(cells), axes_(axes), width_(width), o_(o) {}

  void render(std::string& out, std::size_t indent) {
    next_ = 0;
    render_axis(out, 0, indent);
  }

 private:
  void render_axis(std::string& out, std::size_t dim, std::size_t indent) {
    if (dim + 1 == axes_.size()) return render_row(out, axes_[dim], indent);
    const ShownAxis& axis = axes_[dim];
    if (axis.count() == 0) {  // edgeitems == 0: nothing but the ellipsis
      out += "[...]";
      return;
    }
    std::string sep = ",";
    sep.append(axes_.size() - dim - 1, '\n');
    sep.append(indent + 1, ' ');
    out += '[';
    for (std::size_t j = 0; j < axis.count(); ++j) {
      if (j > 0) out += sep;
      if (axis.cut && j == axis.edge) out += "..." + sep;
      render_axis(out, dim + 1, indent + 1);
    }
    out += ']';
  }

  // _vector_str: elements (and " ...") in chunks of elements_per_line, joined by ", ".
  void render_row(std::string& out, const ShownAxis& axis, std::size_t indent) {
    const std::size_t room = o_.linewidth > indent ? o_.linewidth - indent : 0;
    const std::size_t per_line = std::max<std::size_t>(1, room / (width_ + 2));
    const std::size_t items = axis.count() + (axis.cut ? 1 : 0);
    out += '[';
    for (std::size_t i = 0; i < items; ++i) {
      if (i > 0) {
        out += ',';
        if (i % per_line == 0) {
          out += '\n';
          out.append(indent + 1, ' ');
        } else {
          out += ' ';
        }
      }
      if (axis.cut && i == axis.edge) {
        out += " ...";
      } else {
        out += cells_[next_++];
      }
    }
    out += ']';
  }

  std::span<const std::string> cells_;
  std::span<const ShownAxis> axes_;
  std::size_t width_;
  const PrintOptions& o_;
  std::size_t next_ = 0;
};

/// The axes of `layout` as PyTorch's summary shows them.
inline std::vector<ShownAxis> shown_axes(const Layout& layout, const PrintOptions& o) {
  const bool summarize = layout.numel() > o.threshold;
  std::vector<ShownAxis> axes;
  axes.reserve(layout.rank());
  for (std::size_t size : layout.shape()) {
    const std::size_t e = o.edgeitems;
    axes.push_back({size, e, summarize && size > e && size - e > e});
  }
  return axes;
}

/// Storage indices of the shown elements, in row-major order of the shown grid.
inline std::vector<std::size_t> shown_storage_indices(const Layout& layout,
                                                      std::span<const ShownAxis> axes) {
  Shape grid(axes.size(), 0), index(axes.size(), 0);
  std::size_t total = 1;
  for (std::size_t k = 0; k < axes.size(); ++k) total *= grid[k] = axes[k].count();
  std::vector<std::size_t> out;
  if (total == 0) return out;
  out.reserve(total);
  StridedWalk<0> walk(grid.span(), {}, {});
  do {
    for (std::size_t k = 0; k < axes.size(); ++k) index[k] = axes[k].index(walk.index(k));
    out.push_back(layout.storage_index(index.span()));
  } while (walk.next());
  return out;
}

inline void append_shape(std::string& out, const Shape& shape) { append_list(out, shape.span()); }

/// How an element type prints: as a float (through double), an integer, or True/False.
template <class T>
concept DisplayFloat = std::floating_point<T> || std::same_as<T, f16> || std::same_as<T, bf16> ||
    requires(const T& v) {
  { element_traits<T>::to_f32(v) } -> std::convertible_to<float>;
};

/// The text of one element of a user type that is neither integral nor convertible to float.
/// Empty here; specialised in format_element_text.hpp for types written by `operator<<` or, where
/// <format> exists, by std::formatter.
template <class T>
struct ElementText {};

template <class T>
concept TextElement = !std::integral<T> && !DisplayFloat<T> && requires(const T& v) {
  { ElementText<T>::text(v) } -> std::same_as<std::string>;
};

template <class T>
concept Printable = std::integral<T> || DisplayFloat<T> || TextElement<T>;

template <DisplayFloat T>
double display_value(const T& v) {
  if constexpr (std::floating_point<T>)
    return static_cast<double>(v);
  else if constexpr (std::same_as<T, f16> || std::same_as<T, bf16>)
    return static_cast<double>(static_cast<float>(v));  // PyTorch prints halves via float()
  else
    return static_cast<double>(element_traits<T>::to_f32(v));
}

// Integers and user types print as their own text, right-aligned to the widest cell.
template <Printable T>
std::string text_cell(const T& v) {
  std::string cell;
  if constexpr (std::same_as<T, bool>)
    cell = v ? "True" : "False";
  else if constexpr (std::integral<T>)
    append_integer(cell, v);
  else
    cell = ElementText<T>::text(v);
  return cell;
}

/// str(t) without the dtype suffix, for the tensor at `data` seen through `layout`.
template <Printable T>
std::string format_display(const T* data, const Layout& layout, const PrintOptions& o) {
  std::string out = "tensor(";
  if (layout.empty()) {  // the reference document's form: the shape cannot be read off the values
    out += "[], shape=";
    append_shape(out, layout.shape());
    out += ')';
    return out;
  }
  const std::vector<ShownAxis> axes = shown_axes(layout, o);
  const std::vector<std::size_t> at = shown_storage_indices(layout, axes);
  std::vector<std::string> cells;
  cells.reserve(at.size());
  std::size_t width = 1;
  if constexpr (DisplayFloat<T>) {
    std::vector<double> values;
    values.reserve(at.size());
    for (std::size_t i : at) values.push_back(display_value(data[i]));
    const FloatStyle style = float_style(values, o);
    for (double v : values) cells.push_back(format_float(v, style, o));
    width = style.width;
  } else {
    for (std::size_t i : at) {
      cells.push_back(text_cell(data[i]));
      width = std::max(width, cells.back().size());
    }
    for (std::string& cell : cells) pad_left(cell, width);
  }
  if (axes.empty()) {
    out += cells.front();
  } else {
    DisplayRenderer(cells, axes, width, o).render(out, out.size());
  }
  out += ')';
  return out;
}

}  // namespace detail
}  // namespace strided
