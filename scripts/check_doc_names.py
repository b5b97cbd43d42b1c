#!/usr/bin/python3
"""Fails for every repository path or function a doc names that the tree does not have.

The docs say what the code does; a renamed file or function leaves them naming something that is
gone. This check reads each doc given (Markdown) and reports, as `doc:line: ...`, every

- repository path it names, in backticks or plain text: a token whose first component is a
  top-level folder of the tree (`harness/op_registry.hpp`, `cli/`, `scenarios/upstream.csv`,
  `plan/case_settle`: a path without its extension names the file with any extension), or any
  other token with a slash and a file extension (`hip_backend/decode_path.hpp`, matched against
  the end of the tree's paths), or a bare file name with a source or doc extension
  (`mma_tile.hpp`, `design.md`, matched against the tree's file names); globs (`wgmma_*.hpp`) must
  match at least one; URLs, absolute paths, `../` paths and tokens with shell variables are not
  the tree's;
- function named in backticks with parentheses (`settle_case()`, `make_backend(spec, device)`,
  `mlacheck.plan(...)`: the last name before the parenthesis) that no source file (*.cpp *.hpp *.h
  *.hip *.cu *.c *.py, and CMake files for CMake's own functions) mentions as a word.

A doc with a layers table (a Markdown table whose header has the columns `folder`, `library` and
`depends on`, as docs/design.md's) has its arrows checked against the sources' #include lines:
every header a layer's code includes (tests/ folders aside) must belong to the layer itself or to
one its `depends on` cell names (by the last part of its folder: `core`, `platform`, `harness`;
`all device/ parts` and `everything above` name what they say), and a layer named there as
`X privately` must not be included by the public headers (*.hpp, *.h) of the layer. Each breach is
reported as `doc:line: layer ...` at the table's row.

Usage: check_doc_names.py [--root DIR] DOC...
Exit status: 0 when every name exists, 1 when one does not (each printed), 2 for bad usage.
"""
import argparse
import fnmatch
import os
import re
import sys

SOURCE_EXTENSIONS = (".cpp", ".hpp", ".h", ".hip", ".cu", ".c", ".py")
# Where a named function is looked for: the sources, and the CMake files (a doc names CMake's
# `find_package(...)` as well).
WORD_EXTENSIONS = SOURCE_EXTENSIONS + (".cmake", "CMakeLists.txt")
# Bare file names checked against the tree: sources, scripts, CMake and docs. Other bare names
# (report.csv, junit.xml, libmlacheck_capi.so) are what the tools write or build.
BARE_NAME_EXTENSIONS = SOURCE_EXTENSIONS + (".sh", ".cmake", ".md", ".in", ".map")
# Folders of a checkout that are not the project's: VCS data, build trees, caches.
SKIPPED_DIRS = {".git", "__pycache__", ".pytest_cache", "node_modules"}

PATH_CHARS = r"[A-Za-z0-9_.*\-]"
PATH_TOKEN = re.compile(r"(?<![\w$/~.\-])(?:\.?%s+/)+%s*" % (PATH_CHARS, PATH_CHARS))
BARE_NAME = re.compile(r"(?<![\w/.\-])([A-Za-z0-9_*\-]+(?:\.[A-Za-z0-9_]+)+)(?![\w/])")
CODE_SPAN = re.compile(r"`([^`]+)`")
CALLED_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://\S*|www\.\S*")


def is_build_tree(path):
    return os.path.exists(os.path.join(path, "CMakeCache.txt"))


def tree_files(root):
    """The checkout's files and folders as paths relative to root, '/'-separated."""
    files, dirs = set(), set()
    for here, subdirs, names in os.walk(root):
        subdirs[:] = [d for d in subdirs
                      if d not in SKIPPED_DIRS and not d.endswith(".egg-info")
                      and not is_build_tree(os.path.join(here, d))]
        rel = os.path.relpath(here, root).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        if prefix:
            dirs.add(rel)
        for name in names:
            files.add(prefix + name)
    return files, dirs


