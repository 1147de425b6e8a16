// Shape and Strides: small vectors of dimensions, inline up to 8 entries, usable in constant
// expressions at every rank.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <iosfwd>
#include <iterator>
#include <ranges>
#include <span>
#include <string>

namespace strided {

/// The largest rank any layout may have.
inline constexpr std::size_t max_rank = 64;

/// The largest rank whose shape and strides live inside the object: views up to this rank
/// allocate nothing. 8 rather than PyTorch's 5, so that a view that adds an axis (unsqueeze,
/// unflatten) to a rank-6 tensor stays off the heap as well.
inline constexpr std::size_t inline_rank = 8;

/// One integer per axis -- the type of Shape and Strides. `Inline` entries are stored in the
/// object itself: ranks up to `Inline` never touch the heap, so view operations on typical
/// tensors allocate nothing. Larger ranks spill to the heap (also in constant evaluation, where
/// C++20 allows transient allocation). Built as a container is: empty, `count` copies of a
/// value, `{a, b, c}`, an iterator pair, a range of integers or a span.
template <class I, std::size_t Inline = inline_rank>
class AxisVector {
 public:
  using value_type = I;             ///< the entry type
  using size_type = std::size_t;    ///< as std::vector's
  using iterator = I*;              ///< a pointer to an entry
  using const_iterator = const I*;  ///< a pointer to a const entry

  /// No entries.
  constexpr AxisVector() noexcept = default;
  /// The entries `{a, b, c}`.
  constexpr AxisVector(std::initializer_list<I> values) { assign(values.begin(), values.size()); }
  /// A copy of the entries of `values`.
  constexpr explicit AxisVector(std::span<const I> values) { assign(values.data(), values.size()); }
  /// From any sized range of integers (e.g. `std::vector<int>`), converting each entry.
  template <std::ranges::sized_range R>
  requires std::integral<std::ranges::range_value_t<R>> &&
      (!std::same_as<std::remove_cvref_t<R>, AxisVector>)constexpr explicit AxisVector(R&& values) {
    resize(std::ranges::size(values));
    std::size_t i = 0;
    for (auto v : values) data()[i++] = static_cast<I>(v);
  }
  /// `count` copies of `value`.
  constexpr AxisVector(std::size_t count, I value) {
    resize(count);
    std::fill_n(data(), count, value);
  }
  /// The integers in [first, last), converting each entry: `Shape(v.begin(), v.end())`.
  template <std::input_iterator It, std::sentinel_for<It> Last>
  requires std::integral<std::iter_value_t<It>>
  constexpr AxisVector(It first, Last last) {
    if constexpr (std::sized_sentinel_for<Last, It>)
      reserve(static_cast<std::size_t>(last - first));
    for (; first != last; ++first) push_back(static_cast<I>(*first));
  }

