"""Fair deals through the service and the API (api.md, "Fair deals, export and replay"):
commitments in the state and the log, reveals, the export, its verification by the endpoint,
the command and the standalone tool, and duplicate play."""

from __future__ import annotations

import copy
import io
import json
import logging
import random
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from accounts.models import User
from games.engine import fairness, registry
from games.models import Table, WebhookDelivery
from games.services import moves, tables, webhooks
from tests.services.helpers import pick

ROOT = Path(__file__).resolve().parents[2]
SEED = 2**62 + 987654321  # a seed whose digits no id or timestamp holds by chance
GAMES = [
    ("president", 4, {"hands": 2, "exchange": "two"}),
    ("pitch", 3, {"target_score": 5}),
    ("lopti", 3, {"rounds": 2}),
]


def new_table(make_user, game, n, options, **fields):
    users = [make_user(staff=True)] + [make_user() for _ in range(n - 1)]
    if "duplicate_of" not in fields:
        fields.setdefault("seed", SEED)  # the same deals on every run, so a failure reproduces
    table = tables.table_create(user=users[0], game=game, seats=n, options=options, **fields)
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    tables.table_start(table_id=table.pk, user=users[0])
    table.refresh_from_db()
    by_pk = {user.pk: user for user in users}
    return table, {row.index: by_pk[row.user_id] for row in table.seats.all()}


def step(table, users, rng) -> None:
    engine = registry.get(table.game)
    seat = rng.choice(engine.to_act(table.state))
    player = engine.seat_players(table.state)[seat]
    moves.move_submit(table_id=table.pk, user=users[player], move=pick(engine.legal_moves(table.state, seat), rng))
    table.refresh_from_db()


def play_out(table, users, rng, max_steps=5000) -> None:
    for _ in range(max_steps):
        if table.status != Table.Status.ACTIVE:
            return
        step(table, users, rng)
    raise AssertionError("the table did not finish")


def export(table, user):
    response = user.api.get(f"/api/v1/tables/{table.pk}/export")
    assert response.status_code == 200, response.content
    return response.json()


