"""The integration tests' real components, for the fault drills and the soak: a Celery worker
with beat, and a cluster of two web processes and two workers."""

from pathlib import Path

import pytest

from tests.integration.conftest import worker  # noqa: F401
from tests.integration.test_multiprocess import cluster  # noqa: F401

# The broad sweeps (every endpoint x role x table state, every bad body on every operation,
# schemathesis by role) run in CI's `make test-slow` step, not in `make test` (the
# suite a developer runs stays fast). The fault drills and the soak stay where they are: they
# need PostgreSQL and Redis, which CI's `make test` pass has.
SWEEPS = {"test_authorization_matrix.py", "test_bad_input.py", "test_fuzz_roles.py"}


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        path = Path(item.path)
        if path.parent == here and path.name in SWEEPS:
            item.add_marker(pytest.mark.slow)
