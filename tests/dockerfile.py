"""docker/Dockerfile and .dockerignore read as Docker reads them, for the tests that rebuild
what the image holds without a Docker engine (tests/test_wheel.py) and check the
deployment files (tests/test_deploy_files.py). Only the instructions the Dockerfile uses are
understood; anything else fails loudly rather than being skipped."""

from __future__ import annotations

import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "docker" / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"


@dataclass
class Instruction:
    name: str  # upper case: FROM, COPY, RUN, ENV...
    args: str


def instructions(text: str | None = None) -> list[Instruction]:
    """The Dockerfile's instructions, continuation lines joined, comments dropped."""
    text = DOCKERFILE.read_text() if text is None else text
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    found = []
    for line in joined.splitlines():
        if line.strip():
            name, _, args = line.strip().partition(" ")
            found.append(Instruction(name.upper(), args.strip()))
    return found


def stages(text: str | None = None) -> dict[str, list[Instruction]]:
    """{stage name: its instructions after FROM}; the stages are named (`FROM ... AS name`)."""
    result: dict[str, list[Instruction]] = {}
    current: list[Instruction] | None = None
    for instruction in instructions(text):
        if instruction.name == "FROM":
            name = re.fullmatch(r"\S+\s+AS\s+(\S+)", instruction.args, flags=re.I)
            assert name, f"every stage is named: FROM {instruction.args}"
            current = result.setdefault(name.group(1), [])
        else:
            assert current is not None, "an instruction before the first FROM"
            current.append(instruction)
    return result


def env(stage: list[Instruction]) -> dict[str, str]:
    """The stage's ENV, as `key=value` pairs (values with `$` references are kept as written)."""
    values = {}
    for instruction in stage:
        if instruction.name == "ENV":
            for pair in shlex.split(instruction.args):
                key, sep, value = pair.partition("=")
                assert sep, f"ENV in the key=value form: {pair}"
                values[key] = value
    return values


def copies(stage: list[Instruction]) -> list[tuple[list[str], str]]:
    """The stage's COPY instructions from the build context: ([sources], destination)."""
    found = []
    for instruction in stage:
        if instruction.name == "COPY" and not instruction.args.startswith("--from"):
            *sources, destination = shlex.split(instruction.args)
            assert sources and not any(s.startswith("--") for s in sources), instruction.args
            found.append((sources, destination))
    return found


def runs(stage: list[Instruction]) -> list[str]:
    """The stage's RUN commands, each split at `&&` into the commands it chains."""
    return [part.strip() for i in stage if i.name == "RUN" for part in i.args.split("&&")]


# --- .dockerignore ------------------------------------------------------------------------------
def _pattern(pattern: str) -> re.Pattern:
    """One .dockerignore pattern (Go's filepath.Match plus `**`) as a regular expression."""
    pattern = pattern.strip().strip("/")
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            assert pattern[i] not in "[\\", f"a .dockerignore pattern this reader does not know: {pattern}"
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def ignore_rules() -> list[tuple[bool, re.Pattern]]:
    """(excludes?, pattern) in order; the last rule that matches a path decides, as in Docker."""
    if not DOCKERIGNORE.exists():
        return []
    rules = []
    for line in DOCKERIGNORE.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            rules.append((not line.startswith("!"), _pattern(line.lstrip("!"))))
    return rules


def ignored(relative: str, rules: list[tuple[bool, re.Pattern]] | None = None) -> bool:
    """Whether Docker leaves `relative` (a path under the repository root) out of the build
    context: a rule matches a path when it matches the path or one of its parent folders."""
    rules = ignore_rules() if rules is None else rules
    parts = relative.strip("/").split("/")
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    excluded = False
    for excludes, pattern in rules:
        if any(pattern.fullmatch(candidate) for candidate in candidates):
            excluded = excludes
    return excluded


def copy_like_docker(sources: list[str], destination: str, workdir: Path) -> None:
    """COPY sources destination, from the repository (minus what .dockerignore leaves out of
    the context) into `workdir`: a folder's contents go into the destination folder."""
    rules = ignore_rules()
    target = workdir / destination
    into_folder = destination.endswith("/") or len(sources) > 1
    for source in sources:
        assert not ignored(source, rules), f"COPY {source}: .dockerignore leaves it out of the context"
        path = ROOT / source
        if path.is_dir():
            for file in sorted(path.rglob("*")):
                relative = file.relative_to(ROOT).as_posix()
                if file.is_file() and not ignored(relative, rules):
                    copied = target / file.relative_to(path)
                    copied.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(file, copied)
        else:
            copied = target / path.name if into_folder else target
            copied.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, copied)
