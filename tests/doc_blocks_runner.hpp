// The main() of a page's generated translation unit (tests/doc_blocks.py): runs each `main` /
// `program` block of the page with std::cout captured, and compares what it printed with the
// page's `<!-- output -->` block when there is one.
#pragma once

#include <cstdio>
#include <iostream>
#include <span>
#include <sstream>
#include <streambuf>
#include <string>

namespace doc_blocks {

struct Block {
  const char* where;     // page:line of the block
  int (*run)();          // nullptr: a library it needs was not found
  const char* expected;  // the page's output block, or nullptr when the page shows none
  const char* needs;     // third-party libraries, for the skip message
};

// Restores std::cout's buffer even when a block throws.
class CaptureCout {
 public:
  CaptureCout() : saved_(std::cout.rdbuf(captured_.rdbuf())) {}
  ~CaptureCout() { std::cout.rdbuf(saved_); }
  CaptureCout(const CaptureCout&) = delete;
  CaptureCout& operator=(const CaptureCout&) = delete;
  std::string text() const { return captured_.str(); }

 private:
  std::ostringstream captured_;
  std::streambuf* saved_;
};

inline bool run_one(const Block& block) {
  if (block.run == nullptr) {
    std::printf("SKIPPED %s: needs %s\n", block.where, block.needs);
    return true;
  }
  int status = 0;
  std::string printed;
  {
    const CaptureCout capture;
    status = block.run();
    printed = capture.text();
  }
  if (status != 0) {
    std::printf("FAILED %s: returned %d after printing:\n%s\n", block.where, status,
                printed.c_str());
    return false;
  }
  if (block.expected != nullptr && printed != block.expected) {
    std::printf(
        "FAILED %s: the page's output block is stale. The block prints:\n%s\n"
        "The page shows:\n%s\n",
        block.where, printed.c_str(), block.expected);
    return false;
  }
  std::printf("ok %s%s\n", block.where, block.expected != nullptr ? " (output compared)" : "");
  return true;
}

inline int run_all(std::span<const Block> blocks) {
  int failed = 0;
  for (const Block& block : blocks) failed += run_one(block) ? 0 : 1;
  return failed == 0 ? 0 : 1;
}

}  // namespace doc_blocks
