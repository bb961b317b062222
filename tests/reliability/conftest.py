"""The real Celery worker fixture of the integration tests, for the fault drills and the soak."""

from tests.integration.conftest import worker  # noqa: F401