class Tree:
    def __init__(self, root):
        self.files, self.dirs = tree_files(root)
        self.top_dirs = {d for d in self.dirs if "/" not in d}
        self.basenames = {f.rsplit("/", 1)[-1] for f in self.files}
        self.stems = {}
        for f in self.files:
            stem = os.path.splitext(f)[0]
            self.stems.setdefault(stem, f)
        self.words = set()
        for f in self.files:
            if f.endswith(WORD_EXTENSIONS):
                with open(os.path.join(root, f), encoding="utf-8", errors="replace") as source:
                    self.words.update(WORD.findall(source.read()))

    def has_path(self, path):
        """A path from the root: a file, a folder, or a file named without its extension."""
        path = path.rstrip("/")
        if any(c in path for c in "*?["):
            return any(fnmatch.fnmatchcase(p, path) for p in self.files | self.dirs)
        return path in self.files or path in self.dirs or path in self.stems

    def has_path_ending(self, path):
        """A path relative to some folder of the tree (hip_backend/decode_path.hpp)."""
        path = path.rstrip("/")
        if any(c in path for c in "*?["):
            return any(fnmatch.fnmatchcase(p, "*" + path) for p in self.files | self.dirs)
        return any(p == path or p.endswith("/" + path) for p in self.files | self.dirs)

    def has_name(self, name):
        if any(c in name for c in "*?["):
            return any(fnmatch.fnmatchcase(b, name) for b in self.basenames)
        return name in self.basenames


def clean(token):
    """A path token without the punctuation around it, a line number or a link anchor."""
    token = token.split("#", 1)[0]
    token = re.sub(r":\d+(?::\d+)?$", "", token)
    while token and token[-1] in ".,;:)'\"":
        token = token[:-1]
    return token


def has_extension(token):
    last = token.rstrip("/").rsplit("/", 1)[-1]
    return re.search(r"\.[A-Za-z][A-Za-z0-9_]*$", last) is not None


def is_placeholder(first):
    """A path's first component that stands for the reader's own folder: DIR/, path/to/, a
    build tree (build/, build-plugin/) or a packaging output (dist/)."""
    return (re.fullmatch(r"[A-Z][A-Z0-9_]*", first) is not None or first in ("path", "dist")
            or first.startswith("build"))


def missing_paths(line, tree, doc_dir):
    text = URL.sub(" ", line)
    for match in PATH_TOKEN.finditer(text):
        token = clean(match.group(0))
        while token.startswith("./"):
            token = token[2:]
        if "/" not in token or token.startswith("../") or is_placeholder(token.split("/", 1)[0]):
            continue
        if tree.has_path(token) or tree.has_path(os.path.join(doc_dir, token)):
            continue
        first = token.split("/", 1)[0]
        if first in tree.top_dirs or (has_extension(token) and not tree.has_path_ending(token)):
            yield token
    for match in BARE_NAME.finditer(text):
        name = clean(match.group(1))
        if name.endswith(BARE_NAME_EXTENSIONS) and not tree.has_name(name):
            yield name


def missing_functions(line, tree):
    for span in CODE_SPAN.findall(line):
        for name in CALLED_NAME.findall(span):
            if name not in tree.words:
                yield name + "()"


def code_lines(text):
    """Each line with its number, fenced code blocks included (they name paths too)."""
    for number, line in enumerate(text.splitlines(), start=1):
        yield number, line


TABLE_ROW = re.compile(r"^\|(.*)\|\s*$")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
HEADER_EXTENSIONS = (".hpp", ".h")
CODE_EXTENSIONS = (".cpp", ".hpp", ".h", ".hip", ".cu", ".c")


def cells(line):
    return [c.strip() for c in TABLE_ROW.match(line).group(1).split("|")]


def layers_table(text):
    """The rows of a layers table as (line number, folder, depends-on cell), in table order."""
    rows, columns = [], None
    for number, line in enumerate(text.splitlines(), start=1):
        if not TABLE_ROW.match(line):
            columns = None
            continue
        row = cells(line)
        if columns is None:
            lowered = [c.lower() for c in row]
            if {"folder", "library", "depends on"} <= set(lowered):
                columns = {name: lowered.index(name) for name in ("folder", "library", "depends on")}
            continue
        if set("".join(row)) <= set("-: "):
            continue
        folder = row[columns["folder"]].strip("`").strip()
        if folder.endswith("/") and "mlacheck_" in row[columns["library"]]:
            rows.append((number, folder, row[columns["depends on"]]))
    return rows


