// detail/io/json_tree.hpp: the safetensors header's JSON tree, built through nlohmann's SAX
// parser. Checked against nlohmann's own DOM (same structure, same printed text).
#include <nlohmann/json.hpp>
#include <string>

#include "catch_shim.hpp"
#include "strided/detail/io/json_tree.hpp"
#include "strided/io/safetensors.hpp"

using strided::detail::JsonNode;
using strided::detail::JsonParse;
using strided::detail::parse_json_tree;

namespace {

std::string nested(std::size_t arrays) {
  return "{\"a\":" + std::string(arrays, '[') + std::string(arrays, ']') + "}";
}

}  // namespace

TEST_CASE("json tree: structure and text equal nlohmann's DOM", "[safetensors][json]") {
  const char* documents[] = {
      R"({"a":{"x":[1,2,{"y":null}]},"b":"s"})",
      R"({"n":[-7,0,18446744073709551615,1.5,-0.0,1e300,2.5e-308,true,false]})",
      R"({"s":"\u00e9\u0001\"\\/ tab\t","z":{},"e":[],"k":{"b":1,"a":2}})",
      R"(  {"w":{"dtype":"F32","shape":[3,4],"data_offsets":[0,48]}}   )",
  };
  for (const char* text : documents) {
    INFO(text);
    const JsonParse parsed = parse_json_tree(text);
    REQUIRE(parsed.status == JsonParse::Status::ok);
    CHECK(parsed.root.is_object());
    CHECK(parsed.root.dump() == nlohmann::json::parse(text).dump());
  }
  const JsonParse parsed = parse_json_tree(documents[0]);
  const JsonNode* a = parsed.root.find("a");
  REQUIRE(a != nullptr);
  REQUIRE(a->find("x") != nullptr);
  CHECK(a->find("x")->items().size() == 3);
  CHECK(a->find("x")->items()[1].is_number_unsigned());
  CHECK(a->find("x")->items()[1].unsigned_value() == 2);
  CHECK(parsed.root.find("b")->string() == "s");
  CHECK(parsed.root.find("missing") == nullptr);
}

TEST_CASE("json tree: syntax errors, duplicate keys at any depth, nesting limit",
          "[safetensors][json]") {
  CHECK(parse_json_tree("{\"a\":1,").status == JsonParse::Status::syntax_error);
  CHECK(parse_json_tree("").status == JsonParse::Status::syntax_error);
  CHECK(parse_json_tree("{} {}").status == JsonParse::Status::syntax_error);
  // The first repeated key is named; the repeated member's value is parsed but not stored, and
  // duplicates nested inside it are skipped safely.
  const JsonParse dup = parse_json_tree(R"({"a":{"k":1,"k":{"z":[1,{"k":2,"k":3}]}},"b":2})");
  CHECK(dup.status == JsonParse::Status::duplicate_key);
  CHECK(dup.duplicate == "k");
  // A syntax error wins over a duplicate, as it did with nlohmann's DOM parser.
  CHECK(parse_json_tree(R"({"a":1,"a":2,)").status == JsonParse::Status::syntax_error);
  CHECK(parse_json_tree(nested(JsonNode::max_depth - 1)).status == JsonParse::Status::ok);
  CHECK(parse_json_tree(nested(JsonNode::max_depth)).status == JsonParse::Status::too_deep);
  CHECK(parse_json_tree(nested(100000)).status == JsonParse::Status::too_deep);
}

TEST_CASE("safetensors: a header nested too deeply is malformed_header", "[safetensors][json]") {
  const std::string text = nested(200);
  std::vector<std::byte> file(8 + text.size());
  for (std::size_t i = 0; i < 8; ++i)
    file[i] = static_cast<std::byte>((text.size() >> (8 * i)) & 0xff);
  for (std::size_t i = 0; i < text.size(); ++i) file[8 + i] = static_cast<std::byte>(text[i]);
  const auto r = strided::parse_safetensors_header(file);
  REQUIRE(!r);
  CHECK(r.error().kind() == strided::IoErrorKind::malformed_header);
  CHECK(r.error().message() ==
        "parse_safetensors_header: <memory>: the header nests deeper than 64 levels");
}
