"""Figures read back from the Prometheus text format (config/metrics.py), for the tests."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    """Every sample of an exposition: (name, its labels) -> value."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(name: str, text: str | None = None, **labels: str) -> float:
    """One sample's value in `text` (by default what this process's /metrics would answer), 0
    when there is no such sample yet."""
    if text is None:
        from config import metrics

        text = metrics.exposition()[0].decode()
    return samples(text).get((name, frozenset(labels.items())), 0.0)
