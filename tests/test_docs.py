"""The project carries its own rules and contract (docs/rules/, docs/api.md): every rule id that
code and tests cite must be defined there, and the README points at them. What else the docs and
comments cite (paths, links, anchors) is checked by tests/test_citations.py."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"
CITED = re.compile(r"\b([PAL])-(\d+)(?:\.(\d+))?\b")
PREFIX = {"P": "president", "A": "pitch", "L": "lopti"}


def defined_ids() -> set[str]:
    """`## P-4 Play` defines P-4, and each top-level numbered item under it (`3. ...`) P-4.3."""
    ids: set[str] = set()
    for prefix, game in PREFIX.items():
        section = None
        for line in (RULES / f"{game}.md").read_text().splitlines():
            heading = re.match(rf"## ({prefix}-\d+)\b", line)
            if heading:
                section = heading.group(1)
                ids.add(section)
            elif line.startswith("## "):
                section = None
            elif section and (item := re.match(r"(\d+)\. ", line)):
                ids.add(f"{section}.{item.group(1)}")
    return ids


def cited_ids() -> dict[str, str]:
    found: dict[str, str] = {}
    for folder in ("games", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for match in CITED.finditer(path.read_text()):
                rule = match.group(0)
                found.setdefault(rule, str(path.relative_to(ROOT)))
    return found


def test_the_rules_define_the_ids_of_every_section():
    ids = defined_ids()
    # A sample of each game's numbering, so that a parser that finds nothing cannot pass.
    assert {"P-1.2", "P-9.7", "A-3.2", "A-7.3", "L-5.4", "L-12.5", "L-13"} <= ids


def test_every_rule_id_cited_in_code_and_tests_is_in_docs_rules():
    ids = defined_ids()
    unknown = {rule: where for rule, where in cited_ids().items() if rule not in ids}
    assert unknown == {}


def test_the_readme_points_at_the_rules_and_the_contract():
    readme = (ROOT / "README.md").read_text()
    for doc in ("docs/rules/president.md", "docs/rules/pitch.md", "docs/rules/lopti.md", "docs/api.md"):
        assert doc in readme


def test_the_catalogue_points_each_game_at_its_rules(client):
    games = client.get("/api/v1/games").json()
    assert [g["rules"] for g in games] == [f"docs/rules/{g['slug']}.md" for g in games]
    for game in games:
        assert (ROOT / game["rules"]).is_file()
    schema = client.get("/api/schema/?format=json").json()
    description = schema["paths"]["/api/v1/games"]["get"]["description"]
    assert all(f"docs/rules/{g['slug']}.md" in description for g in games)
