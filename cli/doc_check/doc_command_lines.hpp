#pragma once
// The mlacheck command lines the docs show, for the CI check that each still parses
// (doc_commands_main.cpp): README.md, docs/*.md and scenarios/README.md code blocks (fenced or
// indented) and every line of the docs' example pipelines (docs/examples/*.yml). Prose and inline
// code are left alone: a synopsis such as `run [--out DIR]` is not a command line.
#include <string>
#include <vector>

namespace mlacheck::doc_check {

struct DocCommand {
  std::string where;               // "docs/ci.md:116"
  std::string text;                // the command as written, from "mlacheck" to its end
  std::vector<std::string> args;   // its arguments after "mlacheck", placeholders filled in
};

// The command lines in `text` (the contents of `file`, a .md or .yml/.yaml file). A command starts
// at the word mlacheck (after a path such as ./build/cli/) followed by a subcommand or an option,
// and ends at the line's end (backslash continuations joined), an unquoted shell operator
// (&&, ||, |, ;, >, <, ), #), or the closing quote of a string it sits in. Placeholders become
// values that parse: ${{ ... }}, $NAME and ${NAME} become 0, <word> becomes x.
// Throws std::invalid_argument for a command whose quotes do not close.
std::vector<DocCommand> doc_commands(const std::string& file, const std::string& text);

// A synopsis in a Markdown table's first cell (README.md's command table), such as
// `mlacheck run [--out DIR] [--resume \| --force]`: not a command line, but its subcommand and
// option names must exist (doc_commands_main.cpp checks them against `mlacheck <sub> --help`).
struct DocSynopsis {
  std::string where;
  std::string subcommand;            // "run"
  std::vector<std::string> options;  // "--out", "--resume", "--force"
};
std::vector<DocSynopsis> doc_synopses(const std::string& file, const std::string& text);

// Words of a shell command line: whitespace splits, '...' and "..." group, backslash escapes.
// Throws std::invalid_argument for an unclosed quote.
std::vector<std::string> shell_words(const std::string& line);

}  // namespace mlacheck::doc_check
