"""The layers of docs/architecture.md, enforced: the import-linter contracts
in pyproject.toml (engines and bots import nothing from Django or the project; views never
import an engine; one way down through the layers of games/; no import circle inside a
package), and nothing above the engine imports a private name (one starting with `_`) from it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"


def test_the_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "BROKEN" not in done.stdout and done.stdout.count("KEPT") == 5


def private_engine_names(source: str) -> list[str]:
    """The private names of games.engine that `source` imports or reads off an engine module."""
    tree = ast.parse(source)
    engine_aliases: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[:2] == ["games", "engine"]:
            for alias in node.names:
                if alias.name.startswith("_"):
                    found.append(f"{node.module}.{alias.name}")
                else:
                    engine_aliases.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[:2] == ["games", "engine"]:
                    if any(part.startswith("_") for part in alias.name.split(".")):
                        found.append(alias.name)
                    engine_aliases.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = node.value
            if isinstance(base, ast.Name) and base.id in engine_aliases:
                found.append(f"{base.id}.{node.attr}")
    return found


def offenders(paths) -> dict[str, list[str]]:
    found = {}
    for path in paths:
        names = private_engine_names(path.read_text())
        if names:
            found[str(path.relative_to(ROOT))] = names
    return found


def test_nothing_in_the_platform_imports_a_private_engine_name():
    platform = [
        p for p in GAMES.rglob("*.py")
        if not {GAMES / "engine", GAMES / "bots"} & set(p.parents) and "migrations" not in p.parts
    ]
    assert offenders(platform) == {}


def test_no_bot_imports_a_private_engine_name():
    # The bots search through the engine's interface (determinize, step), not its internals.
    assert offenders((GAMES / "bots").rglob("*.py")) == {}


def test_the_private_name_check_sees_both_forms():
    source = (
        "from games.engine.pitch import _bid, legal\n"
        "from games.engine import president as p\n"
        "import games.engine.lopti as lopti\n"
        "x = p._beats(1, 2) + lopti._clone(3) + p.public()\n"
    )
    assert sorted(private_engine_names(source)) == ["games.engine.pitch._bid", "lopti._clone", "p._beats"]


def contracts() -> list[dict]:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def top_module(path: Path) -> str:
    """games/api/tables.py -> games.api; games/admin.py -> games.admin."""
    first = path.relative_to(GAMES).parts[0]
    return "games." + first.removesuffix(".py")


# What serving HTTP looks like in a module: Django's or DRF's views and responses, the admin.
SERVES_HTTP = ("django.views", "django.http", "django.contrib.admin", "rest_framework.views", "rest_framework.generics")


def test_every_module_that_serves_http_is_held_off_the_engine():
    """A new view module (the web client's pages, the admin's) is bound by the contract that
    keeps views off the engine as soon as it exists, not when someone remembers to list it."""
    views = next(c for c in contracts() if c["name"].startswith("Views reach the engines"))
    serving = set()
    for path in GAMES.rglob("*.py"):
        if "migrations" in path.parts or top_module(path) in ("games.management",):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else (
                [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            if any(n == m or n.startswith(m + ".") for n in names for m in SERVES_HTTP):
                serving.add(top_module(path))
    assert serving - set(views["source_modules"]) == set()


def test_every_module_of_games_has_its_place_in_the_layers():
    layers = next(c for c in contracts() if c["type"] == "layers")["layers"]
    placed = {name.strip() for layer in layers for name in layer.split("|")}
    children = {top_module(p) for p in GAMES.iterdir() if p.name != "__init__.py" and (p.suffix == ".py" or (p / "__init__.py").exists())}
    assert children - {"games.migrations"} - placed == set()
