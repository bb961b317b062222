"""docs/operations.md, "Environment variables", is the one list of the service's settings: it
names every variable the code reads from the environment, and none that nothing reads. The
names read are found by parsing the code, not by a list kept by hand:

- Python in config/, games/ and accounts/ and manage.py: `os.environ.get("X")`, `os.getenv("X")`,
  `os.environ["X"]`, `os.environ.setdefault("X", ...)`, `"X" in os.environ`, and the settings'
  helpers `env_bool("X", ...)` / `env_list("X", ...)` (any `env_*` function);
- docker/entrypoint.sh (`$X`, `${X:-...}`, and its embedded Python) and docker/compose.yaml
  (`${X:?...}`, the operator's docker/.env interpolated by Compose).

The README links to that table instead of keeping a second one that would drift."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPERATIONS = ROOT / "docs" / "operations.md"

# Variables the code reads that are not settings of the service, each for a reason.
INTERNAL = {
    # Set by pytest-xdist in each of its workers: config/settings/test.py gives each worker its
    # own Redis database from it.
    "PYTEST_XDIST_WORKER",
    # config/settings/test.py's own mark, exported to the processes a test starts, that it has
    # already split REDIS_URL per worker.
    "CARDGAMES_TEST_REDIS_SPLIT",
}


def _environ(node: ast.AST) -> bool:
    """`os.environ` (a bare `environ` is a WSGI request's, as in config/metrics.py)."""
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def _name(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def names_read_in_python(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            reads = (
                (isinstance(func, ast.Attribute) and func.attr in ("get", "setdefault", "pop") and _environ(func.value))
                or (isinstance(func, ast.Attribute) and func.attr == "getenv")
                or (isinstance(func, ast.Name) and (func.id == "getenv" or func.id.startswith("env_")))
            )
            if reads and (name := _name(node.args[0])):
                names.add(name)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _environ(node.value):
            if name := _name(node.slice):
                names.add(name)
        elif (isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In | ast.NotIn)
              and _environ(node.comparators[0]) and (name := _name(node.left))):
            names.add(name)
    return names


def names_read_in_shell(text: str) -> set[str]:
    """`$X` and `${X...}` (not Compose's escaped `$$X`, which the container's shell reads), and
    the `os.environ.get("X")` of Python embedded in the script."""
    names = set(re.findall(r"(?<!\$)\$\{?([A-Z][A-Z0-9_]*)", text))
    return names | set(re.findall(r"""os\.environ\.get\(\s*["']([A-Z][A-Z0-9_]*)["']""", text))


def names_read() -> set[str]:
    files = [ROOT / "manage.py"]
    for top in ("config", "games", "accounts"):
        files += (ROOT / top).rglob("*.py")
    names = set().union(*(names_read_in_python(path.read_text()) for path in files))
    for script in ("entrypoint.sh", "compose.yaml"):
        names |= names_read_in_shell((ROOT / "docker" / script).read_text())
    return names


def names_documented(text: str) -> set[str]:
    """The backticked names in the first column of the table under "## Environment variables"."""
    section = re.search(r"^## Environment variables\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section, "docs/operations.md has no section 'Environment variables'"
    names: set[str] = set()
    for row in re.findall(r"^\|([^|\n]*)\|", section.group(1), re.M):
        names.update(re.findall(r"`([A-Z][A-Z0-9_]*)`", row))
    return names


def test_every_setting_read_is_documented_and_every_documented_one_is_read():
    read, documented = names_read(), names_documented(OPERATIONS.read_text())
    assert sorted(read - documented - INTERNAL) == [], "read by the code, missing from docs/operations.md"
    assert sorted(documented - read) == [], "in docs/operations.md, read by nothing"
    assert sorted(INTERNAL - read) == [], "allowed as internal, read by nothing: drop it from INTERNAL"
    assert not INTERNAL & documented


def test_the_readme_points_at_the_one_table():
    readme = (ROOT / "README.md").read_text()
    assert "docs/operations.md#environment-variables" in readme
    # No second table of settings to drift: the README's tables are not about variables.
    assert not re.search(r"^\| *variable *\|", readme, re.M)


def test_the_parsers_find_every_form_of_read():
    source = '''
import os
from os import getenv
A = os.environ.get("A_GET", "1")
B = int(os.environ.get("B_INT", "0") or 0)
C = os.getenv("C_GETENV")
D = os.environ["D_ITEM"]
os.environ["NOT_READ"] = "set, not read"
os.environ.setdefault("E_DEFAULT", "x")
F = env_bool("F_BOOL", False)
G = env_list("G_LIST")
H = "H_IN" in os.environ
I = getenv("I_GETENV")
K = environ.get("PATH_INFO")  # a WSGI request's environ
J = settings.get("NOT_ENV")
'''
    assert names_read_in_python(source) == {
        "A_GET", "B_INT", "C_GETENV", "D_ITEM", "E_DEFAULT", "F_BOOL", "G_LIST", "H_IN", "I_GETENV"}
    shell = 'x="${PORT:-8000}" "$ALLOWED_HOSTS" $$HOSTNAME ${P:?need P} os.environ.get("Q", "")'
    assert names_read_in_shell(shell) == {"PORT", "ALLOWED_HOSTS", "P", "Q"}
    table = "## Environment variables\n\n| variable |\n| --- |\n| `A` / `B_C` | `NOT_A_NAME` |\n\n## Next\n| `D` |\n"
    assert names_documented(table) == {"A", "B_C"}
    # And on the real code, one of each form it uses.
    assert {"DEBUG", "ALLOWED_HOSTS", "WOKEN_READ_THREADS", "DB_POOL", "REDIS_URL", "PROMETHEUS_MULTIPROC_DIR",
            "WEB_CONCURRENCY", "POSTGRES_PASSWORD"} <= names_read()
