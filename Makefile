# Two commands for a fresh machine: `make run` (the service) and `make test` (the tests).
# Each creates the virtual environment in .venv when it is missing, with the versions pinned in
# constraints.txt (the lock file; `make lock` renews it).
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
PIP_INSTALL = $(BIN)/python -m pip install --quiet --constraint constraints.txt
export PBEM_HOME ?= $(CURDIR)/pbem-data

.PHONY: run test smoke bench faults lock clean

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(PIP_INSTALL) -e '.[test,postgres]'
	touch $@

run: $(VENV)/.installed
	$(BIN)/pbem serve

test: $(VENV)/.installed
	$(BIN)/python -m pytest $(PYTEST_ARGS)

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
	rm -rf $(VENV) .pytest_cache
