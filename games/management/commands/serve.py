"""`make run`: the API under uvicorn (ASGI, so long-polls hold no thread) and a Celery worker
with its beat scheduler, as child processes. Ctrl-C, or either child exiting, stops both."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the API server and a Celery worker with beat until Ctrl-C."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-worker", action="store_true", help="the API server only")

    def handle(self, *args, host, port, no_worker, **options):
        python = sys.executable
        commands = [[python, "-m", "uvicorn", "config.asgi:application", "--host", host, "--port", str(port)]]
        if not no_worker:
            commands.append([python, "-m", "celery", "-A", "config", "worker", "--beat", "--loglevel", "INFO",
                             "--concurrency", "2"])
        children = [subprocess.Popen(cmd) for cmd in commands]
        self.stdout.write(f"API on http://{host}:{port}/api/v1/ (docs: /api/docs/); Ctrl-C stops everything.")

        def stop(*_):
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)

        signal.signal(signal.SIGTERM, stop)
        try:
            while all(child.poll() is None for child in children):
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            stop()
            for child in children:
                try:
                    child.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    child.kill()
        return None
