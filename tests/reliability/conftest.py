"""The integration tests' real components, for the fault drills and the soak: a Celery worker
with beat, and a cluster of two web processes and two workers."""

from tests.integration.conftest import worker  # noqa: F401
from tests.integration.test_multiprocess import cluster  # noqa: F401
