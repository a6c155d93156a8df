# Two commands for a fresh machine: `make run` (the service) and `make test` (the tests).
# Each creates the virtual environment in .venv when it is missing, with the versions pinned in
# constraints.txt (the lock file; `make lock` renews it).
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
PIP_INSTALL = $(BIN)/python -m pip install --quiet --constraint constraints.txt
# pytest-xdist workers; the tests give each worker its own files, ports and databases
PYTEST_WORKERS ?= 2
export PBEM_HOME ?= $(CURDIR)/pbem-data

.PHONY: run test test-long smoke lint bench faults lock clean

$(VENV)/.installed: pyproject.toml constraints.txt Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(PIP_INSTALL) -e '.[test,postgres,deploy]'
	touch $@

run: $(VENV)/.installed
	$(BIN)/pbem serve

# the default suite: a few games per random suite, hypothesis profile "default" (small)
test: $(VENV)/.installed
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

# the long suites (docs/development.md): every random game and 10,000 seeded games per game
# with the contract's invariants (the tests marked `long`; PBEM_LONG_GAMES=N for fewer), then the
# property tests with hypothesis profile "long" and the fuzzing in its long form
test-long: $(VENV)/.installed
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -m long $(PYTEST_ARGS)
	PBEM_FAULTS_LONG=1 $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --hypothesis-profile=long \
	    tests/ledger tests/faults/test_fuzz.py $(PYTEST_ARGS)

# the machine checks: ruff with the rules chosen in pyproject.toml, 0 findings, and mypy with
# [tool.mypy] there (strict outside the games), 0 errors
lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/mypy

# build the wheel, install it into a fresh venv outside the checkout and play through it
smoke: $(VENV)/.installed
	$(BIN)/python .ci/smoke.py

bench: $(VENV)/.installed
	$(BIN)/python -m benchmarks

faults: $(VENV)/.installed
	$(BIN)/python -m benchmarks.faults

# renew the pins: uv resolves every extra for all platforms from pyproject.toml
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml --universal --python-version 3.11 --quiet \
	    --extra postgres --extra test --extra deploy \
	    --custom-compile-command "make lock" -o constraints.txt

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache
