// Triton's pytorch backend naming rules, as inferscope_stub/torch_runner.py applies them:
// - inputs: when every config input name is an argument of forward(), by argument name; else when every
//   name is <name>__<index>, by that index; else in config order;
// - outputs: <name>__<index> is that position in forward()'s returned tuple; otherwise config order.
#pragma once
#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace naming {

/** The <index> of <name>__<index> (at least one character before "__"), if the name has that form. */
inline std::optional<size_t> indexed(const std::string& name) {
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  if (digits == name.size() || digits < 3 || name.compare(digits - 2, 2, "__") != 0) return std::nullopt;
  size_t value = 0;
  for (size_t i = digits; i < name.size(); ++i) {
    const size_t d = static_cast<size_t>(name[i] - '0');
    if (value > (std::numeric_limits<size_t>::max() - d) / 10) return std::numeric_limits<size_t>::max();
    value = value * 10 + d;
  }
  return value;
}

inline bool allIndexed(const std::vector<std::string>& names) {
  return !names.empty() && std::all_of(names.begin(), names.end(), [](const std::string& n) { return indexed(n).has_value(); });
}

inline std::map<std::string, size_t> byOrder(const std::vector<std::string>& names) {
  std::map<std::string, size_t> pos;
  for (size_t i = 0; i < names.size(); ++i) pos[names[i]] = i;
  return pos;
}

inline std::map<std::string, size_t> outputPositions(const std::vector<std::string>& names) {
  if (!allIndexed(names)) return byOrder(names);
  std::map<std::string, size_t> pos;
  for (const std::string& n : names) pos[n] = *indexed(n);
  return pos;
}

inline std::map<std::string, size_t> inputPositions(const std::vector<std::string>& names, const std::vector<std::string>& args) {
  const auto isArg = [&](const std::string& n) { return std::find(args.begin(), args.end(), n) != args.end(); };
  if (!names.empty() && std::all_of(names.begin(), names.end(), isArg)) {
    std::map<std::string, size_t> pos;
    for (const std::string& n : names) pos[n] = static_cast<size_t>(std::find(args.begin(), args.end(), n) - args.begin());
    return pos;
  }
  return outputPositions(names);
}

inline std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace naming
