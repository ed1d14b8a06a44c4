// The JSON of the stub frames' headers (apps/server/src/backends/stub/protocol.ts): a value tree, a strict
// parser (RFC 8259; the server writes these with JSON.stringify, but a model config carries whatever text
// its author wrote, so every escape and surrogate pair is handled), and a writer for the answers.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace json {

struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Value> items;
  std::map<std::string, Value> fields;

  const Value* get(const std::string& key) const {
    if (kind != Object) return nullptr;
    auto it = fields.find(key);
    return it == fields.end() ? nullptr : &it->second;
  }
  std::string str(const std::string& key, const std::string& fallback = "") const {
    const Value* v = get(key);
    return v && v->kind == String ? v->text : fallback;
  }
  double num(const std::string& key, double fallback = 0) const {
    const Value* v = get(key);
    return v && v->kind == Number ? v->number : fallback;
  }
  bool flag(const std::string& key, bool fallback = false) const {
    const Value* v = get(key);
    return v && v->kind == Bool ? v->boolean : fallback;
  }
  const std::vector<Value>& list(const std::string& key) const {
    static const std::vector<Value> none;
    const Value* v = get(key);
    return v && v->kind == Array ? v->items : none;
  }
};

class Parser {
 public:
  Parser(const char* begin, const char* end) : p_(begin), end_(end) {}

  Value document() {
    Value v = value(0);
    space();
    if (p_ != end_) fail("text after the value");
    return v;
  }

 private:
  // deeper than any header the server writes; bounds the recursion on a hostile config
  static constexpr int MAX_DEPTH = 200;
  const char* p_;
  const char* end_;

  [[noreturn]] void fail(const char* what) { throw std::runtime_error(std::string("malformed JSON header: ") + what); }
  void space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool literal(const char* word) {
    const char* q = p_;
    for (; *word; ++word, ++q)
      if (q == end_ || *q != *word) return false;
    p_ = q;
    return true;
  }

  Value value(int depth) {
    if (depth > MAX_DEPTH) fail("nested too deep");
    space();
    if (p_ == end_) fail("unexpected end");
    Value v;
    switch (*p_) {
      case '{': {
        v.kind = Value::Object;
        ++p_;
        space();
        if (p_ != end_ && *p_ == '}') return ++p_, v;
        for (;;) {
          space();
          if (p_ == end_ || *p_ != '"') fail("expected a key");
          std::string key = string();
          space();
          if (p_ == end_ || *p_++ != ':') fail("expected ':'");
          v.fields[key] = value(depth + 1);
          space();
          if (p_ == end_) fail("unexpected end");
          if (*p_ == ',') { ++p_; continue; }
          if (*p_++ == '}') return v;
          fail("expected ',' or '}'");
        }
      }
      case '[': {
        v.kind = Value::Array;
        ++p_;
        space();
        if (p_ != end_ && *p_ == ']') return ++p_, v;
        for (;;) {
          v.items.push_back(value(depth + 1));
          space();
          if (p_ == end_) fail("unexpected end");
          if (*p_ == ',') { ++p_; continue; }
          if (*p_++ == ']') return v;
          fail("expected ',' or ']'");
        }
      }
      case '"':
        v.kind = Value::String;
        v.text = string();
        return v;
      default:
        if (literal("true")) { v.kind = Value::Bool; v.boolean = true; return v; }
        if (literal("false")) { v.kind = Value::Bool; return v; }
        if (literal("null")) return v;
        return number();
    }
  }

  Value number() {
    const char* start = p_;
    if (p_ != end_ && *p_ == '-') ++p_;
    while (p_ != end_ && ((*p_ >= '0' && *p_ <= '9') || *p_ == '.' || *p_ == 'e' || *p_ == 'E' || *p_ == '+' || *p_ == '-')) ++p_;
    if (p_ == start) fail("unexpected character");
    std::string digits(start, p_);
    char* stop = nullptr;
    Value v;
    v.kind = Value::Number;
    v.number = std::strtod(digits.c_str(), &stop);
    if (stop != digits.c_str() + digits.size()) fail("bad number");
    return v;
  }

  unsigned hex4() {
    if (end_ - p_ < 4) fail("short \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i, ++p_) {
      const char c = *p_;
      code <<= 4;
      if (c >= '0' && c <= '9') code |= c - '0';
      else if (c >= 'a' && c <= 'f') code |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') code |= c - 'A' + 10;
      else fail("bad \\u escape");
    }
    return code;
  }

  static void utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::string string() {
    ++p_;  // the opening quote
    std::string out;
    for (;;) {
      if (p_ == end_) fail("unterminated string");
      const char c = *p_++;
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') { out += c; continue; }
      if (p_ == end_) fail("unterminated escape");
      switch (*p_++) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned code = hex4();
          if (code >= 0xD800 && code < 0xDC00 && end_ - p_ >= 6 && p_[0] == '\\' && p_[1] == 'u') {
            p_ += 2;
            const unsigned low = hex4();
            if (low >= 0xDC00 && low < 0xE000) code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            else { utf8(out, 0xFFFD); code = low; }
          }
          // a lone surrogate cannot be UTF-8: JSON.parse keeps it, we mark it
          utf8(out, code >= 0xD800 && code < 0xE000 ? 0xFFFD : code);
          break;
        }
        default: fail("unknown escape");
      }
    }
  }
};

inline Value parse(const char* begin, const char* end) { return Parser(begin, end).document(); }

/** `text` as a JSON string literal (quotes included). Bytes >= 0x80 pass through: the text is UTF-8. */
inline std::string quote(const std::string& text) {
  static const char* HEX = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20) { out += "\\u00"; out += HEX[c >> 4]; out += HEX[c & 15]; }
    else out += static_cast<char>(c);
  }
  return out + "\"";
}

}  // namespace json
