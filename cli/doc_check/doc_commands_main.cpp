// mlacheck_doc_commands <mlacheck> <source dir>: runs every mlacheck command line of the docs
// (doc_command_lines.hpp) through `mlacheck --parse-only`, so a renamed or dropped option or
// subcommand fails CI instead of a reader. `mlacheck devices` runs for real (it is cheap). Prints
// each command with its file and line; exit status 1 when any fails, 2 when the docs cannot be read.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/doc_check/doc_command_lines.hpp"

namespace {

namespace fs = std::filesystem;
using mlacheck::doc_check::DocCommand;

std::vector<fs::path> doc_files(const fs::path& src) {
  std::vector<fs::path> files = {src / "README.md", src / "scenarios" / "README.md"};
  for (const auto& dir : {src / "docs", src / "docs" / "examples"}) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext == ".md" || ext == ".yml" || ext == ".yaml") files.push_back(entry.path());
    }
  }
  return files;
}

struct Ran {
  int status = 0;
  std::string output;  // stdout and stderr
};

// `mlacheck args...`, its exit status and output.
Ran run(const std::string& mlacheck, std::vector<std::string> args) {
  args.insert(args.begin(), mlacheck);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe(fds) != 0) return {125, "pipe failed"};
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[0]);
    ::execv(mlacheck.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  Ran out;
  char chunk[4096];
  for (ssize_t n; (n = ::read(fds[0], chunk, sizeof chunk)) > 0;) out.output.append(chunk, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

// A command line parses: `mlacheck --parse-only args...` (`mlacheck devices` runs for real).
bool parses(const std::string& mlacheck, const DocCommand& c) {
  std::vector<std::string> args = c.args;
  if (!(args.size() == 1 && args[0] == "devices")) args.insert(args.begin(), "--parse-only");
  const Ran r = run(mlacheck, args);
  std::printf("%s %s: %s\n", r.status == 0 ? "ok  " : "FAIL", c.where.c_str(), c.text.c_str());
  if (r.status != 0) std::printf("     exit status %d: %s\n", r.status, r.output.c_str());
  return r.status == 0;
}

// A synopsis names a subcommand and options that `mlacheck <sub> --help` lists.
bool names_what_exists(const std::string& mlacheck, const mlacheck::doc_check::DocSynopsis& s) {
  const Ran help = run(mlacheck, {s.subcommand, "--help"});
  std::string missing;
  for (const std::string& o : s.options) {
    const std::size_t at = help.output.find(o);
    const bool whole = at != std::string::npos &&
                       (at + o.size() == help.output.size() || std::string(" ,=\n").find(help.output[at + o.size()]) != std::string::npos);
    if (!whole) missing += " " + o;
  }
  // CLI11 answers --help after an unknown word with the program's own help: a subcommand's help
  // has its name in the usage line.
  const bool exists = help.status == 0 && help.output.find("mlacheck " + s.subcommand + " [OPTIONS]") != std::string::npos;
  const bool ok = exists && missing.empty();
  std::printf("%s %s: synopsis of mlacheck %s\n", ok ? "ok  " : "FAIL", s.where.c_str(), s.subcommand.c_str());
  if (!exists) std::printf("     no subcommand '%s'\n", s.subcommand.c_str());
  if (!missing.empty()) std::printf("     not an option of mlacheck %s:%s\n", s.subcommand.c_str(), missing.c_str());
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <mlacheck> <source dir>\n", argv[0]);
    return 2;
  }
  const std::string mlacheck = argv[1];
  const fs::path src = argv[2];
  std::vector<DocCommand> commands;
  std::vector<mlacheck::doc_check::DocSynopsis> synopses;
  try {
    for (const fs::path& f : doc_files(src)) {
      std::ifstream in(f);
      std::ostringstream text;
      text << in.rdbuf();
      const std::string name = fs::relative(f, src).string();
      for (DocCommand& c : mlacheck::doc_check::doc_commands(name, text.str())) commands.push_back(std::move(c));
      for (auto& s : mlacheck::doc_check::doc_synopses(name, text.str())) synopses.push_back(std::move(s));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mlacheck_doc_commands: %s\n", e.what());
    return 2;
  }
  int failed = 0;
  for (const DocCommand& c : commands) failed += parses(mlacheck, c) ? 0 : 1;
  for (const auto& s : synopses) failed += names_what_exists(mlacheck, s) ? 0 : 1;
  std::printf("%zu command lines and %zu synopses from the docs, %d failed\n", commands.size(), synopses.size(), failed);
  return commands.empty() || synopses.empty() || failed > 0 ? 1 : 0;
}
