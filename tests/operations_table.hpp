// Reading tests/data/operations.txt (tests/gen_operations.py): each test takes the lines of its
// operation, with a word and number reader over one line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "strided/shape.hpp"

namespace strided_test {

/// The lines of operations.txt whose first word is `op` (that word removed).
inline std::vector<std::string> operation_lines(const std::string& op) {
  std::ifstream file(STRIDED_TEST_DATA_DIR "/operations.txt");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(file, line))
    if (line.rfind(op + " ", 0) == 0) lines.push_back(line.substr(op.size() + 1));
  return lines;
}

/// Words and numbers of one table line.
class Words {
 public:
  explicit Words(const std::string& line) : in_(line) {}
  std::string word() {
    std::string w;
    in_ >> w;
    return w;
  }
  std::int64_t integer() { return std::stoll(word()); }
  std::size_t size() { return static_cast<std::size_t>(std::stoull(word())); }
  std::uint64_t bits() { return std::stoull(word()); }
  double real() { return std::strtod(word().c_str(), nullptr); }  // C hex floats too
  strided::Shape dims(std::size_t n) {
    strided::Shape s(n, 0);
    for (auto& d : s) d = size();
    return s;
  }
  strided::Strides strides(std::size_t n) {
    strided::Strides s(n, 0);
    for (auto& d : s) d = integer();
    return s;
  }
  /// The rest of the line after one space.
  std::string rest() {
    std::string r;
    std::getline(in_, r);
    return r.empty() ? r : r.substr(1);
  }

 private:
  std::istringstream in_;
};

}  // namespace strided_test
