# The README's two commands: `make run` and `make test`. Both set up everything on a fresh
# clone that has Python 3.11+: the virtualenv, the dependencies and the database.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test test-slow test-readme test-busy test-clients soak-embedded install migrate lint bench bench-longpoll bench-bots fuzz soak clean

$(INSTALLED): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(INSTALLED)

install: $(INSTALLED)

migrate: install
	$(BIN)/python manage.py migrate --noinput

# The API under uvicorn (ASGI, for long-polls) plus a Celery worker with beat; Ctrl-C stops all.
run: migrate
	$(BIN)/python manage.py serve --host $(HOST) --port $(PORT)

# The suite without the long random runs, on two workers (integration tests on one of them);
# `make test-slow` runs the long random runs (CI runs both). PYTEST_ARGS adds options.
test: install
	$(BIN)/python -m pytest -n 2 --dist loadgroup -m "not slow" $(PYTEST_ARGS)

test-slow: install
	$(BIN)/python -m pytest -n 2 -m slow $(PYTEST_ARGS)

# README.md's sh blocks, then docs/apps.md's, in order, against a live `manage.py serve` on a free
# port with its own temporary database and broker (about two minutes; needs curl, jq and openssl).
# CI runs it.
test-readme: install
	$(BIN)/python -m pytest tests/integration/test_readme.py tests/integration/test_apps_doc.py -m readme -q $(PYTEST_ARGS)

# The generated clients of clients/ (Python, TypeScript) against a live `manage.py serve`: the
# schema fetched, both clients generated (a generator warning fails), built (npm ci, tsc
# --strict) and their play programs run to the end of a table of each game, one of them against
# the example bot (clients/python/bot.py) running as its own process on a bot account (about two
# minutes; needs Node.js, npm and the npm registry). CI runs it.
test-clients: install
	$(BIN)/python -m pytest tests/integration/test_clients.py -m clients -q $(PYTEST_ARGS)

# Every kind of writer at once on `make run`'s process tree and embedded defaults, with SQLite's
# write lock held past its busy timeout meanwhile: no 5xx, verify_tables clean (about two
# minutes; docs/reliability.md). CI runs it.
test-busy: install
	$(BIN)/python -m pytest tests/integration/test_sqlite_busy.py -m busy -q -s $(PYTEST_ARGS)

# Bot tables for SOAK_SECONDS (default 300) on `make run`'s process tree and embedded defaults:
# no worker crash, every table finishes, verify_tables clean (about six minutes). CI runs it.
soak-embedded: install
	$(BIN)/python -m pytest tests/integration/test_soak.py -m soak -q -s $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python manage.py makemigrations --check --dry-run

# Schema fuzzing, longer than CI's (docs/reliability.md): every operation as a seated player, a
# spectator and an outsider with FUZZ_EXAMPLES examples each, then the schemathesis CLI
# against a live uvicorn on a throwaway database.
FUZZ_EXAMPLES ?= 25
fuzz: install
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest tests/reliability/test_fuzz_roles.py -q -p no:cacheprovider
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python tests/reliability/fuzz_live.py

# The full soak (docs/reliability.md) on PostgreSQL and Redis: DATABASE_URL and REDIS_URL from
# the environment, else CI's. Prints the figures and writes var/soak-report.json.
SOAK_SECONDS ?= 300
soak: install
	DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test} \
	REDIS_URL=$${REDIS_URL:-redis://127.0.0.1:6379/15} \
	SOAK_SECONDS=$(SOAK_SECONDS) SOAK_BOT_TABLES=40 SOAK_HUMAN_CLIENTS=20 \
	  $(BIN)/python -m pytest tests/reliability/test_soak.py -q -s -p no:cacheprovider

# The project beside two framework floors (docs/performance.md): a throwaway PostgreSQL and Redis,
# the floor app under the project's production server (uvicorn) and under gunicorn gthread with
# CONN_MAX_AGE=600, ratios against both printed as a Markdown table (about 7 minutes). Knobs:
# CONC DURATION WARMUP REPS SERVER WORKERS FLOORS GTHREADS PAIRS BOTS WAIT THROTTLES DB_CONN_MAX_AGE.
bench: install
	$(BIN)/python bench/run.py

# N tables x M waiters of `?wait=30` (TABLES=50 WAITERS=20), on the production setup and on
# `make run`'s embedded one: wake-up latency, failures, threads, RSS, fds (docs/performance.md).
# KIND=sse: table event streams instead; KIND=account: one account stream per waiter, each woken
# by one invitation (INVITES=serial|burst, INVITE_RATE a second). The knobs: bench/longpoll.py.
bench-longpoll: install
	$(BIN)/python bench/longpoll.py

# The bot-strength benchmark of docs/bots.md: easy against random, and hard against easy on 400
# tables of each game, each easy-hard line stating its verdict (hard ahead by >= 0.08 per seat
# with 95 % confidence) and the levels' ratings; BENCH_JOBS processes (the figures do not depend
# on it). Hours on two shared cores: most of it the hard bots' searches.
BENCH_JOBS ?= 2
SIMULATE = $(BIN)/python manage.py simulate
bench-bots: install
	$(SIMULATE) president --tables 400 --players 4 --levels random,easy --options '{"hands": 1}'
	$(SIMULATE) president --tables 400 --players 4 --levels easy,hard --options '{"hands": 1}' --seed 1 --jobs $(BENCH_JOBS) --rated
	$(SIMULATE) pitch --tables 300 --players 4 --levels random,easy --max-moves 3000
	$(SIMULATE) pitch --tables 400 --players 4 --levels easy,hard --jobs $(BENCH_JOBS) --rated
	$(SIMULATE) pitch --tables 300 --players 4 --levels random,easy --options '{"partnerships": true}' --max-moves 3000
	$(SIMULATE) pitch --tables 400 --players 4 --levels easy,hard --options '{"partnerships": true}' --jobs $(BENCH_JOBS) --rated
	$(SIMULATE) lopti --tables 300 --players 2 --levels random,easy --options '{"rounds": 1}'
	$(SIMULATE) lopti --tables 400 --players 2 --levels easy,hard --options '{"rounds": 1}' --jobs $(BENCH_JOBS) --rated

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .hypothesis
