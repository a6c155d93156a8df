# Two commands for a fresh machine: `make run` (the service) and `make test` (the tests).
# Each creates the virtual environment in .venv when it is missing, with the versions pinned in
# constraints.txt (the lock file; `make lock` renews it).
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
PIP_INSTALL = $(BIN)/python -m pip install --quiet --constraint constraints.txt
# pytest-xdist workers; the tests give each worker its own files, ports and databases. Four on
# the 2-CPU machine: many tests wait on sockets, subprocesses and disk syncs, so two workers left
# the CPUs idle a good part of the run (154 s against 138 s for the same suite, same load).
PYTEST_WORKERS ?= 4
# mutmut's children are CPU-bound: one per CPU
MUTATION_WORKERS ?= 2
export PBEM_HOME ?= $(CURDIR)/pbem-data

.PHONY: run test test-long mutation mutation-gate smoke lint bench faults lock messages clean

# What the service needs (`make run`: a quick and quiet first run), then the development tools
# on top (`make test` and the rest: the test extra).
$(VENV)/.runnable: pyproject.toml constraints.txt Makefile
	@echo "installing pbem and its dependencies into $(VENV) (once; a minute or two)"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip
	@$(PIP_INSTALL) -e '.[postgres,deploy]'
	@touch $@

$(VENV)/.installed: $(VENV)/.runnable
	$(PIP_INSTALL) -e '.[test,postgres,deploy]'
	touch $@

run: $(VENV)/.runnable
	@$(BIN)/pbem serve

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

# mutation testing (mutmut, configured in pyproject.toml): every mutant of the ledger and of
# each game's rules modules against the tests that reach it; MUTANTS='pbem.ledger*' picks a part.
# Results stay in mutants/, so a second run only retests what changed; the summary is printed.
MUTANTS ?=
mutation: $(VENV)/.installed
	$(BIN)/mutmut run --max-children $(MUTATION_WORKERS) $(MUTANTS) > /dev/null
	$(BIN)/python .ci/mutation_score.py

# CI's mutation job (.ci/mutation_gate.py): a bounded set (the ledger's hashing, canonical bytes
# and fair draws, Ruse & Bruise's scoring rules) against their tests, failing below the floor; the verdicts
# are kept in .ci/mutation/, so only the mutants of changed functions run again
mutation-gate: $(VENV)/.installed
	$(BIN)/python .ci/mutation_gate.py

# the machine checks: ruff with the rules chosen in pyproject.toml, 0 findings, the code as
# `ruff format` writes it, mypy with [tool.mypy] there (strict outside the games), 0 errors,
# vulture (dead code at high confidence, [tool.vulture]; framework hooks in
# .ci/vulture_whitelist.py), no function of cyclomatic complexity over 15 (.ci/complexity.py) and
# no import circle among the modules (.ci/import_circles.py)
lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/vulture
	$(BIN)/python .ci/complexity.py
	$(BIN)/python .ci/import_circles.py

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

# the translation catalogs (docs/translations.md): extract the English messages of the code and
# the templates, merge them into each language's .po (new ones untranslated), compile the .mo
LOCALES = pbem/locale
messages: $(VENV)/.installed
	$(BIN)/pybabel extract -F babel.cfg -k lazy_gettext -k lazy_ngettext:1,2 -k lazy_pgettext:1c,2 --no-location \
	    --sort-output -o $(LOCALES)/messages.pot .
	for lang in cs pl; do \
	    test -f $(LOCALES)/$$lang/LC_MESSAGES/messages.po || \
	        $(BIN)/pybabel init -D messages -i $(LOCALES)/messages.pot -d $(LOCALES) -l $$lang; \
	done
	$(BIN)/pybabel update -D messages -i $(LOCALES)/messages.pot -d $(LOCALES) --no-fuzzy-matching --ignore-obsolete
	$(BIN)/pybabel compile --statistics -D messages -d $(LOCALES)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache
