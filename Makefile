# The two commands a newcomer runs: `make run` and `make test`.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
# npm ci empties node_modules first, so the stamp inside it goes with any older install.
NODE_STAMP := node_modules/.installed-$(shell cksum package-lock.json | cut -d' ' -f1)

export ARGUSIC_TEST_PG_URL ?= postgresql://postgres@127.0.0.1:5432/test

.PHONY: install run test bench lint postgres standby seaweedfs docker browser media loadgen methodology-checks clean

install: $(STAMP) $(NODE_STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "Python 3.11+ is needed")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-* && touch $@

# The recording player the pages serve, and the browser tests' axe-core and Nu Html Checker,
# from the npm registry with the machine's Node.js, exactly as package-lock.json pins them
# (install scripts off: vnu-jar's would fetch a Java runtime).
$(NODE_STAMP): package-lock.json
	@command -v npm >/dev/null || { echo "npm (Node.js) is needed: the pages' recording player comes from the npm registry" >&2; exit 1; }
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

run: install
	$(BIN)/argusic init
	$(BIN)/argusic demo --if-empty
	@echo "Argusic: open http://127.0.0.1:8000/"
	$(BIN)/argusic serve --host 127.0.0.1 --port 8000

postgres:
	scripts/ensure-postgres.sh

# The replication tests' own primary and its hot standby (ports 55432 and 55433).
standby:
	scripts/ensure-standby.sh

# SeaweedFS's S3 gateway for the S3 artifact store's tests (127.0.0.1:18333), from the venv.
seaweedfs: install
	WEED=$(BIN)/weed scripts/ensure-seaweedfs.sh

docker:
	scripts/ensure-docker.sh

browser:
	scripts/ensure-browser.sh

# argusic render's ffmpeg and font (methodology section 17, the presentation layer).
media:
	scripts/ensure-media.sh

# The public reads' HTTP load generator (scripts/bench_read.py): Debian's wrk, written in C, so
# that the bench measures the server and not its client.
loadgen:
	@command -v wrk >/dev/null || scripts/install-debian.sh "make bench's load generator" wrk

# Methodology section 7: the budget table and the key's spending limit must match the config.
methodology-checks: install
	scripts/check-ttl-methodology.sh
	scripts/check-cost-methodology.sh

# ARGUSIC_REQUIRE_SERVICES turns a missing PostgreSQL (or its standby), SeaweedFS, Docker or
# Chromium into a failure, never a skip. The slowest tests are listed at the end: the suite must
# stay under 30 minutes on 2 cores.
test: install postgres standby seaweedfs docker browser media methodology-checks
	ARGUSIC_REQUIRE_SERVICES=1 $(BIN)/python -m pytest -n auto --dist loadgroup --durations=20

bench: install postgres docker loadgen
	$(BIN)/python scripts/bench_ledger.py
	$(BIN)/python scripts/bench_scale.py
	$(BIN)/python scripts/bench_methodology.py
	$(BIN)/python scripts/bench_siiq.py
	$(BIN)/python scripts/bench_evidence.py
	$(BIN)/python scripts/bench_sources.py
	$(BIN)/python scripts/bench_pool.py
	$(BIN)/python scripts/bench_siiq_updates.py
	$(BIN)/python scripts/bench_runner.py
	$(BIN)/python scripts/bench_web.py
	$(BIN)/python scripts/bench_load.py
	$(BIN)/python scripts/bench_read.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

clean:
	rm -rf $(VENV) node_modules var screenshots .pytest_cache .mypy_cache .ruff_cache
