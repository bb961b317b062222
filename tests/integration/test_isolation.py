"""Tests never share the developer's broker folder or database: the run has
its own temporary folder (config/settings/test.py) for the SQLite test database, the broker
and the beat schedule, removed when the run ends, so no message piles up across runs."""

import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.db import connection

from config.celery import app
from tests.integration.conftest import ROOT


def test_the_broker_and_the_database_of_a_test_run_are_outside_var():
    var = Path(settings.BASE_DIR) / "var"
    broker = Path(settings.CELERY_BROKER_DIR)
    assert not broker.resolve().is_relative_to(var.resolve())
    assert not Path(settings.VAR_DIR).resolve().is_relative_to(var.resolve())
    if connection.vendor == "sqlite":
        assert not Path(connection.settings_dict["TEST"]["NAME"]).resolve().is_relative_to(var.resolve())
    if settings.CELERY_BROKER_URL.startswith("filesystem"):
        # What the Celery app (and every worker the tests start) actually uses.
        assert Path(app.conf.broker_transport_options["data_folder_in"]).is_relative_to(broker)


def test_a_test_runs_folder_is_removed_when_the_run_ends(tmp_path):
    probe = (
        "import django; django.setup(); from django.conf import settings; "
        "open(settings.CELERY_BROKER_DIR / 'out' / '1_left.celery.msg', 'w').write('{}'); "
        "print(settings.VAR_DIR)"
    )
    env = {"DJANGO_SETTINGS_MODULE": "config.settings.test", "PATH": "/usr/bin:/bin", "VAR_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    run_dir = Path(out.stdout.strip())
    # Even with VAR_DIR exported, the run used a folder of its own, and left nothing behind.
    assert run_dir != tmp_path and not run_dir.exists()
    assert list(tmp_path.iterdir()) == []
