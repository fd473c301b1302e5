#!/usr/bin/env python3
"""check-docs.py [ROOT] — checks that the documentation's references resolve in the tree.

For README.md, CHANGELOG.md, docs/*.md and the README.md of every folder:
  - every relative Markdown link `[text](path#anchor)` names a file or folder of the tree
    (and, with an anchor into a Markdown file, one of its headings);
  - every back-quoted path with a folder (`docs/format.md`, `test/Plugin/`,
    `lib/Conversion/Sm100/{Kernel,Mainloop}.c`) exists, read from the repository root or
    from the document's folder; a bare file name with a source or doc suffix
    (`plugin-pass-flags.mlir`, `KernelABI.h`) exists somewhere in the tree;
  - every section reference `FILE.md`, "Heading" (or `FILE.md` ("Heading")) names the start
    of a heading of FILE.md.
In the sources, headers, tests and scripts, every docs/FILE.md named exists, and so does
the heading of a docs/FILE.md, "Heading" reference. No file of the tree points at notes
outside the repository (PROBLEM.md, DESIGN.md, SEED_NOTES, TOOLCHAIN_FACTS, ../shared/):
what they held is in docs/format.md and docs/design.md.
Paths under build*/, results/, .device*/ and /tmp, paths relative to an installed binary
(../lib/nvfp4/), the changelog's history, placeholders in capitals (IN.mlir,
OUT.cubin) and names a recipe creates are outputs, not files of the tree, and are skipped.
Prints one line per broken reference (FILE:LINE: what) and exits 1 if there is any."""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), ".."))
SUFFIXES = (".md", ".c", ".h", ".cpp", ".td", ".test", ".mlir", ".sh", ".py", ".txt",
            ".cmake", ".in", ".json", ".png", ".ptx", ".cfg")
TOP = ("benchmarks", "cmake", "cpusim", "docs", "emulation", "examples", "fuzz", "include",
       "lib", "runtime", "scripts", "test", "tools", ".ci")
# outputs the documents' commands create, and names of things outside the tree
OUTPUTS = re.compile(r"^(build[^/]*|results|\.device[^/]*|/|~|\$|[A-Z_]+/|-)")
# files the documents name that belong to other projects
EXTERNAL = {"cuda.h", "libcuda.so.1", "libcuda.so", "mlir-opt", "libMLIR.so", "libLLVM.so"}
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*(\.[a-z]+)+$|^[a-z]\.|^k(_emu)?\.|^b1\.|^f\.")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
SECTION = re.compile(r"`?([\w./-]+\.md)`?(?:,| \() ?\"([^\"]+)\"")


def tree_files():
    files, dirs = set(), set()
    for d, subdirs, names in os.walk(ROOT):
        subdirs[:] = [s for s in subdirs if not (s.startswith("build") or s in
                      (".git", "results", "__pycache__") or s.startswith(".device"))]
        rel = os.path.relpath(d, ROOT)
        if rel != ".":
            dirs.add(rel)
        for n in names:
            files.add(os.path.normpath(os.path.join(rel, n)))
    return files, dirs


FILES, DIRS = tree_files()
BASENAMES = {os.path.basename(f) for f in FILES}


def documents():
    for f in sorted(FILES):
        if f in ("README.md", "CHANGELOG.md") or (f.startswith("docs/") and f.endswith(".md")) \
                or os.path.basename(f) == "README.md":
            yield f


def exists(path, docdir):
    path = path.rstrip("/")
    for base in ("", docdir):
        p = os.path.normpath(os.path.join(base, path))
        if p in FILES or p in DIRS:
            return True
    return False


def expand(path):
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [x for alt in m.group(1).split(",")
            for x in expand(path[:m.start()] + alt + path[m.end():])]


def headings(md):
    out = []
    for line in open(os.path.join(ROOT, md), encoding="utf-8"):
        if line.startswith("#"):
            out.append(line.lstrip("#").strip())
    return out


def slug(h):
    return re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")


