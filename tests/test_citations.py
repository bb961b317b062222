"""The project's users have the repository and nothing else: no issue tracker, no design notes
beside it. So what the docs (README.md, docs/, clients/*/README.md) and the project's comments and
docstrings (Python, JavaScript, TypeScript, templates, Makefile, docker/, .ci/run, pyproject.toml,
the clients' programs) cite must be in the repository:

- every repository path they name (`games/edge/state.py`, `docs/operations.md#metrics`,
  `games/services/*.py`) is a file or folder that exists; what it names inside the file is
  there too: the `#anchor` of a Markdown file, a section quoted after it (`docs/api.md,
  "Conventions"`: a heading or a bold label that starts so), a function or class after `::`;
- every Markdown link to a local file reaches it, and its `#anchor` one of that file's headings;
- nothing cites what a user cannot open: the notes the project was specified from, kept beside
  the repository (its spec and architecture notes), or the numbers of a tracker's issues (the
  forms caught are in `test_the_checks_bite`). Cite docs/ instead: docs/api.md, the rule ids of
  docs/rules/*.md, docs/architecture.md, docs/reliability.md, or say the reason in plain words.
  An upstream project's issue is cited by its address, which anyone can open.

What is not a repository path, and so not checked: URL paths (`/api/v1/tables`, preceded by a
slash), dotted module names (`games.edge.state`), absolute paths (`/app/var`), paths under
folders the repository does not track (`var/`, `.venv/`), paths relative to another folder
(`floor_api/settings.py` in bench/floor/), and the few files that exist only at run time, listed
in RUNTIME with the reason."""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The repository's top-level folders: a path is the repository's when it starts with one of them.
TOP = (".ci", "accounts", "bench", "clients", "config", "docker", "docs", "games", "tests", "tools")
# Repository-relative paths the docs and comments name that are not committed, each for a reason.
RUNTIME = {
    "docker/.env": "the operator's settings, copied from docker/env.example (git and Docker ignore it)",
    "bench/results/": "the benches' JSON lines, written by each run (git ignores them)",
    "docker/dockerfile": "`# syntax=docker/dockerfile:1`, BuildKit's front-end image, not a file",
    "clients/python/cardgames_client/": "the generated Python client, written by clients/python/generate.sh (git ignores it)",
    "clients/typescript/src/schema.d.ts": "the generated TypeScript types, written by `npm run generate` (git ignores them)",
    "clients/typescript/dist/": "the compiled TypeScript program, written by `npm run build` (git ignores it)",
}

TOPS = "|".join(re.escape(top) for top in TOP)
PATH = re.compile(rf"(?<![\w./~$@:-])((?:{TOPS})/[\w./*-]*)")
# What users cannot open: the specification notes' folder, their spec files and architecture
# file (the repository's own is docs/architecture.md), and a tracker's issue numbers.
UNREACHABLE = [
    re.compile(r"(?<![\w-])shared/[\w./-]*"),
    re.compile(r"(?<![\w/.-])spec/[\w-]+\.md"),
    re.compile(r"\bARCHITECTURE\b"),
    re.compile(r"\bissues?\s+#?\d+(?:\.\d+)?", re.IGNORECASE),
]
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?[^)]*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
# A block comment, or `//` to the end of the line but not in a URL ("https://") or right after a quote.
JS_COMMENT = r"/\*[\s\S]*?\*/|(?<![:\w\"'`])//[^\n]*"


# --- what is scanned ------------------------------------------------------------------------------


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "clients").glob("*/README.md"))]


def python_files() -> list[Path]:
    files = [ROOT / "manage.py"]
    for top in ("accounts", "bench", "config", "games", "tests", "tools"):
        files += sorted(p for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts)
    # The clients' own programs, not what they generate.
    return files + sorted((ROOT / "clients" / "python").glob("*.py"))


def hash_comment_files() -> list[Path]:
    """Files whose comments start with `#`."""
    docker = ROOT / "docker"
    return [ROOT / "Makefile", ROOT / "pyproject.toml", ROOT / ".ci" / "run",
            docker / "Dockerfile", docker / "compose.yaml", docker / "entrypoint.sh", docker / "env.example"]


