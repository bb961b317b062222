"""What bench/run.py and bench/longpoll.py start and stop: a throwaway PostgreSQL cluster and a
private Redis on free ports in a temporary folder, and the web servers under the production
setup. Everything started is recorded by PID and stopped by that PID (never by name)."""

from __future__ import annotations

import glob
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
FLOOR = BENCH / "floor"
PYTHON = os.environ.get("BENCH_PYTHON", str(ROOT / ".venv" / "bin" / "python"))
SECRET = "bench-only-not-a-secret-0123456789-abcdefghijklmnopqrstuvwxyz"

# SERVER: how both the project and the floor are served, the one production knob. "uvicorn"
# is what docker/entrypoint.sh runs (`uvicorn ASGI_APP --workers N`); anything else is a
# command template with {app}, {port} and {workers}, e.g. "python -m gunicorn -k
# uvicorn_worker.UvicornWorker -w {workers} -b 127.0.0.1:{port} {app}" (when installed).
UVICORN = "{python} -m uvicorn {app} --host 127.0.0.1 --port {port} --workers {workers} --no-access-log --log-level warning"


def log(msg: str):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def git_commit() -> str:
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        return sha + ("+dirty" if dirty else "")
    except OSError:
        return "unknown"


def wait_http(url: str, timeout: float, proc: subprocess.Popen | None = None, logfile: Path | None = None):
    """Until something answers HTTP at url (any status)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            tail = logfile.read_text()[-2000:] if logfile and logfile.exists() else ""
            raise SystemExit(f"bench: {url}: the server exited with {proc.returncode}\n{tail}")
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"bench: nothing answered at {url} within {timeout:.0f} s")


class Stack:
    """A temporary folder, the processes started in it, and how to stop them."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="bench-"))
        self.procs: list[tuple[str, subprocess.Popen]] = []
        self.pg_data: Path | None = None
        self.pg_bin: Path | None = None
        self.keep = False

    # -- processes

    def start(self, name: str, cmd: list[str], cwd: Path = ROOT, env: dict | None = None) -> subprocess.Popen:
        logfile = self.dir / f"{name}.log"
        proc = subprocess.Popen(cmd, cwd=cwd, env={**os.environ, **(env or {})}, stdout=logfile.open("w"),
                                stderr=subprocess.STDOUT, start_new_session=True)
        proc.logfile = logfile
        self.procs.append((name, proc))
        return proc

    def stop(self, proc: subprocess.Popen):
        """SIGTERM to the process (uvicorn's supervisor stops its own workers, `manage.py
        serve` its children), SIGKILL after 15 s; then the same for any of its descendants
        left running (serve's Celery worker has a process group of its own)."""
        descendants = [(pid, _started(pid)) for pid in proc_tree(proc.pid)[1:]] if proc.poll() is None else []
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            alive = [(pid, t) for pid, t in descendants if t is not None and _started(pid) == t]
            for pid, _ in alive:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            end = time.monotonic() + 10
            while alive and time.monotonic() < end:
                time.sleep(0.2)
                alive = [(pid, t) for pid, t in alive if _started(pid) == t]
            if not alive:
                break
        self.procs = [(n, p) for n, p in self.procs if p is not proc]

    def run(self, cmd: list[str], cwd: Path = ROOT, env: dict | None = None) -> str:
        done = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"bench: {shlex.join(cmd)} failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
        return done.stdout

    # -- PostgreSQL

    def _as_pg(self, cmd: list[str]) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd

    def postgres(self, *databases: str) -> int:
        """initdb + pg_ctl start on a free port (stock settings, trust auth), then CREATE DATABASE."""
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
        self.pg_bin = Path(os.environ.get("PG_BIN") or (found[-1] if found else ""))
        if not (self.pg_bin / "initdb").exists():
            raise SystemExit("bench: PostgreSQL's initdb not found (set PG_BIN)")
        self.pg_data = self.dir / "pg"
        self.pg_data.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
            shutil.chown(self.pg_data, "postgres")
        self.run(self._as_pg([str(self.pg_bin / "initdb"), "-D", str(self.pg_data / "data"), "-U", "postgres",
                              "--auth=trust", "-E", "UTF8"]))
        port = free_port()
        self.run(self._as_pg([str(self.pg_bin / "pg_ctl"), "-D", str(self.pg_data / "data"), "-l",
                              str(self.pg_data / "server.log"), "-w", "-t", "60", "-o",
                              f"-p {port} -k {self.pg_data} -c listen_addresses=127.0.0.1", "start"]))
        self.pg_port = port
        for db in databases:
            self.run([str(self.pg_bin / "psql"), "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
                      "-c", f"CREATE DATABASE {db}", "postgres"])
        version = self.run([str(self.pg_bin / "postgres"), "--version"]).split()[-1]
        log(f"PostgreSQL {version} on 127.0.0.1:{port}")
        return port

    def pg_url(self, db: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.pg_port}/{db}"

    def pg_pid(self) -> int:
        return int((self.pg_data / "data" / "postmaster.pid").read_text().split()[0])

    def pg_backends(self, db: str) -> int:
        """Client backends connected to db, counted from /proc (psql itself would be refused
        once the clients have taken every connection)."""
        count = 0
        for pid in proc_tree(self.pg_pid()):
            try:
                title = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            count += title.startswith(f"postgres: postgres {db} ")
        return count

    def pg_sessions(self) -> dict[str, int]:
        """Sessions established so far per database (pg_stat_database.sessions, PostgreSQL 14+;
        a backend reports its own when it goes idle or ends), read through psql on the
        `postgres` database, which the apps never use."""
        out = self.run([str(self.pg_bin / "psql"), "-qAt", "-F", " ", "-h", "127.0.0.1", "-p", str(self.pg_port),
                        "-U", "postgres", "-c", "SELECT datname, sessions FROM pg_stat_database WHERE datname IS NOT NULL",
                        "postgres"])
        return {name: int(n) for name, n in (line.split() for line in out.splitlines() if line.strip())}

    def wait_backends_gone(self, databases: list[str], timeout: float = 15):
        """Until no client backend is connected to any of the databases (after their apps stopped)."""
        end = time.monotonic() + timeout
        while any(self.pg_backends(db) for db in databases) and time.monotonic() < end:
            time.sleep(0.2)

    def stop_postgres(self):
        if self.pg_data is None:
            return
        subprocess.run(self._as_pg([str(self.pg_bin / "pg_ctl"), "-D", str(self.pg_data / "data"), "-m", "fast",
                                    "-w", "stop"]), capture_output=True)
        self.pg_data = None

    # -- Redis

    def redis(self) -> str:
        if not shutil.which("redis-server"):
            raise SystemExit("bench: redis-server is not installed")
        port = free_port()
        proc = self.start("redis", ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                    "--appendonly", "no", "--dir", str(self.dir)])
        for _ in range(50):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None:
                    raise SystemExit(f"bench: redis-server exited: {proc.logfile.read_text()[-500:]}") from None
                time.sleep(0.1)
        log(f"Redis on 127.0.0.1:{port}")
        return f"redis://127.0.0.1:{port}/0"

    # -- web servers

    def serve(self, name: str, app: str, cwd: Path, env: dict, server: str, workers: int) -> tuple[int, subprocess.Popen]:
        port = free_port()
        template = UVICORN if server == "uvicorn" else server
        cmd = shlex.split(template.format(python=PYTHON, app=app, port=port, workers=workers))
        if cmd[0] == "python":
            cmd[0] = PYTHON
        proc = self.start(name, cmd, cwd=cwd, env=env)
        return port, proc

    def close(self):
        for _, proc in reversed(self.procs):
            self.stop(proc)
        self.stop_postgres()
        if self.keep:
            log(f"logs kept in {self.dir}")
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and exc_type is not KeyboardInterrupt:
            self.keep = True
        self.close()


