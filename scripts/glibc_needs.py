#!/usr/bin/env python3
"""The glibc versions a shared library needs, read from its ELF .gnu.version_r (the version needs
the dynamic loader checks), in pure Python: no readelf needed.

    scripts/glibc_needs.py LIB [--max 2.35]

prints the highest GLIBC_x.y the library needs (and each symbol version it needs with --verbose);
with --max, exits 1 when it needs a newer one, naming them. setup.py tags the wheel from it
(manylinux_<x>_<y>_x86_64); ctest api.glibc_needs runs it on libmlacheck_capi.so."""

from __future__ import annotations

import argparse
import struct
import sys

SHT_GNU_VERNEED = 0x6FFFFFFE


def version_needs(path: str) -> dict[str, set[str]]:
    """{needed library file: {version names}} of a 64-bit little-endian ELF file."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    needs: dict[str, set[str]] = {}
    for _, sh_type, _, _, offset, _, link, count, _, _ in sections:
        if sh_type != SHT_GNU_VERNEED:
            continue
        strtab = sections[link][4]

        def name(at: int) -> str:
            end = data.index(b"\0", strtab + at)
            return data[strtab + at:end].decode()

        entry = offset
        for _ in range(count):
            _, cnt, file, aux, next_entry = struct.unpack_from("<HHIII", data, entry)
            names = needs.setdefault(name(file), set())
            at = entry + aux
            for _ in range(cnt):
                _, _, _, vna_name, vna_next = struct.unpack_from("<IHHII", data, at)
                names.add(name(vna_name))
                at += vna_next
            entry += next_entry
    return needs


def glibc_level(path: str) -> tuple[int, int]:
    """The highest GLIBC_x.y any needed library of `path` asks for ((0, 0): none)."""
    levels = [(0, 0)]
    for names in version_needs(path).values():
        for version in names:
            if version.startswith("GLIBC_") and version[6:].replace(".", "").isdigit():
                parts = [int(p) for p in version[6:].split(".")]
                levels.append((parts[0], parts[1] if len(parts) > 1 else 0))
    return max(levels)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("library")
    parser.add_argument("--max", help="fail when a newer glibc version than this (x.y) is needed")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    level = glibc_level(args.library)
    print(f"{args.library}: needs glibc {level[0]}.{level[1]}")
    if args.verbose:
        for library, names in sorted(version_needs(args.library).items()):
            print(f"  {library}: {' '.join(sorted(names))}")
    if args.max:
        limit = tuple(int(p) for p in args.max.split("."))
        if level > limit:
            newer = sorted(v for names in version_needs(args.library).values() for v in names
                           if v.startswith("GLIBC_") and tuple(int(p) for p in v[6:].split(".")[:2]) > limit)
            print(f"{args.library}: needs {', '.join(newer)}, newer than glibc {args.max}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
