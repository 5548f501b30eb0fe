//===- JSONTest.cpp - Parsing JSON with one-line errors -------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/support/JSON.h"

#include "../TestHelpers.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace irtk::support;

namespace {

std::string errorOf(StringRef Text, StringRef Name = "f.json",
                    unsigned FirstLine = 1) {
  Expected<json::Value> V = parseJSON(Text, Name, FirstLine);
  if (V)
    return "(parsed)";
  return toString(V.takeError());
}

TEST(JSONTest, ParsesValidDocuments) {
  Expected<json::Value> V =
      parseJSON("{\"a\": [1, {\"b\": \"[{\\\"\"}], \"c\": {}}", "f.json");
  IRTK_ASSERT_OK(V);
  ASSERT_NE(V->getAsObject(), nullptr);
  EXPECT_EQ(V->getAsObject()->size(), 2u);
}

TEST(JSONTest, SyntaxErrorHasLineAndColumn) {
  EXPECT_EQ(errorOf("{\n  \"a\": ]\n}"), "f.json:2:8: invalid JSON: "
                                         "Invalid JSON value");
  // One line of a JSON-lines file: its line number in the file.
  EXPECT_EQ(errorOf("{\"a\": ] }", "i.jsonl", 7),
            "i.jsonl:7:7: invalid JSON: Invalid JSON value");
}

TEST(JSONTest, NestingAtTheLimitParses) {
  std::string Text =
      std::string(MaxJSONDepth, '[') + std::string(MaxJSONDepth, ']');
  IRTK_ASSERT_OK(parseJSON(Text, "f.json"));
  // Brackets in strings are not nesting.
  std::string InString = "[\"" + std::string(100000, '[') + "\"]";
  IRTK_ASSERT_OK(parseJSON(InString, "f.json"));
}

TEST(JSONTest, DeepNestingIsAnErrorNotACrash) {
  // llvm::json::parse recurses once per level: 35,000 levels overflow the
  // stack.
  std::string Text(35000, '[');
  EXPECT_EQ(errorOf(Text), "f.json:1:513: JSON nested deeper than 512 levels");
  std::string Mixed = "{\"a\":" + std::string(MaxJSONDepth, '[') + "]";
  EXPECT_EQ(errorOf(Mixed), "f.json:1:517: JSON nested deeper than 512 levels");
  std::string Closed =
      std::string(MaxJSONDepth + 1, '[') + std::string(MaxJSONDepth + 1, ']');
  EXPECT_EQ(errorOf(Closed),
            "f.json:1:513: JSON nested deeper than 512 levels");
}

TEST(JSONTest, DuplicateKeyIsAnError) {
  EXPECT_EQ(errorOf("{\"a\": 1,\n \"b\": 2,\n \"a\": 3}"),
            "f.json:3:2: duplicate key 'a'");
  // Escapes are decoded before keys are compared.
  EXPECT_EQ(errorOf("{\"Ret\": 1, \"R\\u0065t\": 2}"),
            "f.json:1:12: duplicate key 'Ret'");
  // In nested objects too.
  EXPECT_EQ(errorOf("{\"s\": {\"x\": [1], \"x\": [2]}}"),
            "f.json:1:18: duplicate key 'x'");
  // The same key in different objects, and a value equal to a key, are fine.
  IRTK_ASSERT_OK(parseJSON("{\"a\": {\"a\": \"a\"}, \"b\": [{\"a\": 1}, "
                           "{\"a\": 2}]}",
                           "f.json"));
  // A syntax error wins over a duplicate key.
  EXPECT_EQ(errorOf("{\"a\": 1, \"a\": ] }"),
            "f.json:1:15: invalid JSON: Invalid JSON value");
}

TEST(JSONTest, CheckAgreesWithParse) {
  // checkJSON's own scan handles the plain cases and leaves the rest to
  // parseJSON: either way it must fail exactly when parseJSON does, with
  // the same message.
  std::string Deep(MaxJSONDepth + 1, '[');
  std::string AtLimit =
      std::string(MaxJSONDepth, '[') + std::string(MaxJSONDepth, ']');
  const char *Texts[] = {
      // Valid.
      "{}", "[]", "0", "-0", "12", "-1.5e+3", "1E5", "0.25", "\"s\"", "true",
      "false", "null", " \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } } \n",
      "{\"row\":0,\"module\":\"m.bc\",\"inst\":\"%x = \\\"q\\\" \\\\ \\/ "
      "\\b\\f\\n\\r\\t\\u00e9\"}",
      "{\"k\\u0041\": 1, \"kB\": 2}", "[\"\\ud800\"]", "\"\xc3\xa9\"",
      // llvm::json takes numbers that JSON does not have.
      "01", "+1", ".5", "1.", "-", "1e", "1e+", "--1", "1.2.3", "0x10",
      "18446744073709551616", "1e400",
      // Invalid.
      "", " ", "{", "[1,]", "[1 2]", "{\"a\"}", "{\"a\":}", "{a:1}",
      "{\"a\":1,}", "{\"a\":1 \"b\":2}", "[1]]", "[1] x", "nul", "tru", "nulll",
      "\"unterminated", "\"ctl\x01\"", "\"bad \\x escape\"", "\"bad \\u12G4\"",
      "\"\xff\"", "{\"a\":1,\"a\":2}", "{\"a\":{\"b\":1},\"b\":2,\"a\":3}",
      "{\"a\\u0041\":1,\"aA\":2}", "[1,{\"x\":[true,false,null]}]"};
  std::vector<std::string> All(std::begin(Texts), std::end(Texts));
  All.push_back(Deep);
  All.push_back(AtLimit);
  // Many keys: past what the scan compares itself.
  std::string Many = "{";
  for (int I = 0; I < 100; ++I)
    Many +=
        (I ? ",\"k" : "\"k") + std::to_string(I) + "\":" + std::to_string(I);
  All.push_back(Many + "}");
  All.push_back(Many + ",\"k7\":1}");
  for (const std::string &T : All) {
    Expected<json::Value> V = parseJSON(T, "f.jsonl", 3);
    std::string Want = V ? "ok" : toString(V.takeError());
    Error E = checkJSON(T, "f.jsonl", 3);
    std::string Got = E ? toString(std::move(E)) : "ok";
    EXPECT_EQ(Got, Want) << "text: " << T;
  }
}

} // namespace