def short_name(folder):
    return folder.rstrip("/").split("/")[-1]


def layer_of(path, folders):
    """The layer folder a repository path belongs to: the longest folder it lies in."""
    owners = [f for f in folders if path.startswith(f)]
    return max(owners, key=len) if owners else None


def named_layers(index, rows):
    """The layer folders a row's `depends on` cell names."""
    _, folder, cell = rows[index]
    words = set(WORD.findall(cell.lower()))
    named = set()
    for k, (_, other, _) in enumerate(rows):
        if other == folder:
            continue
        if (short_name(other) in words or ("all device/ parts" in cell and other.startswith("device/"))
                or ("everything above" in cell and k < index)):
            named.add(other)
    return named


def reachable_layers(rows):
    """Each layer's dependencies by the table: those its cell names and, through them, theirs."""
    direct = {folder: named_layers(k, rows) for k, (_, folder, _) in enumerate(rows)}
    closure = {}
    for folder in direct:
        seen, todo = set(), list(direct[folder])
        while todo:
            dep = todo.pop()
            if dep not in seen:
                seen.add(dep)
                todo.extend(direct.get(dep, ()))
        closure[folder] = seen
    return closure


def private_layers(cell):
    return set(re.findall(r"(\w+) privately", cell))


def layering_problems(shown, text, tree, root):
    """One problem per undeclared arrow (layer -> layer, with the first include that makes it)."""
    rows = layers_table(text)
    folders = [folder for _, folder, _ in rows]
    reachable = reachable_layers(rows)
    problems = []
    for number, folder, cell in rows:
        breaches = {}
        for path in sorted(tree.files):
            if layer_of(path, folders) != folder or "/tests/" in "/" + path or not path.endswith(CODE_EXTENSIONS):
                continue
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                includes = INCLUDE.findall(f.read())
            for included in includes:
                dep = layer_of(included, folders)
                if dep is None or dep == folder:
                    continue
                if dep not in reachable[folder]:
                    breaches.setdefault(("undeclared", dep), "%s includes %s" % (path, included))
                elif short_name(dep) in private_layers(cell) and path.endswith(HEADER_EXTENSIONS):
                    breaches.setdefault(("public", dep), "%s includes %s" % (path, included))
        for (kind, dep), example in breaches.items():
            if kind == "undeclared":
                why = "depends on %s, which its 'depends on' cell does not name (directly or through the layers it names)" % dep
            else:
                why = "its public headers include %s, which its 'depends on' cell calls private" % dep
            problems.append("%s:%d: layer %s %s: %s" % (shown, number, folder, why, example))
    return problems


def check(doc, tree, root):
    problems = []
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    doc_dir = os.path.relpath(os.path.dirname(os.path.abspath(doc)), root).replace(os.sep, "/")
    shown = os.path.relpath(doc, root) if not os.path.relpath(doc, root).startswith("..") else doc
    for number, line in code_lines(text):
        for path in dict.fromkeys(missing_paths(line, tree, doc_dir)):
            problems.append("%s:%d: path '%s' is not in the tree" % (shown, number, path))
        for function in dict.fromkeys(missing_functions(line, tree)):
            problems.append("%s:%d: function '%s' is in no source file" % (shown, number, function))
    return problems + layering_problems(shown, text, tree, root)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="the checkout whose files the docs must name (default: this script's)")
    parser.add_argument("docs", nargs="+", help="Markdown files to check")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        print("check_doc_names: --root %s is not a folder" % root, file=sys.stderr)
        return 2
    tree = Tree(root)
    problems = []
    for doc in args.docs:
        if not os.path.isfile(doc):
            print("check_doc_names: %s: no such doc" % doc, file=sys.stderr)
            return 2
        problems += check(doc, tree, root)
    for problem in problems:
        print(problem)
    if problems:
        print("FAIL: %d problem(s): names not in the tree, or layer arrows the table does not state" % len(problems))
        return 1
    print("PASS: every path and function the docs name exists, every layer arrow is stated (%d doc(s))" % len(args.docs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
