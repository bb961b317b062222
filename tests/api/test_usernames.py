"""Usernames are unique regardless of case, enforced by the database (a
functional `Lower("username")` unique constraint), so concurrent case variants of one name
make exactly one account; registration answers the others 400 `invalid`."""

from __future__ import annotations

import threading

import pytest
from django.db import IntegrityError, connection, transaction
from rest_framework.test import APIClient

from accounts import services
from accounts.models import User

PASSWORD = "a long passphrase"


def register(username: str):
    return APIClient().post("/api/v1/auth/register", {"username": username, "password": PASSWORD}, format="json")


@pytest.mark.django_db(transaction=True)
def test_sixteen_concurrent_case_variants_make_exactly_one_account():
    variants = ["racer", "Racer", "RACER", "rAcer", "raCer", "racEr", "raceR", "RAcer",
                "rACer", "raCEr", "racER", "RaceR", "rACEr", "RACEr", "rACER", "RaCeR"]
    barrier = threading.Barrier(len(variants))
    results: list = []
    errors: list = []

    def attempt(name):
        try:
            barrier.wait()
            results.append(register(name))
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt, args=(name,)) for name in variants]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert User.objects.filter(username__iexact="racer").count() == 1
    assert sorted(r.status_code for r in results) == [201] + [400] * 15
    for refused in (r for r in results if r.status_code == 400):
        assert refused.json()["code"] == "invalid" and "username" in refused.json()["detail"]["fields"]


@pytest.mark.django_db
def test_the_database_refuses_a_case_variant_even_when_the_check_is_passed(monkeypatch):
    # The window of the race, made deterministic: the pre-insert check finds nothing (as it
    # does for two requests in flight at once); the unique index still refuses the second.
    assert register("Eve").status_code == 201
    real_filter = User.objects.filter
    monkeypatch.setattr(User.objects, "filter", lambda *a, **kw: real_filter(pk=-1) if "username__iexact" in kw else real_filter(*a, **kw))
    refused = register("eve")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid"
    assert refused.json()["detail"]["fields"] == {"username": ["already taken"]}
    assert real_filter(username__iexact="eve").count() == 1


@pytest.mark.django_db
def test_the_constraint_holds_below_the_service_too():
    User.objects.create_user(username="Mallory", password=PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username="mALLORY", password=PASSWORD)


@pytest.mark.django_db
def test_registration_keeps_the_spelling_given():
    user, _ = services.user_register(username="CamelCase", password=PASSWORD)
    assert User.objects.get(pk=user.pk).username == "CamelCase"


@pytest.mark.django_db(transaction=True)
def test_the_migration_renames_later_case_duplicates_and_keeps_the_first():
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate([("accounts", "0001_initial")])
    old = executor.loader.project_state([("accounts", "0001_initial")]).apps.get_model("accounts", "User")
    first = old.objects.create(username="Zed", password="!")
    second = old.objects.create(username="zed", password="!")
    third = old.objects.create(username="ZED", password="!")
    taken = old.objects.create(username=f"zEd-dup{third.pk + 2}", password="!")  # the next account's rename target
    fourth = old.objects.create(username="zeD", password="!")
    assert fourth.pk == third.pk + 2
    other = old.objects.create(username="someone", password="!")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    names = dict(User.objects.values_list("pk", "username"))
    assert names[first.pk] == "Zed" and names[other.pk] == "someone" and names[taken.pk] == taken.username
    assert names[second.pk] == f"zed-dup{second.pk}" and names[third.pk] == f"ZED-dup{third.pk}"
    assert names[fourth.pk] == f"zeD-dup{fourth.pk}-dup{fourth.pk}"
    assert len({n.lower() for n in names.values()}) == len(names)


@pytest.mark.django_db
def test_a_token_is_issued_for_the_username_in_any_case():
    registered = register("Quinn").json()
    response = APIClient().post("/api/v1/auth/token", {"username": "qUINN", "password": PASSWORD}, format="json")
    assert response.status_code == 200 and response.json()["token"] != registered["token"]  # a login of its own
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get("/api/v1/me").json()["username"] == "Quinn"
