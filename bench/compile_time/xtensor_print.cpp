// Compile-time peer: a 2 x 3 xtensor array printed.
#include <iostream>
#include <xtensor/xarray.hpp>
#include <xtensor/xio.hpp>

int main() {
  xt::xarray<float> a = {{1, 2, 3}, {4, 5, 6}};
  std::cout << a << "\n";
}
