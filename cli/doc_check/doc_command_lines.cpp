#include "cli/doc_check/doc_command_lines.hpp"

#include <cctype>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace mlacheck::doc_check {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

struct CodeLine {
  int number = 0;
  std::string text;
};

// Code lines with backslash continuations joined onto the line that starts them.
std::vector<CodeLine> code_lines(const std::string& file, const std::string& text) {
  const bool yaml = ends_with(file, ".yml") || ends_with(file, ".yaml");
  std::vector<CodeLine> out;
  std::istringstream in(text);
  bool fenced = false, continuing = false;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const bool fence = !yaml && line.rfind("```", 0) == 0;
    if (fence) {
      fenced = !fenced;
      continuing = false;
      continue;
    }
    const bool indented = line.rfind("    ", 0) == 0 || line.rfind("\t", 0) == 0;
    if (!(yaml || fenced || indented)) {
      continuing = false;
      continue;
    }
    if (continuing) {
      out.back().text += " " + line;
    } else {
      out.push_back({number, line});
    }
    continuing = ends_with(out.back().text, "\\");
    if (continuing) out.back().text.pop_back();
  }
  return out;
}

// Placeholders of the docs, made into values the parser takes.
std::string fill_placeholders(std::string s) {
  s = std::regex_replace(s, std::regex(R"(\$\{\{[^}]*\}\})"), "0");
  s = std::regex_replace(s, std::regex(R"(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)"), "0");
  s = std::regex_replace(s, std::regex(R"(<[A-Za-z][A-Za-z0-9 _.-]*>)"), "x");
  return s;
}

// The command's text from `start`: up to an unquoted operator or comment, or the quote that closes
// the string it sits in (`closing`, 0 for none).
std::string command_text(const std::string& line, std::size_t start, char closing) {
  char quote = 0;
  for (std::size_t i = start; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == '\\' && quote == '"') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (closing != 0 && c == closing) return line.substr(start, i - start);
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    if (c == '&' || c == '|' || c == ';' || c == '>' || c == '<' || c == ')' || c == '`') return line.substr(start, i - start);
    if (c == '#' && i > start && std::isspace(static_cast<unsigned char>(line[i - 1]))) return line.substr(start, i - start);
  }
  if (quote != 0) throw std::invalid_argument("a quote does not close: " + line.substr(start));
  return line.substr(start);
}

// The quote a position sits inside, counting the line's quotes before it (0 when none).
char enclosing_quote(const std::string& line, std::size_t pos) {
  char quote = 0;
  for (std::size_t i = 0; i < pos; ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == '\\' && quote == '"') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '\\') {
      ++i;
    } else if (c == '"' || c == '\'') {
      quote = c;
    }
  }
  return quote;
}

// A comment that takes the rest of the line: '#' at its start or after a space, outside quotes.
std::string without_comment(const std::string& line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(line[i - 1])))) {
      return line.substr(0, i);
    }
  }
  return line;
}

}  // namespace

std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < line.size()) {
        word += line[++i];
      } else {
        word += c;
      }
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
    } else {
      word += c;
    }
  }
  if (quote != 0) throw std::invalid_argument("a quote does not close: " + line);
  if (in_word) words.push_back(word);
  return words;
}

std::vector<DocCommand> doc_commands(const std::string& file, const std::string& text) {
  // "mlacheck" as a program name: not part of a longer name (mlacheck_cli, mlacheck-report), and
  // followed by a subcommand or an option.
  static const std::regex program(R"((^|[\s/"'(\[=])mlacheck (?=[a-z-]))");
  std::vector<DocCommand> out;
  for (const CodeLine& code : code_lines(file, text)) {
    const std::string line = fill_placeholders(without_comment(code.text));
    for (auto it = std::sregex_iterator(line.begin(), line.end(), program); it != std::sregex_iterator(); ++it) {
      const std::size_t name = static_cast<std::size_t>(it->position(0) + it->length(1));
      // `python -m mlacheck ...` is the Python package's runner, whose options are its own.
      if (name >= 3 && line.compare(name - 3, 3, "-m ") == 0) continue;
      const std::size_t args = name + std::string("mlacheck ").size();
      const std::string command = command_text(line, args, enclosing_quote(line, name));
      out.push_back({file + ":" + std::to_string(code.number), "mlacheck " + command, shell_words(command)});
    }
  }
  return out;
}

std::vector<DocSynopsis> doc_synopses(const std::string& file, const std::string& text) {
  static const std::regex row(R"(^\|\s*`mlacheck ([a-z]+)([^`]*)`)");
  static const std::regex option(R"((^|[\s\[])(--[a-z][a-z-]*))");
  std::vector<DocSynopsis> out;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    DocSynopsis s{file + ":" + std::to_string(number), m[1].str(), {}};
    const std::string rest = m[2].str();
    for (auto it = std::sregex_iterator(rest.begin(), rest.end(), option); it != std::sregex_iterator(); ++it) {
      s.options.push_back((*it)[2].str());
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace mlacheck::doc_check