def _started(pid: int) -> str | None:
    """The process's start time (field 22 of /proc/PID/stat), None when it is gone or a zombie:
    with the PID it names one process, never a later one that reuses the PID."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else fields[19]


def project_env(database_url: str, redis_url: str, throttles: bool, extra: dict | None = None) -> dict:
    """The project as docker/ runs it (config.settings.production, DEBUG off), on 127.0.0.1
    without TLS. Throttles stay on, with rates no run reaches: their cost (a cache round trip
    per request) is part of every request in production."""
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": SECRET,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "SECURE_SSL_REDIRECT": "false",
        "SECURE_HSTS_SECONDS": "0",
        "LOG_LEVEL": "WARNING",
        "API_THROTTLE_RATES": "anon=1000000/min,user=1000000/min,moves=1000000/min,polls=1000000/min" if throttles else "off",
    }
    return {**env, **(extra or {})}


def proc_tree(pid: int) -> list[int]:
    """pid and its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def proc_figures(pids: list[int]) -> dict:
    """Summed RSS, threads, open file descriptors and CPU seconds of the processes."""
    rss = threads = fds = 0
    cpu = 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            fds += len(os.listdir(f"/proc/{pid}/fd"))
        except (OSError, ValueError):
            continue
        rss += int(status["VmRSS"].split()[0]) if "VmRSS" in status else 0
        threads += int(status["Threads"])
        cpu += (int(stat[11]) + int(stat[12])) / ticks
    return {"rss_mb": round(rss / 1024, 1), "threads": threads, "fds": fds, "cpu_s": round(cpu, 2), "procs": len(pids)}
