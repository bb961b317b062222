"""Every model change has its migration: `makemigrations --check` finds nothing to write (a
model field added without a migration would break `make run`'s migrate on a fresh machine)."""

from __future__ import annotations

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_its_migration(capsys):
    try:
        call_command("makemigrations", check=True, dry_run=True, verbosity=1)
    except SystemExit as exc:  # --check exits 1 when a migration is missing
        pytest.fail(f"makemigrations --check found changes without a migration (exit {exc.code}):\n{capsys.readouterr().out}")
    assert "No changes detected" in capsys.readouterr().out
