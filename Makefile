# Two commands for a fresh machine: `make run` and `make test` (see README.md).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export DEBUG ?= 1

.PHONY: install run demo venue test test-postgres lint format bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --upgrade --quiet pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

demo: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo

run: demo
	$(BIN)/python manage.py runserver 127.0.0.1:8000

# At the venue: phones on the laptop's network reach it (production stack, DEBUG off).
# Options through VENUE_ARGS, e.g. make venue VENUE_ARGS="--port 8080".
venue: install
	DEBUG=0 VENUE=1 $(BIN)/python manage.py migrate --noinput
	DEBUG=0 VENUE=1 $(BIN)/python manage.py collectstatic --noinput --verbosity 0
	DEBUG=0 VENUE=1 $(BIN)/python manage.py venue $(VENUE_ARGS)

# One pytest worker per core (pytest-xdist), at most 4: every worker migrates its own test
# database and starts chromium per browser test, which a many-core machine need not multiply.
test: install
	$(BIN)/python -m pytest -n auto --maxprocesses 4

# The same suite against the machine's PostgreSQL server, browser tests aside: they drive
# the same views through chromium and run in `make test`; so do tests/unit, which use no
# database (keeps CI near 10 minutes). pytest-django gives each worker its own database
# (test_swiss_gw0, test_swiss_gw1, ...). Left to `make test` as well: the files whose
# tests render pages in each language or walk the role matrix, where the database plays
# no part the SQLite run does not already show.
PG_SAME_AS_SQLITE := tests/test_languages.py tests/test_every_screen_speaks.py \
	tests/test_i18n_judges.py tests/test_i18n_manage1.py tests/test_i18n_manage2.py \
	tests/test_i18n_players.py tests/test_i18n_public.py tests/test_messages.py \
	tests/test_permission_matrix.py tests/test_role_matrix.py tests/test_print_views.py \
	tests/test_projector.py tests/test_projector_screens.py tests/test_readme_nginx.py
test-postgres: install
	DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/swiss} $(BIN)/python -m pytest -n auto --maxprocesses 4 -m "not browser" --ignore=tests/unit $(addprefix --ignore=,$(PG_SAME_AS_SQLITE))

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