  // Inline entries are copied in the initializer, not zeroed first and then overwritten: a view
  // op copies two of these, and the zeroing stores doubled the cost of the copy.
  /// Copies the entries; allocates only past Inline entries.
  [[gnu::always_inline]] constexpr AxisVector(const AxisVector& other)
      : inline_(other.heap_ == nullptr ? other.inline_ : std::array<I, Inline>{}),
        size_(other.heap_ == nullptr ? other.size_ : 0) {
    if (other.heap_ != nullptr) assign_from(other);
  }
  constexpr AxisVector(AxisVector&& other) noexcept {
    steal(other);
  }  ///< takes the entries (and the heap block, if any)
  /// Copies the entries; allocates only past Inline entries.
  [[gnu::always_inline]] constexpr AxisVector& operator=(const AxisVector& other) {
    if (this == &other) return *this;
    if (heap_ == nullptr && other.heap_ == nullptr) {
      copy_inline(other);  // fixed-size, as the copy constructor: no call to memmove
      size_ = other.size_;
    } else {
      assign_from(other);
    }
    return *this;
  }
  /// Takes the entries (and the heap block, if any).
  constexpr AxisVector& operator=(AxisVector&& other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  constexpr ~AxisVector() { release(); }

  constexpr std::size_t size() const noexcept { return size_; }  ///< the number of entries
  constexpr bool empty() const noexcept { return size_ == 0; }   ///< no entries
  constexpr I* data() noexcept {
    return heap_ != nullptr ? heap_ : inline_.data();
  }  ///< the first entry
  constexpr const I* data() const noexcept {
    return heap_ != nullptr ? heap_ : inline_.data();
  }                                                                      ///< the first entry
  constexpr I& operator[](std::size_t i) noexcept { return data()[i]; }  ///< entry i (i < size())
  constexpr const I& operator[](std::size_t i) const noexcept {
    return data()[i];
  }                                                                   ///< entry i (i < size())
  constexpr I* begin() noexcept { return data(); }                    ///< the first entry
  constexpr I* end() noexcept { return data() + size_; }              ///< past the last entry
  constexpr const I* begin() const noexcept { return data(); }        ///< the first entry
  constexpr const I* end() const noexcept { return data() + size_; }  ///< past the last entry
  constexpr I& back() noexcept { return data()[size_ - 1]; }  ///< the last entry (size() > 0)
  constexpr const I& back() const noexcept {
    return data()[size_ - 1];
  }  ///< the last entry (size() > 0)

  /// The entries as a span.
  constexpr std::span<const I> span() const noexcept { return {data(), size_}; }
  /// Entries it holds without allocating.
  constexpr std::size_t capacity() const noexcept { return heap_ != nullptr ? capacity_ : Inline; }

  /// Resizes; new entries are zero. Existing entries are kept.
  constexpr void resize(std::size_t count) {
    if (count > capacity()) grow(count);
    // Through a pointer, from a local count: a store to an entry could alias size_ for the
    // compiler, which would reload both on every entry.
    I* d = data();
    for (std::size_t i = size_; i < count; ++i) d[i] = I{};
    size_ = count;
  }
  /// Resizes to `count` <= capacity() without writing the entries it adds, for a caller that
  /// writes each of them next (they hold earlier values or zero until then). resize() would zero
  /// them first, in a call to memset that costs more than a view op's own work.
  constexpr void resize_for_overwrite(std::size_t count) noexcept { size_ = count; }
  /// Makes room for `count` entries, so that growing to that size cannot throw.
  constexpr void reserve(std::size_t count) {
    if (count > capacity()) grow(count);
  }
  /// Appends `value`.
  constexpr void push_back(I value) {
    if (size_ == capacity()) grow(size_ * 2);
    data()[size_++] = value;
  }
  // insert, erase and move shift entries one at a time: std::copy and std::rotate call memmove,
  // which costs more than the few entries a shape holds.
  /// Inserts `value` before entry `pos`.
  constexpr void insert(std::size_t pos, I value) {
    push_back(value);
    move_entry(size_ - 1, pos);
  }
  /// Removes entry `pos`.
  constexpr void erase(std::size_t pos) { erase(pos, pos + 1); }
  /// Removes the entries [first, last).
  constexpr void erase(std::size_t first, std::size_t last) {
    I* d = data();
    const std::size_t n = size_;  // read once: a store to an entry could alias it for the compiler
    for (std::size_t k = last; k < n; ++k) d[k - (last - first)] = d[k];
    size_ = n - (last - first);
  }
  /// Moves entry `from` to position `to`, the entries between shifting by one to make room.
  constexpr void move_entry(std::size_t from, std::size_t to) {
    I* d = data();
    // The moved entry is carried in a register through the places between, each swapped out in
    // turn: GCC makes a loop copying each entry from its neighbour a call to memmove.
    I carry = d[from];
    for (std::size_t k = to; k < from; ++k) std::swap(carry, d[k]);
    for (std::size_t k = to; k > from; --k) std::swap(carry, d[k]);
    d[from] = carry;
  }
  /// Removes every entry.
  constexpr void clear() noexcept { size_ = 0; }

  /// Same entries in the same order.
  friend constexpr bool operator==(const AxisVector& a, const AxisVector& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  [[gnu::noinline]] constexpr void grow(std::size_t wanted) {
    const std::size_t cap = std::max(wanted, Inline * 2);
    I* fresh = new I[cap]{};
    std::copy(data(), data() + size_, fresh);
    delete[] heap_;
    heap_ = fresh;
    capacity_ = cap;
  }
  constexpr void assign(const I* values, std::size_t count) {
    size_ = 0;
    if (count > capacity()) grow(count);
    std::copy(values, values + count, data());
    size_ = count;
  }
  // The copies' heap path, out of line as grow: the copies are inlined into every view op, which
  // this path would make too large to inline in turn.
  [[gnu::noinline]] constexpr void assign_from(const AxisVector& other) {
    assign(other.data(), other.size_);
  }
  constexpr void steal(AxisVector& other) noexcept {
    size_ = other.size_;
    if (other.heap_ != nullptr) {
      heap_ = other.heap_;
      capacity_ = other.capacity_;
      other.heap_ = nullptr;
      other.capacity_ = 0;
    } else {
      copy_inline(other);
    }
    other.size_ = 0;
  }
  constexpr void copy_inline(const AxisVector& other) noexcept { inline_ = other.inline_; }
  constexpr void release() noexcept {
    delete[] heap_;
    heap_ = nullptr;
    capacity_ = 0;
  }

  // At a 16-byte boundary, where the copies' 16-byte moves start: copying the inline entries is
  // most of what a view op costs (docs/views.md#cost).
  alignas(16) std::array<I, Inline> inline_{};
  I* heap_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
};

namespace detail {

/// How append_list writes a list. The defaults give `[a, b, c]`.
struct ListStyle {
  const char* separator = ", ";                      ///< `","` for compact JSON
  std::size_t limit = static_cast<std::size_t>(-1);  ///< entries shown, then `, ...`
  const char* max_value_text = nullptr;  ///< if set, written for SIZE_MAX (reshape's `infer`)
};

/// Appends `[e0, e1, ...]` of `count` entries, entry k written by `write(out, k)`, called in order
/// k = 0, 1, ... for the entries shown (max_value_text is append_list's alone): the one frame
/// every message and printer writes a list in, whether of sizes or of element values.
template <class Write>
void append_list_of(std::string& out, std::size_t count, Write&& write,
                    const ListStyle& style = {}) {
  out += '[';
  for (std::size_t k = 0; k < count && k < style.limit; ++k) {
    if (k != 0) out += style.separator;
    write(out, k);
  }
  if (count > style.limit) out += ", ...";
  out += ']';
}

/// Appends `[a, b, c]`: a list of sizes or strides.
template <class I>
void append_list(std::string& out, std::span<const I> values, const ListStyle& style = {}) {
  append_list_of(
      out, values.size(),
      [&](std::string& text, std::size_t k) {
        if (style.max_value_text != nullptr && values[k] == static_cast<I>(-1))
          text += style.max_value_text;
        else
          text += std::to_string(values[k]);
      },
      style);
}

}  // namespace detail

/// `std::cout << t.shape()` writes `[8, 3, 3, 3]`. A template over the stream so that this header
/// needs only `<iosfwd>`; a width set with std::setw pads the whole text.
template <class Traits, class I, std::size_t N>
std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os,
                                             const AxisVector<I, N>& values) {
  std::string text;
  detail::append_list(text, std::span<const I>(values.data(), values.size()));
  return os << text;
}

/// The size of each axis, outermost first.
using Shape = AxisVector<std::size_t>;

/// The step, in elements (not bytes), between neighbours along each axis. Signed: zero for
/// broadcast axes, negative for reversed ones.
using Strides = AxisVector<std::ptrdiff_t>;

/// The lowest and highest storage index a shape and strides reach, relative to the offset:
/// `Layout::reach()`. Both 0 for a layout with one element or none.
struct Reach {
  std::ptrdiff_t low = 0;   ///< sum of (size - 1) * stride over the negative strides
  std::ptrdiff_t high = 0;  ///< sum of (size - 1) * stride over the positive strides

  /// Both bounds equal.
  friend constexpr bool operator==(const Reach&, const Reach&) noexcept = default;
};

/// `[8, 3, 3, 3]` for a Shape, `[9, 3, -1]` for Strides: what `std::cout << shape` and
/// `fmt::format("{}", shape)` write.
template <class I, std::size_t N>
std::string to_string(const AxisVector<I, N>& values) {
  std::string text;
  detail::append_list(text, std::span<const I>(values.data(), values.size()));
  return text;
}

}  // namespace strided