def verify(user, document):
    response = user.api.post("/api/v1/replays/verify", document, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def current_secret(table) -> str:
    return fairness.deal_secret(table.seed, table.state["fairness"]["deal"]).hex()


# --- round trips ----------------------------------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize("game, n, options", GAMES, ids=[g for g, _, _ in GAMES])
def test_a_random_game_exports_and_verifies_and_every_tampering_is_caught(make_user, game, n, options):
    rng = random.Random(game)
    table, users = new_table(make_user, game, n, options)
    play_out(table, users, rng)
    doc = export(table, users[0])
    jsonschema.validate(doc, json.loads((ROOT / "docs" / "schemas" / "cardgames-table-1.json").read_text()))
    assert doc["format"] == "cardgames-table/1" and doc["game"] == game and len(doc["deals"]) >= 2
    assert len(doc["moves"]) == table.move_count and doc["winners"] == registry.get(game).winners(table.state)
    result = verify(users[1], doc)
    assert result == {"valid": True, "final_scores": registry.get(game).scores(table.state)}

    # One move: the first that another legal move can replace (the log then goes elsewhere).
    flipped = copy.deepcopy(doc)
    entry = next(m for m in flipped["moves"] if m["move"].get("type") == "play")
    entry["move"] = {"type": "pass"} if game == "president" else {"type": "play", "cards": ["2C"], "card": "2C"}
    assert verify(users[1], flipped)["reason"].startswith("tampered move: move ")

    # One card of a starting hand, swapped with another seat's.
    flipped = copy.deepcopy(doc)
    hands = flipped["deals"][1]["hands"]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    result = verify(users[1], flipped)
    assert not result["valid"] and result["reason"].startswith("wrong deal: deal 1's starting hands")

    # One secret: it no longer hashes to its commitment.
    flipped = copy.deepcopy(doc)
    secret = flipped["deals"][1]["secret"]
    flipped["deals"][1]["secret"] = ("0" if secret[0] != "0" else "1") + secret[1:]
    result = verify(users[1], flipped)
    assert not result["valid"] and result["reason"].startswith("wrong secret: deal 1")

    # A secret and its commitment both replaced: the log's commitment gives it away.
    forged = bytes(32)
    flipped["deals"][1].update(secret=forged.hex(), commitment=fairness.commitment(forged))
    assert verify(users[1], flipped)["reason"].startswith("wrong secret: move ")

    # One score.
    flipped = copy.deepcopy(doc)
    flipped["scores"][0] += 1
    result = verify(users[1], flipped)
    assert result["reason"].startswith("wrong score") and result["final_scores"] == doc["scores"]


@pytest.mark.django_db
def test_verify_export_command_and_the_standalone_tool_without_django(make_user, tmp_path):
    table, users = new_table(make_user, "pitch", 3, {"target_score": 3})
    play_out(table, users, random.Random(3))
    doc = export(table, users[0])
    good = tmp_path / "good.json"
    good.write_text(json.dumps(doc))
    out = io.StringIO()
    call_command("verify_export", str(good), stdout=out)
    assert json.loads(out.getvalue())["valid"] is True
    doc["scores"][1] -= 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(CommandError) as excinfo:
        call_command("verify_export", str(bad), stdout=io.StringIO())
    assert excinfo.value.returncode == 1 and str(excinfo.value).startswith("wrong score")
    # -S: no site-packages at all, so no Django: the standard library and games/engine only.
    for path, code in ((good, 0), (bad, 1)):
        run = subprocess.run([sys.executable, "-S", str(ROOT / "tools" / "verify_export.py"), str(path)],
                             capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert run.returncode == code, run.stderr
        assert json.loads(run.stdout)["valid"] is (code == 0)
    junk = tmp_path / "junk.json"
    junk.write_text('{"format": "cardgames-table/1", "game": "pitch"}')
    run = subprocess.run([sys.executable, "-S", str(ROOT / "tools" / "verify_export.py"), str(junk)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "seats" in run.stderr


# --- commitments and reveals in the state and the log ----------------------------------------------
@pytest.mark.django_db
def test_each_deal_is_committed_before_its_first_decision_and_revealed_after_its_hand(make_user):
    table, users = new_table(make_user, "president", 4, {"hands": 3})
    user = users[0]
    state = user.api.get(f"/api/v1/tables/{table.pk}/state").json()
    log = user.api.get(f"/api/v1/tables/{table.pk}/moves").json()
    secret0 = fairness.deal_secret(table.seed, 0)
    assert state["public"]["deal"] == 0 and state["public"]["fixed_deck"] is False
    assert state["public"]["deal_commitment"] == fairness.commitment(secret0)
    assert log[0]["seq"] == 0 and log[0]["type"] == "deal" and log[0]["deal_commitment"] == fairness.commitment(secret0)
    play_out(table, users, random.Random(5))
    log = user.api.get(f"/api/v1/tables/{table.pk}/moves").json()
    events = [e for entry in log for e in entry["events"]]
    commitments = [e["deal_commitment"] for e in events if e["type"] == "deal"]  # entry 0's first
    reveals = [e for e in events if e["type"] == "deal_revealed"]
    hands = sum(e["type"] == "hand_end" for e in events)
    assert hands >= 3 and len(commitments) == len(set(commitments)) == len(reveals) == hands  # a fresh one per deal
    for k, (committed, reveal) in enumerate(zip(commitments, reveals, strict=True)):
        assert reveal["deal"] == k
        assert fairness.commitment(bytes.fromhex(reveal["deal_secret"])) == committed
    # Each reveal follows its hand's end, in the same move, and precedes the next deal.
    types = [e["type"] for e in events if e["type"] in ("hand_end", "deal_revealed", "deal")]
    assert types == ["deal"] + ["hand_end", "deal_revealed", "deal"] * (hands - 1) + ["hand_end", "deal_revealed"]


@pytest.mark.django_db
def test_a_staff_fixed_deck_is_marked_instead_of_committed(make_user):
    deck = registry.get("lopti").cards(registry.get("lopti").new_game(players=2, options={}, seed=1))
    table, users = new_table(make_user, "lopti", 2, {"rounds": 1}, deck=sorted(deck))
    state = users[1].api.get(f"/api/v1/tables/{table.pk}/state").json()
    assert state["public"]["fixed_deck"] is True and state["public"]["deal_commitment"] is None
    first = users[1].api.get(f"/api/v1/tables/{table.pk}/moves").json()[0]
    assert first["fixed_deck"] is True and "deal_commitment" not in first
    play_out(table, users, random.Random(2))
    doc = export(table, users[0])
    assert doc["deals"][0]["fixed_deck"] is True and doc["deals"][0]["deck"] == sorted(deck)
    assert verify(users[1], doc)["valid"] is True


@pytest.mark.django_db
def test_an_aborted_table_reveals_its_deal_and_exports(make_user):
    table, users = new_table(make_user, "pitch", 4, {})
    rng = random.Random(8)
    for _ in range(3):
        step(table, users, rng)
    secret = current_secret(table)
    conflict = users[1].api.get(f"/api/v1/tables/{table.pk}/export")
    assert conflict.status_code == 409 and conflict.json()["code"] == "conflict"
    assert secret not in conflict.content.decode()
    tables.table_abort(table_id=table.pk)
    log = users[1].api.get(f"/api/v1/tables/{table.pk}/moves").json()
    assert log[-1]["type"] == "deal_revealed" and log[-1]["deal_secret"] == secret and log[-1]["seq"] == 4
    doc = export(table, users[1])
    assert doc["aborted"] is True and doc["winners"] == [] and doc["deals"][-1]["secret"] == secret
    assert verify(users[1], doc)["valid"] is True


# --- the secret of a deal in progress, and the seed, appear nowhere ---------------------------------
@pytest.mark.django_db
def test_no_response_log_error_event_webhook_or_application_log_holds_the_seed_or_a_live_secret(
    make_user, settings, caplog
):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    caplog.set_level(logging.DEBUG)
    users_list = [make_user(staff=True)] + [make_user() for _ in range(3)]
    for user in users_list:
        webhooks.webhook_create(user=user, url="http://127.0.0.1:9/hook", events=list(webhooks.EVENTS), secret="s" * 20)
    table = tables.table_create(user=users_list[0], game="president", seats=4, options={"hands": 2}, seed=2**62 + 12345)
    for user in users_list[1:]:
        tables.table_join(table_id=table.pk, user=user)
    tables.table_start(table_id=table.pk, user=users_list[0])
    table.refresh_from_db()
    by_pk = {user.pk: user for user in users_list}
    users = {row.index: by_pk[row.user_id] for row in table.seats.all()}
    rng = random.Random(11)
    seen_deals = set()
    base = f"/api/v1/tables/{table.pk}"
    operator = Client()
    operator.force_login(User.objects.create_superuser("operator", "op@example.com", "operator password"))
    while table.status == Table.Status.ACTIVE and len(seen_deals) < 2:
        secret, deal = current_secret(table), table.state["fairness"]["deal"]
        seen_deals.add(deal)
        texts = []
        for user in [*users.values(), make_user()]:  # the players and a spectator
            for path in ("/state", "/moves", "", "/export", "/events"):
                answer = user.api.get(base + path, HTTP_ACCEPT="text/event-stream" if path == "/events" else "")
                texts.append(b"".join(answer.streaming_content) if answer.streaming else answer.content)
            # an error: a move that is not allowed now
            texts.append(user.api.post(base + "/moves", {"type": "play", "cards": ["ZZ"]}, format="json").content)
        texts.append(users[0].api.get("/api/v1/me/tables").content)
        for page in ("/admin/games/table/", f"/admin/games/table/{table.pk}/change/"):
            shown = operator.get(page)
            assert shown.status_code == 200
            texts.append(shown.content)
        texts += [d.body.encode() for d in WebhookDelivery.objects.all()]
        texts += [r.getMessage().encode() for r in caplog.records]
        blob = b"\n".join(texts).decode()
        assert secret not in blob, f"deal {deal}'s secret leaked"
        assert str(table.seed) not in blob
        # step to the next decision of this deal or the next
        step(table, users, rng)
    assert seen_deals == {0, 1}


# --- duplicate play ----------------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_duplicate_deals_the_same_cards_and_only_staff_may_make_one(make_user):
    source, source_users = new_table(make_user, "pitch", 3, {"target_score": 3})
    play_out(source, source_users, random.Random(1))
    staff, player = make_user(staff=True), make_user()
    refused = player.api.post("/api/v1/tables", {"game": "pitch", "seats": 3, "duplicate_of": str(source.pk)},
                              format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    wrong = staff.api.post("/api/v1/tables", {"game": "pitch", "seats": 4, "duplicate_of": str(source.pk)}, format="json")
    assert wrong.status_code == 400 and "duplicate_of" in wrong.json()["detail"]["fields"]
    created = staff.api.post("/api/v1/tables", {"game": "pitch", "seats": 3, "duplicate_of": str(source.pk)},
                             format="json")
    assert created.status_code == 201, created.content
    assert str(SEED) not in created.content.decode() and "seed" not in created.json()
    duplicate = Table.objects.get(pk=created.json()["id"])
    others = [make_user(), make_user()]
    for user in others:
        tables.table_join(table_id=duplicate.pk, user=user)
    tables.table_start(table_id=duplicate.pk, user=staff)
    duplicate.refresh_from_db()
    play_out(duplicate, {0: staff, 1: others[0], 2: others[1]}, random.Random(99))
    original, copy_ = export(source, staff), export(duplicate, staff)
    assert copy_["duplicate_of"] == str(source.pk) and original["duplicate_of"] is None
    shared = min(len(original["deals"]), len(copy_["deals"]))
    assert [d["hands"] for d in copy_["deals"][:shared]] == [d["hands"] for d in original["deals"][:shared]]
    assert copy_["first_dealer"] == original["first_dealer"]
    assert verify(staff, copy_)["valid"] is True


# --- bad documents -------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_bad_documents_are_400_invalid_naming_the_field_and_big_ones_413(make_user, settings):
    user = make_user()
    table, users = new_table(make_user, "pitch", 3, {"target_score": 3})
    play_out(table, users, random.Random(4))
    doc = export(table, users[0])

    def problem(document, raw=None):
        response = user.api.post("/api/v1/replays/verify", raw if raw is not None else json.dumps(document),
                                 content_type="application/json")
        assert response.status_code == 400, response.content
        body = response.json()
        assert body["code"] == "invalid"
        return list(body["detail"]["fields"])

    assert problem(None, raw="{not json") == ["document"]
    assert problem([1, 2]) == ["document"]
    assert problem({**doc, "format": "cardgames-table/2"}) == ["format"]
    assert problem({k: v for k, v in doc.items() if k != "moves"}) == ["moves"]
    broken = copy.deepcopy(doc)
    broken["deals"][0]["secret"] = "not hex"
    assert problem(broken) == ["deals[0].secret"]
    broken = copy.deepcopy(doc)
    broken["moves"][2]["seat"] = 9
    assert problem(broken) == ["moves[2].seat"]
    # A shuffled deal's cards come from its secret: a deck listed beside it is a claim the replay
    # would never check, so it is refused (found by schemathesis from the operation's example).
    broken = copy.deepcopy(doc)
    broken["deals"][0]["deck"] = ["AS"]
    assert problem(broken) == ["deals[0].deck"]
    assert problem({**doc, "options": {"no_such_option": 1}}) == ["options"]
    assert problem({**doc, "game": "chess"}) == ["game"]
    # A hostile move is a tampered move, never a 500.
    broken = copy.deepcopy(doc)
    broken["moves"][0]["move"] = {"type": "bid", "value": [[[]]]}
    assert verify(user, broken)["reason"].startswith("tampered move: move 1")
    settings.REPLAY_MAX_BYTES = 1000
    big = user.api.post("/api/v1/replays/verify", doc, format="json")
    assert big.status_code == 413 and big.json()["code"] == "too_large"


# --- tables dealt before fair deals ----------------------------------------------------------------------
@pytest.mark.django_db
def test_a_table_dealt_before_fair_deals_still_replays_and_is_not_exported(make_user):
    table, users = new_table(make_user, "president", 4, {"hands": 2})
    engine = registry.get("president")
    # The state such a table stored: the old generator's deal, no `fairness`.
    old = engine.new_game(players=4, options=table.options, seed=table.seed, shuffle=0)
    Table.objects.filter(pk=table.pk).update(state=old)
    table.refresh_from_db()
    rng = random.Random(6)
    for _ in range(60):
        step(table, users, rng)
    assert "fairness" not in table.state
    out = io.StringIO()
    call_command("verify_tables", "--table", str(table.pk), stdout=out)
    assert "1 table(s) checked, 0 differ(s)" in out.getvalue()
    log = users[0].api.get(f"/api/v1/tables/{table.pk}/moves").json()
    assert log[0]["seq"] == 1 and users[0].api.get(f"/api/v1/tables/{table.pk}/state").json()["public"][
        "deal_commitment"] is None
    tables.table_abort(table_id=table.pk)
    refused = users[0].api.get(f"/api/v1/tables/{table.pk}/export")
    assert refused.status_code == 409 and "shuffle 0" in refused.json()["message"]
