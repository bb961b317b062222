"""`make bench`: the project beside two framework floors (bench/floor/), on the same Django,
Python, PostgreSQL and Redis, in one run; prints the ratios against each floor.

The floors are one app (bench/floor/) served two ways:
  floor          the same server as the project (SERVER, WORKERS: uvicorn, ASGI) with the same
                 connection settings (DB_CONN_MAX_AGE, the psycopg pool under ASGI);
  floor_gthread  the strongest plain Django deployment: gunicorn's gthread worker (sync WSGI,
                 WORKERS processes x GTHREADS threads) with persistent connections
                 (CONN_MAX_AGE=600, no pool), on a database of its own.

Starts a throwaway PostgreSQL cluster and a private Redis, migrates and seeds the apps, serves
them, then for each of REPS repetitions measures every pair on the project and on each floor
back to back (the order rotated by one each repetition: over three repetitions each app runs
first, second and last once), and prints the median, min and max of the same-repetition
ratios as a Markdown table (for docs/performance.md), one row per pair and floor. JSON lines
go to bench/results/.

Pairs (project / floor):
  read     GET /tables/{id}/state (200)               / GET /floor/state (200)
  read304  the same with If-None-Match (304)          / GET /floor/state with If-None-Match (304)
  play     moves/s and move p95 of 4 scripted humans  / POST /floor/move: writes/s and p95
           per table, CONC tables, no bots
  bots     (BOTS=1) 1 human + 3 random bots per table, a Celery worker running / floor writes

Environment: CONC (8), DURATION (10 s), WARMUP (2 s), REPS (3), SERVER (uvicorn, or a command
template, see bench/stack.py), WORKERS (2), FLOORS ("uvicorn gthread": which floors),
GTHREADS (threads per gunicorn worker: CONC within 4..8), PAIRS (read read304 play), BOTS (0),
WAIT (30: the ?wait= of the play clients; 0 = poll every POLL_INTERVAL s), THROTTLES (1),
DB_CONN_MAX_AGE (0, given to the project and the uvicorn floor), WORKER_DB_CONN_MAX_AGE (60, the
bots pair's Celery worker, as docker/env.example), WORKER_CONCURRENCY (4, its processes, as
docker/entrypoint.sh), PROJECT_ENV ("K=V ..." extra
for the project), OUT.
"""

from __future__ import annotations

import json
import os
import shlex
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from stack import (
    BENCH,
    FLOOR,
    PYTHON,
    ROOT,
    Stack,
    git_commit,
    log,
    proc_figures,
    proc_tree,
    project_env,
    wait_http,
)


def measure(port: int, scenario: str, targets: Path, cfg: dict, labels: dict, extra: list[str] = ()) -> dict:
    cmd = [PYTHON, str(BENCH / "load.py"), "--base", f"http://127.0.0.1:{port}", "--scenario", scenario,
           "--targets", str(targets), "-c", str(cfg["conc"]), "-d", str(cfg["duration"]),
           "--warmup", str(cfg["warmup"]), *extra]
    cmd += [arg for k, v in labels.items() for arg in ("--label", f"{k}={v}")]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=cfg["duration"] + cfg["warmup"] + 120)
    if done.returncode != 0:
        raise SystemExit(f"bench: load.py failed:\n{done.stderr[-3000:]}")
    if done.stderr.strip():
        print(done.stderr.strip()[-1000:], file=sys.stderr)
    row = json.loads(done.stdout.strip().splitlines()[-1])
    bad = sum(row["unexpected"].values()) + sum(row["failures"].values())
    rate = row.get("moves_per_s", row["rps"])
    log(f"  {labels['target']:13} {labels['pair']:7} {rate:8.1f}/s  p50 {row['p50_ms']} p95 {row['p95_ms']} ms"
        f"{f'  BAD {bad}' if bad else ''}")
    return row


def rate(row: dict) -> float:
    return row["moves_per_s"] if "moves_per_s" in row else row["rps"]


def ratio_cell(values: list[float]) -> str:
    if not values:
        return "n/a"
    med = statistics.median(values)
    return f"{med:.2f}× ({min(values):.2f}–{max(values):.2f})" if len(values) > 1 else f"{med:.2f}×"


def _median(both: list[dict], target: str, key: str) -> float:
    return statistics.median(r[target][key] or 0 for r in both)


def _bad(both: list[dict], target: str) -> int:
    return sum(sum(r[target]["unexpected"].values()) + sum(r[target]["failures"].values()) for r in both)


