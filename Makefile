# One task runner: `make run` serves the embedded default, `make test` runs the whole suite.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
MANAGE := $(BIN)/python manage.py

# Integration tests run on the local PostgreSQL and Redis; override to point elsewhere.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test
TEST_REDIS_URL    ?= redis://127.0.0.1:6379/9
# Browser tests drive Debian's chromium; Playwright never downloads a browser here.
CHROMIUM ?= /usr/bin/chromium
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: venv translations gettext messages run demo migrate worker beat test test-unit test-integration test-e2e browsers schema \
        lint format cluster cluster-stop cluster-status

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# The translations (docs/translation.md): locale/<lang>/LC_MESSAGES/*.po are the catalogues,
# compiled here to the .mo files Django reads, by GNU gettext's msgfmt (installed once, as
# root or with sudo, like the browser). `make messages` extracts the marked strings again.
PO_FILES := $(wildcard locale/*/LC_MESSAGES/*.po)
MO_FILES := $(PO_FILES:.po=.mo)
MSGFMT   ?= msgfmt
translations: $(MO_FILES)
%.mo: %.po | gettext
	$(MSGFMT) --check-format --output-file=$@ $<

gettext:
	@command -v $(MSGFMT) >/dev/null || { \
	    echo "msgfmt is missing: installing Debian's gettext package"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    $(SUDO) apt-get install -y -q gettext \
	        || { $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q gettext; }; \
	    command -v $(MSGFMT) >/dev/null; }

MESSAGES_IGNORE := $(addprefix --ignore=,.venv bench clients deploy tests var docs)
messages: $(STAMP) gettext
	$(MANAGE) makemessages --locale=fr --locale=es --add-location=file --no-obsolete \
	    $(MESSAGES_IGNORE)
	$(MANAGE) makemessages --domain=djangojs --locale=fr --locale=es --add-location=file \
	    --no-obsolete $(MESSAGES_IGNORE)

# Embedded default: SQLite in var/, tasks on the in-process worker's threads, DEBUG on.
# uvicorn serves the ASGI app: pages, API and sockets on http://127.0.0.1:8000, restarting
# when a .py file of the apps changes (uvicorn's own polling: no extra package). A socket
# message far above SOCKET_MAX_MESSAGE_BYTES is refused as its length is read (config/workers.py).
RELOAD_DIRS := config accounts games tournaments ladders web
run: export DEBUG = 1
run: $(STAMP) translations
	$(MANAGE) migrate --no-input
	$(MANAGE) demo
	$(BIN)/uvicorn config.asgi:application --host 127.0.0.1 --port 8000 --lifespan off \
	    --ws-per-message-deflate false --ws-max-size $$($(BIN)/python -m config.workers) \
	    --reload $(addprefix --reload-dir ,$(RELOAD_DIRS))

migrate: $(STAMP) translations
	$(MANAGE) migrate --no-input

# A Celery worker for whatever CELERY_BROKER_URL and DATABASE_URL say, on both queues
# (interactive first). In production run each queue's workers apart (deploy/compose.yaml).
worker: $(STAMP) translations
	$(BIN)/celery -A config worker --loglevel INFO --queues interactive,batch

beat: $(STAMP) translations
	$(BIN)/celery -A config beat --loglevel INFO --schedule var/celerybeat-schedule

# Unit tests on SQLite with no broker; integration tests on PostgreSQL + Redis + a worker;
# browser tests (tests/e2e) in headless Chromium against a live server on a SQLite file.
# DEBUG=1 only supplies the development SECRET_KEY and plain-HTTP defaults; pytest-django
# still runs every test with settings.DEBUG off.
test: test-unit test-integration test-e2e

# Each stage ends with its slowest tests and their times (DURATIONS= to leave them out).
DURATIONS ?= --durations=25

# The unit tests run in parallel (pytest-xdist), one process a core, each with its own
# in-memory test database; a file's tests stay together on one worker, in order.
# UNIT_WORKERS=0 runs them in this one process.
UNIT_WORKERS ?= auto
test-unit: $(STAMP) translations
	DEBUG=1 DATABASE_URL= CELERY_BROKER_URL= REDIS_URL= \
	    $(BIN)/pytest -m "not integration and not e2e" -p no:cacheprovider $(DURATIONS) \
	    -n $(UNIT_WORKERS) --dist loadfile

# Screenshots of the table, a bracket and the leaderboard land in var/screenshots/.
# The browser and integration runs print plain Python tracebacks (--tb=native): pytest's own
# format re-parses source files, which on CPython 3.11 can end the run with "SystemError: AST
# constructor recursion depth mismatch" instead of the failure.
test-e2e: $(STAMP) translations browsers
	DEBUG=1 DATABASE_URL= CELERY_BROKER_URL= REDIS_URL= E2E_CHROMIUM=$(CHROMIUM) \
	    $(BIN)/pytest -m e2e tests/e2e -p no:cacheprovider --tb=native $(DURATIONS)

# Debian's chromium for the browser tests, installed once (as root, or with sudo).
browsers:
	@test -x $(CHROMIUM) || { \
	    echo "$(CHROMIUM) is missing: installing Debian's chromium package"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    $(SUDO) apt-get install -y -q chromium \
	        || { $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q chromium; }; \
	    test -x $(CHROMIUM); }

test-integration: $(STAMP) translations
	DEBUG=1 DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_REDIS_URL) REDIS_URL= \
	    $(BIN)/pytest -m integration tests/integration -p no:cacheprovider --tb=native $(DURATIONS)

# lint-imports: the layers' contracts in pyproject.toml (docs/architecture.md).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

# The stored copy of the API's schema (tests/unit/test_schema_stored.py compares it): refresh
# it when a change is meant to alter the API, and commit the difference with the change.
schema: $(STAMP)
	DEBUG=1 DATABASE_URL= CELERY_BROKER_URL= REDIS_URL= \
	    $(BIN)/python manage.py spectacular --file docs/openapi.yaml

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# gunicorn (uvicorn workers: HTTP and sockets) + two Celery workers + beat on the local
# PostgreSQL and Redis (deploy/cluster.py).
cluster: $(STAMP) translations
	$(BIN)/python deploy/cluster.py start

cluster-stop:
	$(BIN)/python deploy/cluster.py stop

cluster-status:
	$(BIN)/python deploy/cluster.py status

# Engine benchmark beside RLCard and OpenSpiel (bench/README.md). The peers live only in
# bench/.venv, never in the service's dependencies. Extra flags: make bench-engine BENCH_ARGS=--quick
BENCH_VENV  := bench/.venv
BENCH_STAMP := $(BENCH_VENV)/.installed
BENCH_ARGS  ?=

.PHONY: bench-engine bench-play

$(BENCH_STAMP): bench/requirements-peers.txt pyproject.toml
	test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/pip install --quiet -r bench/requirements-peers.txt
	$(BENCH_VENV)/bin/pip install --quiet --no-deps -e .
	touch $(BENCH_STAMP)

bench-engine: $(BENCH_STAMP)
	$(BENCH_VENV)/bin/python bench/engine.py $(BENCH_ARGS)

# Play benchmark (bench/README.md): bot matches end to end beside the engine alone, and API
# latency under 20 players, on the local PostgreSQL and Redis with deploy/cluster.py (~2 min).
# Extra flags: make bench-play BENCH_ARGS=--quick
bench-play: $(STAMP)
	$(BIN)/python bench/play.py $(BENCH_ARGS)

# Ladders benchmark (bench/ladders.py): leaderboard pages over 100,000 rated players, one
# matchmaker pass over 10,000 queued, replaying 1,000,000 rating changes, on the local
# PostgreSQL in a scratch database it creates and drops (~2 min). BENCH_ARGS=--quick: smaller.
.PHONY: bench-ladders
bench-ladders: $(STAMP)
	$(BIN)/python bench/ladders.py $(BENCH_ARGS)

# Ratings benchmark (bench/ratings.py): Elo and Glicko-2 side by side on a simulated population
# of 2,000 players and on the bot calibration ladder's history: log-loss, Brier, convergence.
.PHONY: bench-ratings
bench-ratings: $(STAMP)
	$(BIN)/python bench/ratings.py $(BENCH_ARGS)

# Tournaments benchmark (bench/tournaments.py): Swiss pairing of 1,024 players x 10 rounds
# (and its quality beside the old pairing), the losers-bracket drop-in table, and a 256-bot
# single elimination (best of five to 250) from start to champion, embedded and
# on PostgreSQL + Redis with two workers (deploy/cluster.py). BENCH_ARGS=--quick: 64 bots.
.PHONY: bench-tournaments
bench-tournaments: $(STAMP)
	$(BIN)/python bench/tournaments.py $(BENCH_ARGS)

# Embedded start benchmark (bench/embedded_start.py): the admin's Start of a 64-bot event and
# the time to its champion, with the in-process worker's threads and inline (the baseline),
# each on a fresh SQLite file; a human's moves against a bot meanwhile (~2.5 min).
.PHONY: bench-embedded
bench-embedded: $(STAMP)
	$(BIN)/python bench/embedded_start.py $(BENCH_ARGS)

# Load benchmark (bench/load.py): 200 people holding table sockets (moves POSTed or sent on
# the socket) and 20 spectators, timed games against each other and against bots, while a
# 256-bot event runs on the cluster; per-route p50/p95/p99, move to the opponent's socket,
# a rolling p95 per 10 s beside the event's round, the targets PASS/FAIL, errors, seq gaps,
# every match replayed from its log (~6 min). BENCH_ARGS: --quick (40 players, 30 s, a
# 32-bot event; ~3 min), --no-event (the same without the event), --compare (without,
# then with the event, side by side; ~10 min), --seconds N, --players N, --event-bots N.
.PHONY: bench-load
bench-load: $(STAMP)
	$(BIN)/python bench/load.py $(BENCH_ARGS)

# Where a move's time goes (bench/profile_move.py): pyinstrument (pinned in
# bench/requirements-load.txt, installed only into bench/.venv-load) on the web request path
# of 400 moves and game views, the top functions by cumulative time, every SQL statement by
# total time, pg_stat_statements when the server loads it (~1 min). BENCH_ARGS="--moves N".
LOAD_VENV  := bench/.venv-load
LOAD_STAMP := $(LOAD_VENV)/.installed

$(LOAD_STAMP): bench/requirements-load.txt
	test -x $(LOAD_VENV)/bin/python || $(PYTHON) -m venv $(LOAD_VENV)
	$(LOAD_VENV)/bin/pip install --quiet --upgrade pip
	$(LOAD_VENV)/bin/pip install --quiet -r bench/requirements-load.txt
	touch $(LOAD_STAMP)

.PHONY: bench-profile
bench-profile: $(STAMP) $(LOAD_STAMP)
	$(BIN)/python bench/profile_move.py $(BENCH_ARGS)

# Live benchmark (bench/live.py): 200 people in 100 games on the table socket beside the
# polling it replaces (move to opponent, requests a second), then 1,800 spectators more:
# 2,000 sockets held, push latency, memory a socket, every seq checked for gaps; on the
# cluster (uvicorn workers) with PostgreSQL and Redis (~5 min). BENCH_ARGS=--quick: 20 people.
.PHONY: bench-live
bench-live: $(STAMP)
	$(BIN)/python bench/live.py $(BENCH_ARGS)

# Tables benchmark (bench/tables.py): a club night of 400 people at 200 table matches, 200
# hands entered at once (POST /api/matches/{id}/hands) against 200 sheet reads in the same
# run, both phones of a table entering the same hand (one 201, one 409), every sheet checked;
# on the cluster with PostgreSQL and Redis (a few minutes). BENCH_ARGS=--quick: 20 matches.
.PHONY: bench-tables
bench-tables: $(STAMP)
	$(BIN)/python bench/tables.py $(BENCH_ARGS)

# Scheduled starts (bench/schedule.py): 50 events on a clock start by themselves on the
# cluster; seconds after starts_at against a start by hand in the same run, then events due
# while beat was down, started at its return; each started once (~5 min).
# BENCH_ARGS=--quick: 10 events.
.PHONY: bench-schedule
bench-schedule: $(STAMP)
	$(BIN)/python bench/schedule.py $(BENCH_ARGS)

# Socket flood benchmark (bench/socket_flood.py): a player's move acks on the table socket,
# quiet and while four anonymous sockets flood an event with sync (the integration suite's
# PostgreSQL and Redis, ~1 min). BENCH_ARGS="--rev <revision>": that revision's code.
.PHONY: bench-socket-flood
bench-socket-flood: $(STAMP)
	$(BIN)/python bench/socket_flood.py $(BENCH_ARGS)

# Capacity benchmark (bench/capacity.py): CPU per move (on the table socket and over REST),
# game view, bot match and leaderboard page (this process + its PostgreSQL backends), so
# per-core rates for the capacity model in docs/operations.md; the engine alone as the same
# run's baseline (~1 min). BENCH_ARGS="--against REV": the same operations on commit REV's
# code in the same run (a git worktree), each figure beside the other with their ratio.
.PHONY: bench-capacity
bench-capacity: $(STAMP)
	$(BIN)/python bench/capacity.py $(BENCH_ARGS)

# Fault drills (bench/drills.py): PostgreSQL crashed and restarted, Redis crashed and restarted
# empty, beat (and the workers) down for a minute, on the cluster with players playing over
# HTTP; on a PostgreSQL and a Redis of the drills' own (var/drills/), never the shared ones.
# PASS/FAIL per drill (~3 min). The other faults are tests: tests/integration/test_faults_*.py.
.PHONY: drills
drills: $(STAMP)
	$(BIN)/python bench/drills.py $(BENCH_ARGS)

# The backup drill alone (bench/drills.py restore): pg_dump under play, restore, serve, check.
.PHONY: drill-restore
drill-restore: $(STAMP)
	$(BIN)/python bench/drills.py --only restore $(BENCH_ARGS)

# API fuzzing, the long form (bench/fuzz.py): schemathesis against the cluster for 5 min
# (BENCH_ARGS="--seconds N"); the bounded form is tests/unit/test_fuzz_api.py in make test.
.PHONY: bench-fuzz
bench-fuzz: $(STAMP)
	$(BIN)/python bench/fuzz.py $(BENCH_ARGS)

# Bot API benchmark (bench/bots.py): the house expert as an external bot through the
# reference client vs the in-process arena on the same seeds (200 matches), 20 external
# bots on a bot ladder for 2 min, the OpenSpiel and RLCard adapters' 50 matches each and
# their ratings, on the cluster (the adapters run in bench/.venv). BENCH_ARGS="--matches 20".
.PHONY: bench-bots
bench-bots: $(STAMP) $(BENCH_STAMP)
	$(BIN)/python bench/bots.py $(BENCH_ARGS)

# Match analysis benchmark (bench/analysis.py): decisions analysed a second on one core, beside
# the expert and the master deciding the same views. BENCH_ARGS="--matches 4 --samples 16".
.PHONY: bench-analysis
bench-analysis: $(STAMP)
	$(BIN)/python bench/analysis.py $(BENCH_ARGS)

# Fair-play validation (bench/fairplay.py): simulated honest and assisted accounts, the share
# flagged and after how many games. BENCH_ARGS="--games 20 --honest 30 --assisted 10".
.PHONY: bench-fairplay
bench-fairplay: $(STAMP)
	$(BIN)/python bench/fairplay.py $(BENCH_ARGS)

# The same test end to end (bench/fairplay_service.py): twelve simulated people play rated
# ladder games over the REST API on the local cluster, the batch worker analyses every match.
.PHONY: bench-fairplay-service
bench-fairplay-service: $(STAMP)
	$(BIN)/python bench/fairplay_service.py $(BENCH_ARGS)

# Master bot benchmark (bench/master.py): the master against OpenSpiel's simple bot (through
# the reference client's adapter, in bench/.venv) and the expert, games to 100 on duplicate
# seeds, win rates with 95% intervals and the time a decision. BENCH_ARGS="--quick --jobs 2".
.PHONY: bench-master
bench-master: $(BENCH_STAMP)
	$(BENCH_VENV)/bin/python bench/master.py $(BENCH_ARGS)

# The reference client's tests with the peers installed (bench/.venv): the OpenSpiel and
# RLCard adapters' tests run there instead of being skipped.
.PHONY: test-client-peers
test-client-peers: $(BENCH_STAMP)
	cd clients/python && ../../$(BENCH_VENV)/bin/python -m pytest -q -p no:cacheprovider tests
