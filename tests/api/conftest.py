"""Fixtures shared by the API tests."""

from __future__ import annotations

import pytest

from tests.api.helpers import president_hands_deck, seat_users


@pytest.fixture
def started(table_of):
    """A started 4-seat President table with a known deal: (table_id, {seat: user})."""
    hands, deck = president_hands_deck()
    table_id, users = table_of("president", 4, deck=deck, first_dealer=3)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    return table_id, seat_users(users[0].api, table_id, users)
