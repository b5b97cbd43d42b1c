#pragma once
// A small start-tag scanner for checking report.html in tests: enough to find sections by id and
// count elements between two offsets, without a browser or an HTML library.
#include <cctype>
#include <map>
#include <string>
#include <vector>

namespace mlacheck::test {

struct Tag {
  std::string name;  // lower case; "/tr" for an end tag
  std::map<std::string, std::string> attrs;
  std::size_t pos = 0;
};

inline std::vector<Tag> scan_tags(const std::string& html) {
  std::vector<Tag> tags;
  std::size_t i = 0;
  while ((i = html.find('<', i)) != std::string::npos) {
    Tag t;
    t.pos = i++;
    if (html.compare(i, 1, "!") == 0) {  // doctype or comment
      i = html.find('>', i);
      continue;
    }
    while (i < html.size() && (std::isalnum(static_cast<unsigned char>(html[i])) || html[i] == '/' || html[i] == '-')) {
      t.name += static_cast<char>(std::tolower(static_cast<unsigned char>(html[i++])));
    }
    while (i < html.size() && html[i] != '>') {
      if (std::isspace(static_cast<unsigned char>(html[i])) || html[i] == '/') {
        ++i;
        continue;
      }
      std::string key;
      while (i < html.size() && html[i] != '=' && html[i] != '>' && !std::isspace(static_cast<unsigned char>(html[i]))) key += html[i++];
      std::string value;
      if (i < html.size() && html[i] == '=') {
        const char quote = html[++i];
        const std::size_t end = html.find(quote, i + 1);
        value = html.substr(i + 1, end - i - 1);
        i = end + 1;
      }
      t.attrs[key] = value;
    }
    if (t.name == "style") i = html.find("</style>", i);
    tags.push_back(std::move(t));
  }
  return tags;
}

// The tags inside the element that starts with the tag carrying id="id" (sections do not nest).
inline std::vector<Tag> tags_in_section(const std::vector<Tag>& tags, const std::string& id) {
  std::vector<Tag> out;
  bool inside = false;
  for (const Tag& t : tags) {
    if (!inside && t.name == "section" && t.attrs.count("id") && t.attrs.at("id") == id) {
      inside = true;
      continue;
    }
    if (inside && t.name == "/section") break;
    if (inside) out.push_back(t);
  }
  return out;
}

inline std::size_t count_named(const std::vector<Tag>& tags, const std::string& name) {
  std::size_t n = 0;
  for (const Tag& t : tags) n += t.name == name;
  return n;
}

}  // namespace mlacheck::test
