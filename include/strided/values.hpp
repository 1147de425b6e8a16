// Values<T>: the elements of a strided buffer in logical (row-major) order, as a C++20
// random-access view (Tensor<T>::values()). Reading element i maps i to a storage index by
// div/mod over the axes, so any position is reachable in O(rank) and every std::ranges
// algorithm applies; the values are returned by copy (the buffer is immutable).
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <compare>
#include <cstddef>
#include <iterator>
#include <memory>
#include <ranges>
#include <utility>

#include "strided/layout.hpp"

namespace strided {

/// (Derives from view_base rather than view_interface: clang 14 checks view_interface's
/// constrained members while Values is still incomplete, and rejects it.)
template <class T>
class Values : public std::ranges::view_base {
 public:
  class iterator;

  Values() = default;
  /// The elements of `layout` in `data`, which `owner` keeps alive. The layout must lie inside
  /// the buffer (Tensor guarantees it).
  Values(std::shared_ptr<const T> owner, Layout layout)
      : owner_(std::move(owner)),
        layout_(std::move(layout)),
        size_(clamped_size(layout_.numel())),
        contiguous_(layout_.is_contiguous()) {}

  /// @name Range access
  ///@{

  /// Iterators over the elements in row-major order (size(): how many; empty(): none).
  iterator begin() const noexcept { return iterator(this, 0); }
  iterator end() const noexcept { return iterator(this, size_); }
  std::size_t size() const noexcept { return static_cast<std::size_t>(size_); }
  bool empty() const noexcept { return size_ == 0; }
  ///@}
  /// Element `i` in row-major order. Precondition: i < size().
  T operator[](std::size_t i) const noexcept { return at(static_cast<std::ptrdiff_t>(i)); }
  /// @name First and last
  ///@{

  /// The first (back(): last) element. Precondition: !empty().
  T front() const noexcept { return at(0); }
  T back() const noexcept { return at(size_ - 1); }
  ///@}

  /// Element `i` in row-major order. Precondition: i < size().
  T at(std::ptrdiff_t i) const noexcept {
    const T* data = owner_.get();
    if (contiguous_) return data[layout_.offset() + static_cast<std::size_t>(i)];
    auto pos = static_cast<std::ptrdiff_t>(layout_.offset());
    auto rest = static_cast<std::size_t>(i);
    for (std::size_t k = layout_.rank(); k-- > 0;) {  // innermost axis varies fastest
      const std::size_t extent = layout_.shape()[k];
      pos += static_cast<std::ptrdiff_t>(rest % extent) * layout_.strides()[k];
      rest /= extent;
    }
    return data[pos];
  }

  /// A random-access iterator yielding elements by value. It refers to its Values object, which
  /// must outlive it (as with any non-borrowed view).
  class iterator {
   public:
    /// @name Iterator traits
    ///@{

    /// Random access, yielding values (a C++17 input iterator).
    using iterator_concept = std::random_access_iterator_tag;
    using iterator_category = std::input_iterator_tag;  // yields prvalues: a C++17 input iterator
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    ///@}

    iterator() = default;

    /// @name Random-access iterator operations
    ///@{

    /// As for a pointer into the row-major sequence; dereferencing yields the element by value.
    T operator*() const noexcept { return view_->at(i_); }
    T operator[](difference_type n) const noexcept { return view_->at(i_ + n); }

    iterator& operator++() noexcept { return ++i_, *this; }
    iterator operator++(int) noexcept { return iterator(view_, i_++); }
    iterator& operator--() noexcept { return --i_, *this; }
    iterator operator--(int) noexcept { return iterator(view_, i_--); }
    iterator& operator+=(difference_type n) noexcept { return i_ += n, *this; }
    iterator& operator-=(difference_type n) noexcept { return i_ -= n, *this; }
    friend iterator operator+(iterator it, difference_type n) noexcept { return it += n; }
    friend iterator operator+(difference_type n, iterator it) noexcept { return it += n; }
    friend iterator operator-(iterator it, difference_type n) noexcept { return it -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
      return a.i_ - b.i_;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.i_ == b.i_; }
    friend std::strong_ordering operator<=>(const iterator& a, const iterator& b) noexcept {
      return a.i_ <=> b.i_;
    }
    ///@}

   private:
    friend class Values;
    iterator(const Values* view, difference_type i) noexcept : view_(view), i_(i) {}

    const Values* view_ = nullptr;
    difference_type i_ = 0;
  };

 private:
  // Only a broadcast can hold more than PTRDIFF_MAX elements; the range then stops there, since
  // its positions are signed.
  static std::ptrdiff_t clamped_size(std::size_t n) noexcept {
    return n > static_cast<std::size_t>(detail::max_index) ? detail::max_index
                                                           : static_cast<std::ptrdiff_t>(n);
  }

  std::shared_ptr<const T> owner_;
  Layout layout_;
  std::ptrdiff_t size_ = 0;
  bool contiguous_ = true;
};

}  // namespace strided