def check_path(tok, docdir):
    """None when tok resolves or is not a path of the tree, else the reason."""
    tok = tok.strip().rstrip(".,;:")
    if " " in tok or "*" in tok or "..." in tok or "<" in tok or OUTPUTS.match(tok) or \
            tok.startswith(("../", ".")) or tok in EXTERNAL:
        return None
    if "/" in tok:
        if tok.split("/")[0] not in TOP:
            # relative to the document's folder (docs/format.md names design.md's folder)
            if not exists(tok, docdir) and os.path.dirname(tok) not in DIRS and \
                    not any(exists(x, docdir) for x in expand(tok)):
                first = tok.split("/")[0]
                if os.path.join(docdir, first) in DIRS or first in DIRS:
                    return "no such path"
            return None
        missing = [x for x in expand(tok) if not exists(x, docdir)]
        return "no such path" if missing else None
    if tok.endswith(SUFFIXES) and not PLACEHOLDER.match(tok) and re.match(r"^[\w.+-]+$", tok):
        if tok not in BASENAMES and not exists(tok, docdir):
            return "no file of that name in the tree"
    return None


CODE_SUFFIXES = (".c", ".h", ".cpp", ".td", ".test", ".mlir", ".sh", ".py", ".txt", ".cu",
                 ".ptx", ".cmake", ".in")
OUTSIDE = re.compile(r"\b(PROBLEM\.md|DESIGN\.md|SEED_NOTES|TOOLCHAIN_FACTS)|\.\./shared\b")
DOC_IN_CODE = re.compile(r"(docs/[\w-]+\.md)(?:(?:,| \() ?\"([^\"]+)\")?")


def check_code(errors):
    """docs/FILE.md references in the sources, headers, tests and scripts."""
    for f in sorted(FILES):
        if f.split("/")[0] not in TOP or f.startswith(("docs/", "test/Docs/")) or \
                f == "scripts/check-docs.py" or not f.endswith(CODE_SUFFIXES):
            continue  # (this checker and its test name broken references on purpose)
        try:
            lines = open(os.path.join(ROOT, f), encoding="utf-8").read().split("\n")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(lines, 1):
            m = OUTSIDE.search(line)
            if m:
                errors.append(f"{f}:{n}: {m.group(0)}: a file outside the repository")
            for md, section in DOC_IN_CODE.findall(line):
                if md not in FILES:
                    errors.append(f"{f}:{n}: {md}: no such file")
                elif section and not any(h.startswith(section) for h in headings(md)):
                    errors.append(f"{f}:{n}: {md}, \"{section}\": no such heading")


def main():
    errors = []
    for doc in documents():
        docdir = os.path.dirname(doc)
        in_fence = False
        for n, line in enumerate(open(os.path.join(ROOT, doc), encoding="utf-8"), 1):
            m = OUTSIDE.search(line)
            if m and doc != "CHANGELOG.md":  # the changelog may say where a fact came from
                errors.append(f"{doc}:{n}: {m.group(0)}: a file outside the repository")
            if line.startswith("```"):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                path, _, anchor = target.partition("#")
                if not exists(path, docdir):
                    errors.append(f"{doc}:{n}: link to {path}: no such file")
                elif anchor and path.endswith(".md"):
                    md = os.path.normpath(os.path.join(docdir, path))
                    if anchor not in {slug(h) for h in headings(md)}:
                        errors.append(f"{doc}:{n}: link to {target}: no such heading")
            # the changelog names what was removed or renamed: its paths are history
            for tok in ([] if doc == "CHANGELOG.md" else CODE.findall(line)):
                why = check_path(tok, docdir)
                if why:
                    errors.append(f"{doc}:{n}: `{tok}`: {why}")
            for md, section in SECTION.findall(line):
                cands = [os.path.normpath(os.path.join(b, md)) for b in ("", docdir, "docs")]
                target = next((c for c in cands if c in FILES), None)
                if target is None:
                    errors.append(f"{doc}:{n}: {md}: no such file")
                elif not any(h.startswith(section) for h in headings(target)):
                    errors.append(f"{doc}:{n}: {md}, \"{section}\": no such heading")
    check_code(errors)
    for e in errors:
        print(e)
    print(f"check-docs: {len(list(documents()))} documents, {len(errors)} broken references")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
