// A small JSON tree for the safetensors header, built through nlohmann's SAX parser.
//
// Why not nlohmann::json itself: its destructor flattens a non-empty array or object into a
// freshly allocated std::vector, so running out of memory while a document is destroyed (for
// instance while a std::bad_alloc unwinds the parser) calls std::terminate. These nodes use
// plain std::map / std::vector, whose destructors never allocate; nesting is capped so that their
// recursive destruction stays shallow. Scalars are kept as nlohmann::json values (a scalar's
// destructor allocates nothing), so numbers and strings print exactly as nlohmann prints them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace strided::detail {

class JsonNode {
 public:
  using Json = nlohmann::json;
  enum class Kind { scalar, array, object };

  /// Deepest nesting accepted (a safetensors header needs 3).
  static constexpr std::size_t max_depth = 64;

  bool is_object() const noexcept { return kind_ == Kind::object; }
  bool is_array() const noexcept { return kind_ == Kind::array; }
  bool is_string() const noexcept { return kind_ == Kind::scalar && scalar_.is_string(); }
  bool is_number_unsigned() const noexcept {
    return kind_ == Kind::scalar && scalar_.is_number_unsigned();
  }
  const std::string& string() const { return scalar_.get_ref<const std::string&>(); }
  std::uint64_t unsigned_value() const { return scalar_.get<std::uint64_t>(); }

  /// Array elements in order.
  const std::vector<JsonNode>& items() const noexcept { return items_; }
  /// Object members by key (nlohmann's order: sorted).
  const std::map<std::string, JsonNode>& fields() const noexcept { return fields_; }
  /// Member `key`, or nullptr.
  const JsonNode* find(const std::string& key) const {
    const auto it = fields_.find(key);
    return it == fields_.end() ? nullptr : &it->second;
  }

  /// Compact text, as nlohmann::json::dump() prints the same value.
  std::string dump() const {
    if (kind_ == Kind::scalar) return scalar_.dump();
    std::string out(1, kind_ == Kind::array ? '[' : '{');
    bool first = true;
    for (const JsonNode& item : items_) {
      if (!std::exchange(first, false)) out += ',';
      out += item.dump();
    }
    for (const auto& [key, value] : fields_) {
      if (!std::exchange(first, false)) out += ',';
      out += Json(key).dump() + ':' + value.dump();
    }
    out += kind_ == Kind::array ? ']' : '}';
    return out;
  }

 private:
  friend class JsonTreeBuilder;
  Kind kind_ = Kind::scalar;
  Json scalar_;
  std::vector<JsonNode> items_;
  std::map<std::string, JsonNode> fields_;
};

/// The outcome of parse_json_tree: a tree, or why there is none.
struct JsonParse {
  enum class Status { ok, syntax_error, duplicate_key, too_deep };
  Status status = Status::ok;
  JsonNode root;
  std::string duplicate;  ///< the first key found twice in one object
};

/// nlohmann's SAX interface (names and signatures fixed by nlohmann::json_sax).
class JsonTreeBuilder {
 public:
  using Json = nlohmann::json;
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  explicit JsonTreeBuilder(JsonParse& out) : out_(out) {}

  bool null() { return put(Json(nullptr)); }
  bool boolean(bool v) { return put(Json(v)); }
  bool number_integer(number_integer_t v) { return put(Json(v)); }
  bool number_unsigned(number_unsigned_t v) { return put(Json(v)); }
  bool number_float(number_float_t v, const string_t&) { return put(Json(v)); }
  bool string(string_t& v) { return put(Json(std::move(v))); }
  bool binary(binary_t&) { return put(Json(nullptr)); }  // JSON text has no binary values
  bool start_object(std::size_t) { return open(JsonNode::Kind::object); }
  bool start_array(std::size_t) { return open(JsonNode::Kind::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(string_t& k) {
    if (skip_depth_ > 0) return true;
    if (stack_.back()->fields_.count(k) != 0) {
      if (out_.duplicate.empty()) out_.duplicate = k;
      skip_next_ = true;  // the repeated member's value is parsed (for syntax) but not stored
      return true;
    }
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    out_.status = JsonParse::Status::syntax_error;
    return false;
  }

 private:
  // Where the next value goes; nullptr while a repeated member's value is skipped.
  JsonNode* slot() {
    if (skip_depth_ > 0 || std::exchange(skip_next_, false)) return nullptr;
    if (stack_.empty()) return &out_.root;
    JsonNode& parent = *stack_.back();
    if (parent.kind_ == JsonNode::Kind::array) return &parent.items_.emplace_back();
    return &parent.fields_[key_];
  }
  bool put(Json v) {
    if (JsonNode* node = slot()) node->scalar_ = std::move(v);
    return true;
  }
  bool open(JsonNode::Kind kind) {
    if (stack_.size() + skip_depth_ >= JsonNode::max_depth) {
      out_.status = JsonParse::Status::too_deep;
      return false;
    }
    JsonNode* node = slot();
    if (node == nullptr) {
      ++skip_depth_;
      return true;
    }
    node->kind_ = kind;
    stack_.push_back(node);
    return true;
  }
  bool close() {
    if (skip_depth_ > 0)
      --skip_depth_;
    else
      stack_.pop_back();
    return true;
  }

  JsonParse& out_;
  std::vector<JsonNode*> stack_;  // the open containers being filled
  std::string key_;               // the member the next value belongs to
  bool skip_next_ = false;
  std::size_t skip_depth_ = 0;  // > 0: inside a skipped value
};

/// Parses `text` (one JSON value, surrounding whitespace allowed). Memory exhaustion throws
/// std::bad_alloc and leaves nothing that allocates while it is destroyed.
inline JsonParse parse_json_tree(std::string_view text) {
  JsonParse out;
  JsonTreeBuilder builder(out);
  const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
  if (!ok && out.status == JsonParse::Status::ok) out.status = JsonParse::Status::syntax_error;
  if (ok && !out.duplicate.empty()) out.status = JsonParse::Status::duplicate_key;
  return out;
}

}  // namespace strided::detail
