// Finding the docs' command lines: code blocks only, every way a command sits in one, placeholders
// filled, and the end of a command found.
#include "cli/doc_check/doc_command_lines.hpp"

#include <gtest/gtest.h>

namespace mlacheck::doc_check {
namespace {

std::vector<std::vector<std::string>> args_of(const std::string& file, const std::string& text) {
  std::vector<std::vector<std::string>> out;
  for (const DocCommand& c : doc_commands(file, text)) out.push_back(c.args);
  return out;
}

using Args = std::vector<std::vector<std::string>>;

TEST(DocCommands, OnlyCodeBlocksHoldCommandLines) {
  const std::string md =
      "Prose: `mlacheck run --bogus` and mlacheck run --bogus are not checked.\n"
      "| `mlacheck run [--out DIR]` | a synopsis |\n"
      "\n"
      "```\n"
      "./build/cli/mlacheck run --seed 3\n"
      "```\n"
      "\n"
      "    mlacheck diff base.csv new.csv   # compare\n";
  EXPECT_EQ(args_of("README.md", md), (Args{{"run", "--seed", "3"}, {"diff", "base.csv", "new.csv"}}));
  const std::vector<DocCommand> found = doc_commands("README.md", md);
  EXPECT_EQ(found[0].where, "README.md:5");
  EXPECT_EQ(found[1].where, "README.md:8");
}

TEST(DocCommands, ACommandEndsAtAShellOperatorOrItsString) {
  const std::string md =
      "```\n"
      "cmake --build build && ./build/cli/mlacheck run --out r > log 2>&1 && echo done\n"
      "x=$(mlacheck devices) ; HIP_VISIBLE_DEVICES=1 mlacheck run --shard 1/8 | tee out\n"
      "```\n";
  EXPECT_EQ(args_of("a.md", md), (Args{{"run", "--out", "r"}, {"devices"}, {"run", "--shard", "1/8"}}));
  const std::string yml =
      "# mlacheck on a runner: a comment, not a command\n"
      "        args: [\"./build/cli/mlacheck run --shard auto --out /r/shard-$JOB_COMPLETION_INDEX\"]\n"
      "      - run: ./build/cli/mlacheck run --shard ${{ matrix.shard }}/4 --out shard\n"
      "      - run: ./build/cli/mlacheck merge --out m.csv \\\n"
      "          a.csv b.csv\n";
  EXPECT_EQ(args_of("x.yml", yml), (Args{{"run", "--shard", "auto", "--out", "/r/shard-0"},
                                          {"run", "--shard", "0/4", "--out", "shard"},
                                          {"merge", "--out", "m.csv", "a.csv", "b.csv"}}));
}

TEST(DocCommands, PlaceholdersAndQuotedArguments) {
  const std::string md =
      "    mlacheck run --case \"<repro>\"\n"
      "    replay alone: mlacheck run --case \"mla_decode:name=case;heads=1;...\"\n"
      "    mlacheck run --out \"reports/shard-$SLURM_ARRAY_TASK_ID\"\n";
  EXPECT_EQ(args_of("p.md", md), (Args{{"run", "--case", "x"},
                                        {"run", "--case", "mla_decode:name=case;heads=1;..."},
                                        {"run", "--out", "reports/shard-0"}}));
}

TEST(DocCommands, OtherProgramsNamedLikeItAreNotCommands) {
  const std::string md = "```\n./build/properties/gpu/mlacheck_gpu_properties\nrm -rf mlacheck-report\n```\n";
  EXPECT_TRUE(doc_commands("q.md", md).empty());
  // The Python package's runner (`python -m mlacheck`) has options of its own.
  const std::string python = "```\npython -m mlacheck run --backend m:a --plan default\npython3 -m mlacheck plan\n```\n";
  EXPECT_TRUE(doc_commands("p.md", python).empty());
}

TEST(DocSynopses, TableRowsNameASubcommandAndItsOptions) {
  const std::string md =
      "| command | what it does |\n"
      "|---|---|\n"
      "| `mlacheck run [--out DIR] [--resume \\| --force] [--shard i/n]` | the main job |\n"
      "| `mlacheck devices` | the GPUs |\n"
      "| plain `mlacheck run --x` in a later cell | not a synopsis |\n";
  const std::vector<DocSynopsis> found = doc_synopses("README.md", md);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].where, "README.md:3");
  EXPECT_EQ(found[0].subcommand, "run");
  EXPECT_EQ(found[0].options, (std::vector<std::string>{"--out", "--resume", "--force", "--shard"}));
  EXPECT_EQ(found[1].subcommand, "devices");
  EXPECT_TRUE(found[1].options.empty());
}

TEST(DocCommands, AnUnclosedQuoteIsAnError) {
  EXPECT_THROW(doc_commands("q.md", "```\nmlacheck run --case \"open\n```\n"), std::invalid_argument);
  EXPECT_THROW(shell_words("run 'open"), std::invalid_argument);
}

}  // namespace
}  // namespace mlacheck::doc_check
