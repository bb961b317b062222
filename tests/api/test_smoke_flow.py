import pytest


@pytest.mark.django_db(transaction=True)
def test_full_president_game_over_http_by_legal_moves(table_of):
    table_id, users = table_of("president", 4, options={"hands": 1})
    host = users[0]
    assert host.api.post(f"/api/v1/tables/{table_id}/start", format="json").status_code == 200
    by_id = {u.pk: u for u in users}
    for _ in range(500):
        summary = host.api.get(f"/api/v1/tables/{table_id}").json()
        if summary["status"] == "finished":
            break
        for seat in summary["seats"]:
            user = by_id[seat["player"]["id"]]
            state = user.api.get(f"/api/v1/tables/{table_id}/state").json()
            if state["legal_moves"]:
                move = state["legal_moves"][-1]
                r = user.api.post(f"/api/v1/tables/{table_id}/moves", move, format="json")
                assert r.status_code == 200, r.content
                break
    assert host.api.get(f"/api/v1/tables/{table_id}").json()["status"] == "finished"
