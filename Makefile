# The two commands the README promises; both install what is missing first.
.PHONY: setup demo test lint

setup:
	bash scripts/setup.sh

demo: setup
	.venv/bin/pathwise demo

test: setup
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/python -m pytest -q

lint: setup
	.venv/bin/ruff check . && .venv/bin/ruff format --check .
