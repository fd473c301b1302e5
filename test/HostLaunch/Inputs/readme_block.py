#!/usr/bin/env python3
"""readme_block.py MARKDOWN NAME — prints the fenced code block that follows the line
`<!-- recipe: NAME ... -->` in MARKDOWN, so that a test runs a documented recipe exactly as
written. Exits 1 with a message when the marker or its block is missing."""
import sys


def main():
    path, name = sys.argv[1], sys.argv[2]
    lines = open(path, encoding="utf-8").read().splitlines()
    marker = f"<!-- recipe: {name}"
    for i, line in enumerate(lines):
        if line.startswith(marker):
            rest = lines[i + 1:]
            if not rest or not rest[0].startswith("```"):
                sys.exit(f"{path}: no fenced block right after the '{name}' recipe marker")
            body = []
            for code in rest[1:]:
                if code.startswith("```"):
                    print("\n".join(body))
                    return
                body.append(code)
            sys.exit(f"{path}: the '{name}' recipe block is not closed")
    sys.exit(f"{path}: no '{name}' recipe marker")


if __name__ == "__main__":
    main()