def python_comments(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and docstring of a Python file."""
    source = path.read_text()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                yield first.lineno, first.value.value


def _matches(pattern: str, text: str, flags: int = 0) -> Iterator[tuple[int, str]]:
    for match in re.finditer(pattern, text, flags):
        yield text.count("\n", 0, match.start()) + 1, match.group(0)


def hash_comments(path: Path) -> Iterator[tuple[int, str]]:
    # A `#` at the start of a line or after a blank ("$#" or "a#b" are not comments).
    yield from _matches(r"(?:^|(?<=\s))#[^\n]*", path.read_text(), re.M)


def js_comments(path: Path) -> Iterator[tuple[int, str]]:
    yield from _matches(JS_COMMENT, path.read_text())


def template_comments(path: Path) -> Iterator[tuple[int, str]]:
    yield from _matches(r"<!--[\s\S]*?-->|\{#[\s\S]*?#\}|\{% comment %\}[\s\S]*?\{% endcomment %\}",
                        path.read_text())


@functools.cache
def cited_text() -> tuple[tuple[str, int, str], ...]:
    """(file, line, text): the docs whole, and the comments and docstrings of everything else."""
    found = [(str(path.relative_to(ROOT)), 1, path.read_text()) for path in markdown_files()]
    sources = [(path, python_comments) for path in python_files()]
    sources += [(path, hash_comments) for path in hash_comment_files()]
    sources += [(path, js_comments) for path in sorted((ROOT / "games" / "static").rglob("*.js"))]
    typescript = ROOT / "clients" / "typescript"
    sources += [(path, js_comments) for path in [typescript / "generate.mjs", *sorted((typescript / "src").glob("*.ts"))]
                if path.name != "schema.d.ts"]
    sources += [(ROOT / "clients" / "python" / "generate.sh", hash_comments)]
    sources += [(path, template_comments) for path in sorted((ROOT / "games" / "templates").rglob("*.html"))]
    for path, comments in sources:
        found += [(str(path.relative_to(ROOT)), line, text) for line, text in comments(path)]
    return tuple(found)


# --- the checks -----------------------------------------------------------------------------------


def missing_paths(text: str) -> Iterator[tuple[int, str]]:
    """(line offset, what) of every repository path in `text` that is not in the repository, and
    of every `path#anchor`, `path, "Section"` and `path::name` whose anchor, section or name is
    not in that file."""
    for match in PATH.finditer(text):
        path = match.group(1).rstrip(".,;:")
        if path in RUNTIME or path.rstrip("/") + "/" in RUNTIME:
            continue
        line = text.count("\n", 0, match.start())
        if not (any(ROOT.glob(path)) if "*" in path else (ROOT / path).exists()):
            yield line, path
            continue
        rest = text[match.end(1):]
        if path.endswith(".md") and (anchor := re.match(r"#([\w-]+)", rest)):
            if anchor.group(1) not in anchors(ROOT / path):
                yield line, f"{path}#{anchor.group(1)}"
        elif path.endswith(".md") and (section := re.match(r',?\s+"([^"]+)"', rest)):
            if not has_section(ROOT / path, section.group(1)):
                yield line, f'{path}, "{section.group(1)}"'
        elif name := re.match(r"::(\w+)", rest):
            if not re.search(rf"^\s*(?:async def|def|class) {name.group(1)}\b", (ROOT / path).read_text(), re.M):
                yield line, f"{path}::{name.group(1)}"


def has_section(doc: Path, title: str) -> bool:
    """Whether `doc` has a heading, or a bold label (`**Polling**: ...`), that starts with `title`."""
    words = r"\s+".join(re.escape(word) for word in title.split())
    return bool(re.search(rf"^#+\s+`?{words}|\*\*{words}", doc.read_text(), re.M | re.I))


def unreachable_citations(text: str) -> Iterator[tuple[int, str]]:
    for pattern in UNREACHABLE:
        for match in pattern.finditer(text):
            yield text.count("\n", 0, match.start()), match.group(0)


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, blanks to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def outside_fences(text: str) -> str:
    """`text` with the lines of fenced code blocks blanked (line numbers kept)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            lines.append("")
        else:
            lines.append("" if fenced else line)
    return "\n".join(lines)


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for line in outside_fences(path.read_text()).splitlines():
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(doc: Path, root: Path = ROOT) -> Iterator[tuple[int, str]]:
    """(line, link) of every local link of a Markdown file whose file or anchor does not exist
    in the repository (`root`)."""
    text = outside_fences(doc.read_text())
    for match in LINK.finditer(text):
        target = match.group(1)
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        line = text.count("\n", 0, match.start()) + 1
        name, _, anchor = target.partition("#")
        path = (doc.parent / name).resolve() if name else doc.resolve()
        # A user has the repository only: a link that leaves it is broken for them.
        if not path.exists() or root.resolve() not in path.parents:
            yield line, target
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            yield line, target


def test_every_repository_path_cited_exists():
    found = [(where, line + offset, path)
             for where, line, text in cited_text() for offset, path in missing_paths(text)]
    assert [f"{where}:{line}: {path}" for where, line, path in found] == []


def test_nothing_cites_a_file_or_an_issue_users_cannot_open():
    found = [(where, line + offset, cited)
             for where, line, text in cited_text() for offset, cited in unreachable_citations(text)]
    assert [f"{where}:{line}: {cited}" for where, line, cited in found] == []


def test_every_local_markdown_link_reaches_its_file_and_heading():
    broken = [f"{doc.relative_to(ROOT)}:{line}: {target}" for doc in markdown_files()
              for line, target in broken_links(doc)]
    assert broken == []
    # No parent-folder path anywhere in the README, an ellipsis ("POST .../ballots") aside.
    assert re.findall(r"(?<![.\w])\.\./\S*", (ROOT / "README.md").read_text()) == []


def test_the_checks_bite(tmp_path):
    """Each check finds what it is for, and leaves alone what is not a repository path."""
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    doc = repo / "docs" / "a.md"
    doc.write_text("# A\n\n## The edge: one door\n\n[1](#the-edge-one-door) [2](#gone) [3](b.md) [4](../x.md)\n"
                   "[5](a.md#a) [6](https://example.com/b.md) [7](../../outside.md)\n```\n## Not a heading\n```\n"
                   "[8](#not-a-heading)\n")
    (repo / "x.md").write_text("x")
    (tmp_path / "outside.md").write_text("a file, but not the repository's")
    assert list(broken_links(doc, repo)) == [
        (5, "#gone"), (5, "b.md"), (6, "../../outside.md"), (10, "#not-a-heading")]
    text = ("See games/nowhere.py:12, docs/api.md#polling, games/edge/*.py, tests/test_citations.py::test_x,\n"
            "games/services/ and `docs/gone.md`; not /api/v1/games/x.py, games.edge.state, var/db.sqlite3,\n"
            "/app/games/x.py, docker/.env, https://example.com/docs/x.md or tests/test_citations.py::slug;\n"
            'docs/operations.md#metrics, docs/api.md, "Conventions", docs/api.md "Polling" (a bold label),\n'
            'docs/architecture.md, "The edge", docs/api.md, "No such\n    section" and docs/api.md, "Moves by game".')
    assert list(missing_paths(text)) == [
        (0, "games/nowhere.py"), (0, "docs/api.md#polling"), (0, "tests/test_citations.py::test_x"),
        (1, "docs/gone.md"), (4, 'docs/api.md, "No such\n    section"')]
    cited = "rules: shared/spec/pitch.md; ../shared/x; spec/api.md; ARCHITECTURE; Issue 18.6; issues 11; issue #3"
    assert [c for _, c in unreachable_citations(cited)] == [
        "shared/spec/pitch.md", "shared/x", "spec/api.md", "ARCHITECTURE", "Issue 18.6", "issues 11", "issue #3"]
    assert list(unreachable_citations("kombu's https://github.com/celery/kombu/issues/1551; an issue tracker")) == []
    assert slug("`manage.py serve` (make run)") == "managepy-serve-make-run"
    assert slug("The edge: one door for every HTTP concern") == "the-edge-one-door-for-every-http-concern"
    assert "environment-variables" in anchors(ROOT / "docs" / "operations.md")
    js = "const u = 'https://x/y'; // games/a.js\n/* docs/b.md */"
    assert list(_matches(JS_COMMENT, js)) == [(1, "// games/a.js"), (2, "/* docs/b.md */")]
