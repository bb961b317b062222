"""`make bench`: the project beside the framework floor (bench/floor/), on the same Django,
Python, PostgreSQL, Redis and production server setup, in one run; prints the ratios.

Starts a throwaway PostgreSQL cluster and a private Redis, migrates and seeds both apps, serves
both the same way (SERVER, WORKERS), then for each of REPS repetitions measures every pair back
to back (the floor first in odd repetitions, the project first in even ones), and prints the
median, min and max of the same-repetition ratios as a Markdown table (for
docs/performance.md). JSON lines go to bench/results/.

Pairs (project / floor):
  read     GET /tables/{id}/state (200)               / GET /floor/state (200)
  read304  the same with If-None-Match (304)          / GET /floor/state with If-None-Match (304)
  play     moves/s and move p95 of 4 scripted humans  / POST /floor/move: writes/s and p95
           per table, CONC tables, no bots
  bots     (BOTS=1) 1 human + 3 random bots per table, a Celery worker running / floor writes

Environment: CONC (8), DURATION (10 s), WARMUP (2 s), REPS (3), SERVER (uvicorn, or a command
template, see bench/stack.py), WORKERS (2), PAIRS (read read304 play), BOTS (0),
WAIT (30: the ?wait= of the play clients; 0 = poll every POLL_INTERVAL s), THROTTLES (1),
DB_CONN_MAX_AGE (0, given to both apps), PROJECT_ENV ("K=V ..." extra for the project), OUT.
"""

from __future__ import annotations

import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

