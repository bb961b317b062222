"""The API's one request parser: JSON, with a nesting limit.

Python's `json` recurses once per level of nesting, and so do DRF's serializers, our
idempotency hash and the error renderer: a 2 KB body nested 1,000 deep raised
`RecursionError` (a 500 and a 70-line trace in the log). No request of the API needs more
than a handful of levels (the deepest, a Rule Vote carrying a house rule, has five), so
anything deeper than `MAX_JSON_DEPTH` is refused as 400 `invalid` before any other code sees it.
"""

from __future__ import annotations

import codecs
import json

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils import json as drf_json

MAX_JSON_DEPTH = 32


def json_depth_exceeds(value, limit: int) -> bool:
    """True when `value` nests objects/arrays deeper than `limit`. Iterative, so that the
    check itself cannot overflow the stack."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def json_has_nul(value) -> bool:
    """True when a string (a key or a value) anywhere in `value` contains U+0000. Iterative,
    like the depth check; called after it, so the nesting is bounded."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if "\x00" in node:
                return True
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


class JSONParser(parsers.JSONParser):
    """DRF's JSONParser (strict: no NaN/Infinity) plus the depth limit."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        limit = getattr(settings, "API_MAX_JSON_DEPTH", MAX_JSON_DEPTH)
        too_deep = ParseError(f"the JSON body is nested more than {limit} levels deep")
        try:
            decoded = codecs.getreader(encoding)(stream)
            parse_constant = drf_json.strict_constant if self.strict else None
            data = json.load(decoded, parse_constant=parse_constant)
        except RecursionError as exc:  # deeper than the interpreter allows: certainly too deep
            raise too_deep from exc
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        if json_depth_exceeds(data, limit):
            raise too_deep
        if json_has_nul(data):
            # PostgreSQL's text and jsonb cannot hold U+0000: an error body echoing such a
            # value, stored for an Idempotency-Key, was a DataError and a 500 (docs/reliability.md).
            # No field of the API has a use for it.
            raise ParseError("the JSON body contains a NUL character (U+0000)")
        return data