# The floors: the name a measurement's "target" carries, per FLOORS word.
FLOOR_NAMES = {"uvicorn": "floor", "gthread": "floor_gthread"}
# gunicorn's gthread worker as a Django user deploys it: sync WSGI (floor_api/wsgi.py),
# WORKERS processes of GTHREADS threads, an idle keep-alive connection parked in the worker's
# poller (no thread held) for 5 s, no access log. A thread per request is what makes
# persistent connections work here: each thread keeps its own for CONN_MAX_AGE seconds.
GUNICORN_GTHREAD = ("{python} -m gunicorn {app} --worker-class gthread --workers {workers} --threads {threads} "
                    "--bind 127.0.0.1:{port} --keep-alive 5 --log-level warning")
GTHREAD_CONN_MAX_AGE = "600"
# The bars the project keeps against the gthread floor (docs/performance.md): printed, never asserted.
BARS = {("read304", "floor_gthread"): 4.0, ("read", "floor_gthread"): 1.2}


def floor_labels(cfg: dict) -> dict[str, str]:
    """The floors of this run, in table order, with the labels the table shows."""
    labels = {"floor": f"floor ({cfg['server_label']}, CONN_MAX_AGE={cfg['conn_max_age']})",
              "floor_gthread": f"floor (gunicorn gthread, CONN_MAX_AGE={GTHREAD_CONN_MAX_AGE})"}
    return {FLOOR_NAMES[f]: labels[FLOOR_NAMES[f]] for f in cfg["floors"]}


def gthreads(conc: int) -> int:
    """Threads per gunicorn worker: one per client of the load (so no request waits for a
    thread even when every client's connection lands on the same worker), at least 4, at most
    8 (more threads than that only contend for the GIL on a small machine)."""
    return min(8, max(4, conc))


def gthread_env(database_url: str) -> dict:
    """The gthread floor's environment: persistent connections, no pool (the floor's
    dbconfig then gives CONN_MAX_AGE=600, as Django's settings would say it)."""
    return {"DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "floor_api.settings",
            "DB_CONN_MAX_AGE": GTHREAD_CONN_MAX_AGE, "DB_POOL": "0"}


def rotation(rep: int, targets: list[str]) -> list[str]:
    """The order of the targets in repetition rep (from 1): rotated by one each repetition,
    so over len(targets) repetitions each target runs once in each position."""
    k = (rep - 1) % len(targets)
    return targets[k:] + targets[:k]


PLAN = {  # pair: (floor scenario, floor targets, project scenario, project targets)
    "read": ("read", "read", "read", "read"),
    "read304": ("read304", "read", "read304", "read"),
    "play": ("write", "write", "play", "play"),
    "bots": ("write", "write", "play", "bots"),
}


def plan(pair: str, rep: int, targets: list[str]) -> list[tuple[str, str, str, bool]]:
    """The runs of one pair in one repetition: (target, scenario, targets file, play args?)."""
    fscen, ftargets, pscen, ptargets = PLAN[pair]
    runs = {t: (t, fscen, f"{t}_{ftargets}", False) for t in targets if t != "project"}
    runs["project"] = ("project", pscen, ptargets, pscen == "play")
    return [runs[t] for t in rotation(rep, targets)]


