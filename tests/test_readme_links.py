"""README.md refers to nothing outside the repository (issue 18, item 8): a newcomer has only
the clone, so every relative link and quoted path stays inside it. The README's shell blocks
themselves run in tests/integration/test_readme.py (make test-readme)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_relative_reference_in_the_readme_stays_inside_the_repository():
    text = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#\s]+)", text) + re.findall(r"`([\w./-]+\.md)`", text)
    outside = [t for t in targets if not t.startswith(("http://", "https://", "mailto:"))
               and not (ROOT / t).resolve().is_relative_to(ROOT)]
    assert outside == []
    # A parent-folder path anywhere ("../shared/spec/..."), an ellipsis ("POST .../ballots") aside.
    assert re.findall(r"(?<![.\w])\.\./\S*", text) == []
