# Two commands for a fresh machine: `make run` (the service) and `make test` (the tests).
# Each creates the virtual environment in .venv when it is missing.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
export PBEM_HOME ?= $(CURDIR)/pbem-data

.PHONY: run test test-long bench faults clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

run: $(VENV)/.installed
	$(BIN)/pbem serve

test: $(VENV)/.installed
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# 10,000 seeded random games per game with the contract's invariants (hours; PBEM_LONG_GAMES=N for fewer)
test-long: $(VENV)/.installed
	$(BIN)/python -m pytest -m long -x $(PYTEST_ARGS)

bench: $(VENV)/.installed
	$(BIN)/python -m benchmarks

faults: $(VENV)/.installed
	$(BIN)/python -m benchmarks.faults

clean:
	rm -rf $(VENV) .pytest_cache