def report(rows: list[dict], cfg: dict) -> str:
    """The Markdown table: per pair and floor, the median (min–max) of same-repetition ratios."""
    names = {"read": "GET state (200) vs floor read", "read304": "GET state with If-None-Match (304) vs floor 304",
             "play": "moves, 4 humans per table vs floor write", "bots": "moves, 1 human + 3 bots vs floor write"}
    lines = [f"| pair ({cfg['label']}) | floor | rate ratio | p95 ratio (lower is better) "
             "| project rate, p95 | floor rate, p95 | bad answers (project/floor) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for pair in cfg["pairs"]:
        reps = {}
        for row in rows:
            if row["pair"] == pair:
                reps.setdefault(row["rep"], {})[row["target"]] = row
        for floor, label in cfg["floor_labels"].items():
            both = [{"project": r["project"], "floor": r[floor]} for r in reps.values() if "project" in r and floor in r]
            if not both:
                continue
            rates = ratios(both)
            p95s = [r["project"]["p95_ms"] / r["floor"]["p95_ms"] for r in both
                    if r["project"]["p95_ms"] and r["floor"]["p95_ms"]]
            lines.append(
                f"| {names[pair]} | {label} | {ratio_cell(rates)} | {ratio_cell(p95s)} "
                f"| {statistics.median(rate(r['project']) for r in both):.0f}/s, {_median(both, 'project', 'p95_ms'):.1f} ms "
                f"| {statistics.median(rate(r['floor']) for r in both):.0f}/s, {_median(both, 'floor', 'p95_ms'):.1f} ms "
                f"| {_bad(both, 'project')}/{_bad(both, 'floor')} |")
    return "\n".join(lines)


def ratios(both: list[dict]) -> list[float]:
    return [rate(r["project"]) / rate(r["floor"]) for r in both if rate(r["floor"])]


def bars(rows: list[dict], cfg: dict) -> list[str]:
    """One line per bar of BARS whose pair and floor ran: the median ratio, met or not."""
    out = []
    for (pair, floor), bar in BARS.items():
        if pair not in cfg["pairs"] or floor not in cfg["floor_labels"]:
            continue
        reps = {}
        for row in rows:
            if row["pair"] == pair and row["target"] in ("project", floor):
                reps.setdefault(row["rep"], {})[row["target"]] = row
        both = [{"project": r["project"], "floor": r[floor]} for r in reps.values() if "project" in r and floor in r]
        values = ratios(both)
        if values:
            med = statistics.median(values)
            out.append(f"- {pair} vs {cfg['floor_labels'][floor]}: {med:.2f}× against the bar of ≥ {bar:g}×: "
                       f"{'met' if med >= bar else 'NOT met'}")
    return out


def cpu_line(rows: list[dict], cfg: dict) -> str:
    """Each app's server CPU per answer, the median over repetitions, per pair: the servers'
    own cost (not PostgreSQL's or Redis's), which shows whether a slower app computes more or
    waits more on a busy machine."""
    labels = {"project": "project", **cfg["floor_labels"]}
    parts = []
    for pair in cfg["pairs"]:
        cells = []
        for target, label in labels.items():
            values = [r["server_cpu_ms_per_request"] for r in rows
                      if r["pair"] == pair and r["target"] == target and r.get("server_cpu_ms_per_request") is not None]
            if values:
                cells.append(f"{label} {statistics.median(values):.2f}")
        if cells:
            parts.append(f"{pair}: " + ", ".join(cells))
    return "Server CPU per answer, ms (median over repetitions, warm-up included): " + "; ".join(parts)


def sessions_line(opened: dict[str, int], requests: dict[str, int], cfg: dict) -> str:
    """How many PostgreSQL sessions each app opened while it was measured, against its
    requests: persistent or pooled connections open a handful, CONN_MAX_AGE=0 one per request."""
    labels = {"project": "project", **cfg["floor_labels"]}
    return "PostgreSQL sessions opened during the measurements: " + "; ".join(
        f"{labels[t]} {opened.get(t, 0)} for {requests.get(t, 0)} requests" for t in labels)


def same_bodies(urls: dict[str, tuple[str, str]]) -> None:
    """The floors answer the same state with the same headers that matter (the same app on
    identically seeded databases): GET /floor/state with each one's first token."""
    seen = {}
    for name, (url, token) in urls.items():
        req = urllib.request.Request(url, headers={"Authorization": f"Token {token}"})
        with urllib.request.urlopen(req, timeout=10) as answer:
            seen[name] = (answer.status, answer.headers["Content-Type"], answer.headers["ETag"], answer.read())
    if len(set(seen.values())) > 1:
        raise SystemExit(f"bench: the floors answer differently: {seen}")


def environ_worker_age() -> str:
    """The Celery worker's DB_CONN_MAX_AGE (WORKER_DB_CONN_MAX_AGE, default 60 as in
    docker/env.example: a worker keeps its connection between tasks)."""
    return os.environ.get("WORKER_DB_CONN_MAX_AGE", "60")


def config(environ) -> dict:
    """The run's settings from the environment (the knobs of docs/performance.md)."""
    cfg = {
        "conc": int(environ.get("CONC", 8)), "duration": float(environ.get("DURATION", 10)),
        "warmup": float(environ.get("WARMUP", 2)), "reps": int(environ.get("REPS", 3)),
        "server": environ.get("SERVER", "uvicorn"), "workers": int(environ.get("WORKERS", 2)),
        "floors": environ.get("FLOORS", "uvicorn gthread").split(),
        "pairs": environ.get("PAIRS", "read read304 play").split(), "wait": int(environ.get("WAIT", 30)),
        "poll_interval": float(environ.get("POLL_INTERVAL", 0.05)),
        "throttles": environ.get("THROTTLES", "1") != "0",
        "conn_max_age": environ.get("DB_CONN_MAX_AGE", "0"),
    }
    cfg["gthreads"] = int(environ.get("GTHREADS", gthreads(cfg["conc"])))
    if not cfg["floors"] or set(cfg["floors"]) - set(FLOOR_NAMES):
        raise SystemExit(f"bench: FLOORS takes one or more of {' '.join(FLOOR_NAMES)}")
    if environ.get("BOTS", "0") != "0" and "bots" not in cfg["pairs"]:
        cfg["pairs"].append("bots")
    cfg["server_label"] = "uvicorn" if cfg["server"] == "uvicorn" else "custom"
    cfg["floor_labels"] = floor_labels(cfg)
    # measured in this order in the first repetition, then rotated (rotation())
    cfg["order"] = [*cfg["floor_labels"], "project"]
    gthread_note = (f"gthread floor: {cfg['workers']} workers × {cfg['gthreads']} threads, "
                    if "floor_gthread" in cfg["floor_labels"] else "")
    cfg["label"] = (f"c = {cfg['conc']}, project and uvicorn floor on {cfg['server_label']} × {cfg['workers']} "
                    f"workers, {gthread_note}PostgreSQL + Redis, median (min–max) of {cfg['reps']} same-run ratios")
    return cfg


def main():
    cfg = config(os.environ)
    server_label = cfg["server_label"]
    results = BENCH / "results"
    results.mkdir(exist_ok=True)
    out = Path(os.environ.get("OUT", results / f"bench-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"))
    commit, started = git_commit(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load0 = os.getloadavg()[0]
    shown = {k: v for k, v in cfg.items() if k not in ("label", "floor_labels", "server_label", "order")}
    log(f"bench at {commit}, load average {os.getloadavg()[0]:.1f}: {json.dumps(shown)} -> {out}")
    extra_env = dict(kv.split("=", 1) for kv in shlex.split(os.environ.get("PROJECT_ENV", "")))
    floors = list(cfg["floor_labels"])
    databases = {"project": "project", "floor": "floor", "floor_gthread": "floorgthread"}
    rows = []
    with Stack() as stack:
        stack.postgres(*(databases[t] for t in ("project", *floors)))
        redis_url = stack.redis()
        common = {"DB_CONN_MAX_AGE": cfg["conn_max_age"]}
        penv = project_env(stack.pg_url("project"), redis_url, cfg["throttles"], {**common, **extra_env})
        envs = {"floor": {**common, "DATABASE_URL": stack.pg_url("floor"), "DJANGO_SETTINGS_MODULE": "floor_api.settings"},
                "floor_gthread": gthread_env(stack.pg_url("floorgthread"))}

        tables = cfg["conc"]
        seeded = stack.dir / "project.json"
        stack.run([PYTHON, "manage.py", "migrate", "--noinput"], env=penv)
        stack.run([PYTHON, str(BENCH / "seed_project.py"), "--tables", str(tables), "--out", str(seeded),
                   *(["--bots"] if "bots" in cfg["pairs"] else [])], env=penv)
        targets = {k: v for k, v in json.loads(seeded.read_text()).items() if k in ("read", "play", "bots")}
        tokens = {}
        for floor in floors:
            stack.run([PYTHON, "manage.py", "migrate", "--noinput", "-v0"], cwd=FLOOR, env=envs[floor])
            token_file = stack.dir / f"{floor}-tokens.txt"
            stack.run([PYTHON, "manage.py", "seed", "--users", str(cfg["conc"]), "--out", str(token_file)],
                      cwd=FLOOR, env=envs[floor])
            tokens[floor] = token_file.read_text().split()
            targets[f"{floor}_read"] = [{"token": t, "path": "/floor/state"} for t in tokens[floor]]
            targets[f"{floor}_write"] = [{"token": t, "path": "/floor/move"} for t in tokens[floor]]
        files = {}
        for name, value in targets.items():
            files[name] = stack.dir / f"targets-{name}.json"
            files[name].write_text(json.dumps(value))

        ports, procs = {}, {}
        if "floor" in floors:
            ports["floor"], procs["floor"] = stack.serve("floor", "floor_api.asgi:application", FLOOR, envs["floor"],
                                                         cfg["server"], cfg["workers"])
        if "floor_gthread" in floors:
            ports["floor_gthread"], procs["floor_gthread"] = stack.serve(
                "floor_gthread", "floor_api.wsgi:application", FLOOR, envs["floor_gthread"],
                GUNICORN_GTHREAD.replace("{threads}", str(cfg["gthreads"])), cfg["workers"])
        ports["project"], procs["project"] = stack.serve("project", "config.asgi:application", ROOT, penv,
                                                         cfg["server"], cfg["workers"])
        for floor in floors:
            wait_http(f"http://127.0.0.1:{ports[floor]}/floor/state", 60, procs[floor], procs[floor].logfile)
        wait_http(f"http://127.0.0.1:{ports['project']}/healthz", 60, procs["project"], procs["project"].logfile)
        same_bodies({f: (f"http://127.0.0.1:{ports[f]}/floor/state", tokens[f][0]) for f in floors})
        if "bots" in cfg["pairs"]:
            # The worker as docker/env.example runs it: its connections kept (DB_CONN_MAX_AGE 60).
            stack.start("worker", [PYTHON, "-m", "celery", "-A", "config", "worker", "-c", os.environ.get("WORKER_CONCURRENCY", "4"),
                                  "--loglevel", "WARNING"],
                        env={**penv, "DB_CONN_MAX_AGE": environ_worker_age()})
        play_args = ["--wait", str(cfg["wait"]), "--poll-interval", str(cfg["poll_interval"]),
                     "--table-options", '{"bot_delay": 0}']
        order = cfg["order"]
        requests = {}
        sessions0 = stack.pg_sessions()
        for rep in range(1, cfg["reps"] + 1):
            log(f"repetition {rep} of {cfg['reps']}")
            for pair in cfg["pairs"]:
                labels = {"pair": pair, "rep": rep, "commit": commit, "server": server_label,
                          "workers": cfg["workers"], "conn_max_age": cfg["conn_max_age"]}
                runs = plan(pair, rep, order)
                for target, scenario, target_file, is_play in runs:
                    run_labels = {**labels, "target": target}
                    if target == "floor_gthread":
                        run_labels.update(server="gunicorn gthread", threads=cfg["gthreads"],
                                          conn_max_age=GTHREAD_CONN_MAX_AGE)
                    before = stack.pg_sessions()
                    cpu0 = proc_figures(proc_tree(procs[target].pid))["cpu_s"]
                    row = measure(ports[target], scenario, files[target_file], cfg, run_labels,
                                  play_args if is_play else [])
                    # the server's own CPU (all its processes) per answer, warm-up included: a
                    # cost that the machine's other load blurs less than the rate does
                    cpu = proc_figures(proc_tree(procs[target].pid))["cpu_s"] - cpu0
                    row["server_cpu_ms_per_request"] = round(1000 * cpu / row["requests"], 2) if row["requests"] else None
                    row["db_sessions"] = stack.pg_sessions().get(databases[target], 0) - before.get(databases[target], 0)
                    requests[target] = requests.get(target, 0) + row["requests"]
                    row.update(pair=pair, rep=rep)
                    rows.append(row)
                with out.open("a") as f:
                    f.writelines(json.dumps(r) + "\n" for r in rows[-len(runs):])
        for name, proc in procs.items():
            if proc.poll() is not None:
                log(f"WARNING: the {name} server exited during the run")
        # the servers stopped, their backends end and report their sessions to the statistics
        for proc in [p for name, p in stack.procs if p in procs.values() or name == "worker"]:
            stack.stop(proc)
        stack.wait_backends_gone([databases[t] for t in order])
        sessions1 = stack.pg_sessions()
        opened = {t: sessions1.get(databases[t], 0) - sessions0.get(databases[t], 0) for t in order}
        if "floor_gthread" in opened and opened["floor_gthread"] > cfg["workers"] * cfg["gthreads"]:
            log(f"WARNING: the gthread floor opened {opened['floor_gthread']} sessions, more than its "
                f"{cfg['workers']} × {cfg['gthreads']} threads: it does not keep its connections")
        errors = [line for line in procs["project"].logfile.read_text().splitlines()
                  if "Traceback" in line or " 500" in line]
        if errors:
            log(f"the project's log has {len(errors)} tracebacks or 500s (kept: {stack.dir})")
            stack.keep = True
    table = report(rows, cfg)
    print(f"\n`make bench` at {commit}, {started}, {os.cpu_count()} cores, load average "
          f"{load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; JSON lines: "
          f"{out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}\n")
    print(table)
    lines = bars(rows, cfg)
    if lines:
        print("\nThe bars against the gthread floor (printed, not asserted):\n" + "\n".join(lines))
    print("\n" + cpu_line(rows, cfg))
    print("\n" + sessions_line(opened, requests, cfg))


if __name__ == "__main__":
    main()
