#!/usr/bin/env python3
"""Check a table export (`cardgames-table/1`) without the service: needs only Python 3.11+ and
the project's pure engines (games/engine), no Django, no database.

    python tools/verify_export.py export.json      # or - for standard input

Prints `{"valid": ..., "reason"?: ..., "final_scores": ...}`; exit status 0 when valid, 1 when
not, 2 when the file is not an export. The checks are games/engine/replay.py, the same code the
service runs (docs/fair-deals.md says what they are, and how to redo them by hand).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import replay  # noqa: E402  (after the path: the repository's engines)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        result = replay.verify(replay.load(argv[1]))
    except (OSError, ValueError, RecursionError) as exc:
        print(f"cannot read {argv[1]}: {exc}", file=sys.stderr)
        return 2
    except replay.DocumentError as exc:
        print(f"not a {replay.FORMAT} document: {exc.field} {exc.message}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0 if result["valid"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