from stack import BENCH, FLOOR, PYTHON, ROOT, Stack, git_commit, log, project_env, wait_http


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


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
    log(f"  {labels['target']:7} {labels['pair']:7} {rate:8.1f}/s  p50 {row['p50_ms']} p95 {row['p95_ms']} ms"
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


def report(rows: list[dict], cfg: dict) -> str:
    """The Markdown table: per pair, the median (min–max) of same-repetition ratios."""
    names = {"read": "GET state (200) vs floor read", "read304": "GET state with If-None-Match (304) vs floor 304",
             "play": "moves, 4 humans per table vs floor write", "bots": "moves, 1 human + 3 bots vs floor write"}
    lines = [f"| pair ({cfg['label']}) | rate ratio | p95 ratio (lower is better) "
             "| project rate, p95 | floor rate, p95 | bad answers (project/floor) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for pair in cfg["pairs"]:
        reps = {}
        for row in rows:
            if row["pair"] == pair:
                reps.setdefault(row["rep"], {})[row["target"]] = row
        both = [r for r in reps.values() if "project" in r and "floor" in r]
        if not both:
            continue
        rates = [rate(r["project"]) / rate(r["floor"]) for r in both if rate(r["floor"])]
        p95s = [r["project"]["p95_ms"] / r["floor"]["p95_ms"] for r in both
                if r["project"]["p95_ms"] and r["floor"]["p95_ms"]]

        lines.append(
            f"| {names[pair]} | {ratio_cell(rates)} | {ratio_cell(p95s)} "
            f"| {statistics.median(rate(r['project']) for r in both):.0f}/s, {_median(both, 'project', 'p95_ms'):.1f} ms "
            f"| {statistics.median(rate(r['floor']) for r in both):.0f}/s, {_median(both, 'floor', 'p95_ms'):.1f} ms "
            f"| {_bad(both, 'project')}/{_bad(both, 'floor')} |")
    return "\n".join(lines)


def main():
    cfg = {
        "conc": env_int("CONC", 8), "duration": float(os.environ.get("DURATION", 10)),
        "warmup": float(os.environ.get("WARMUP", 2)), "reps": env_int("REPS", 3),
        "server": os.environ.get("SERVER", "uvicorn"), "workers": env_int("WORKERS", 2),
        "pairs": os.environ.get("PAIRS", "read read304 play").split(), "wait": env_int("WAIT", 30),
        "poll_interval": float(os.environ.get("POLL_INTERVAL", 0.05)),
        "throttles": os.environ.get("THROTTLES", "1") != "0",
        "conn_max_age": os.environ.get("DB_CONN_MAX_AGE", "0"),
    }
    if os.environ.get("BOTS", "0") != "0" and "bots" not in cfg["pairs"]:
        cfg["pairs"].append("bots")
    server_label = "uvicorn" if cfg["server"] == "uvicorn" else "custom"
    cfg["label"] = (f"c = {cfg['conc']}, {server_label} × {cfg['workers']} workers, PostgreSQL + Redis, "
                    f"DB_CONN_MAX_AGE={cfg['conn_max_age']}, median (min–max) of {cfg['reps']} same-run ratios")
    results = BENCH / "results"
    results.mkdir(exist_ok=True)
    out = Path(os.environ.get("OUT", results / f"bench-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"))
    commit, started = git_commit(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load0 = os.getloadavg()[0]
    log(f"bench at {commit}, load average {os.getloadavg()[0]:.1f}: {json.dumps({k: v for k, v in cfg.items() if k != 'label'})} -> {out}")
    extra_env = dict(kv.split("=", 1) for kv in shlex.split(os.environ.get("PROJECT_ENV", "")))
    rows = []
    with Stack() as stack:
        stack.postgres("floor", "project")
        redis_url = stack.redis()
        common = {"DB_CONN_MAX_AGE": cfg["conn_max_age"]}
        penv = project_env(stack.pg_url("project"), redis_url, cfg["throttles"], {**common, **extra_env})
        fenv = {**common, "DATABASE_URL": stack.pg_url("floor"), "DJANGO_SETTINGS_MODULE": "floor_api.settings"}

        tables = cfg["conc"]
        seeded = stack.dir / "project.json"
        stack.run([PYTHON, "manage.py", "migrate", "--noinput"], env=penv)
        stack.run([PYTHON, str(BENCH / "seed_project.py"), "--tables", str(tables), "--out", str(seeded),
                   *(["--bots"] if "bots" in cfg["pairs"] else [])], env=penv)
        stack.run([PYTHON, "manage.py", "migrate", "--noinput", "-v0"], cwd=FLOOR, env=fenv)
        floor_tokens = stack.dir / "floor-tokens.txt"
        stack.run([PYTHON, "manage.py", "seed", "--users", str(cfg["conc"]), "--out", str(floor_tokens)], cwd=FLOOR, env=fenv)
        tokens = floor_tokens.read_text().split()
        targets = {
            "floor_read": [{"token": t, "path": "/floor/state"} for t in tokens],
            "floor_write": [{"token": t, "path": "/floor/move"} for t in tokens],
            **{k: v for k, v in json.loads(seeded.read_text()).items() if k in ("read", "play", "bots")},
        }
        files = {}
        for name, value in targets.items():
            files[name] = stack.dir / f"targets-{name}.json"
            files[name].write_text(json.dumps(value))

        fport, fproc = stack.serve("floor", "floor_api.asgi:application", FLOOR, fenv, cfg["server"], cfg["workers"])
        pport, pproc = stack.serve("project", "config.asgi:application", ROOT, penv, cfg["server"], cfg["workers"])
        wait_http(f"http://127.0.0.1:{fport}/floor/state", 60, fproc, fproc.logfile)
        wait_http(f"http://127.0.0.1:{pport}/healthz", 60, pproc, pproc.logfile)
        if "bots" in cfg["pairs"]:
            stack.start("worker", [PYTHON, "-m", "celery", "-A", "config", "worker", "-c", "2", "--loglevel", "WARNING"],
                        env=penv)
        play_args = ["--wait", str(cfg["wait"]), "--poll-interval", str(cfg["poll_interval"]),
                     "--table-options", '{"bot_delay": 0}']
        plan = {  # pair: (floor scenario, floor targets, project scenario, project targets, extra args)
            "read": ("read", "floor_read", "read", "read", []),
            "read304": ("read304", "floor_read", "read304", "read", []),
            "play": ("write", "floor_write", "play", "play", play_args),
            "bots": ("write", "floor_write", "play", "bots", play_args),
        }
        for rep in range(1, cfg["reps"] + 1):
            log(f"repetition {rep} of {cfg['reps']}")
            for pair in cfg["pairs"]:
                fscen, ftargets, pscen, ptargets, extra = plan[pair]
                labels = {"pair": pair, "rep": rep, "commit": commit, "server": server_label,
                          "workers": cfg["workers"], "conn_max_age": cfg["conn_max_age"]}
                runs = [(fport, fscen, files[ftargets], {**labels, "target": "floor"}, []),
                        (pport, pscen, files[ptargets], {**labels, "target": "project"}, extra)]
                # the floor first in odd repetitions, the project first in even ones: neither
                # always runs right after the other's load
                for port, scenario, target_file, run_labels, args in runs if rep % 2 else runs[::-1]:
                    rows.append(measure(port, scenario, target_file, cfg, run_labels, args))
                for row in rows[-2:]:
                    row.update(pair=pair, rep=rep)
                with out.open("a") as f:
                    f.writelines(json.dumps(r) + "\n" for r in rows[-2:])
        for name, proc in (("floor", fproc), ("project", pproc)):
            if proc.poll() is not None:
                log(f"WARNING: the {name} server exited during the run")
        errors = [line for line in pproc.logfile.read_text().splitlines() if "Traceback" in line or " 500" in line]
        if errors:
            log(f"the project's log has {len(errors)} tracebacks or 500s (kept: {stack.dir})")
            stack.keep = True
    table = report(rows, cfg)
    print(f"\n`make bench` at {commit}, {started}, {os.cpu_count()} cores, load average "
          f"{load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; JSON lines: "
          f"{out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}\n")
    print(table)


if __name__ == "__main__":
    main()
