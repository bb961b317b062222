"""api.md: 429 `throttled` with Retry-After; moves have their own per-user scope."""

import pytest
from rest_framework.throttling import SimpleRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from config import throttling
from config.throttling import MoveRateThrottle


@pytest.fixture(params=["project", "drf"])
def throttled(monkeypatch, request):
    """Throttling on with tiny rates (the test settings turn it off, as load tests do), with the
    project's counting throttles and, for comparison, DRF's own."""
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"user": "5/min", "anon": "2/min", "moves": "2/min"})
    user_throttle = throttling.UserRateThrottle if request.param == "project" else UserRateThrottle
    monkeypatch.setattr(APIView, "throttle_classes", [user_throttle, MoveRateThrottle])
    throttling.reset()
    yield
    throttling.reset()


@pytest.mark.django_db
def test_too_many_requests_get_429_throttled_with_retry_after(make_user, throttled):
    user = make_user()
    statuses = [user.api.get("/api/v1/me").status_code for _ in range(6)]
    assert statuses == [200] * 5 + [429]
    r = user.api.get("/api/v1/me")
    assert r.json()["code"] == "throttled"
    assert int(r["Retry-After"]) >= 1
    # Another user has their own budget.
    assert make_user().api.get("/api/v1/me").status_code == 200


@pytest.mark.django_db
def test_moves_have_their_own_scope(make_user, throttled):
    user = make_user()
    table_id = user.api.post("/api/v1/tables", {"game": "pitch", "seats": 3}, format="json").json()["id"]
    url = f"/api/v1/tables/{table_id}/moves"
    codes = [user.api.post(url, {"type": "bid", "value": 0}, format="json").status_code for _ in range(3)]
    # The table has not started (409) twice, then the moves scope is spent.
    assert codes == [409, 409, 429]
    assert user.api.get(url).status_code == 200
