# kafka-eos-harness. A fresh machine needs two commands: `make setup`, then `make test`.
VENV := .venv/bin

.PHONY: setup test test-unit lint bench-cluster bench-checker clean

setup:  ## Python env, Docker engine, build tools and images (skips what exists)
	bash scripts/setup.sh

$(VENV)/python:
	@echo "no .venv: run \`make setup\` first" >&2; exit 2

test: $(VENV)/python  ## everything, against a real three-broker cluster
	$(VENV)/python -m pytest -ra

test-unit: $(VENV)/python  ## only the tests that need no cluster
	$(VENV)/python -m pytest -ra tests/harness/test_checker.py tests/harness/test_config.py tests/harness/test_spark.py tests/test_cli.py

lint: $(VENV)/python
	$(VENV)/ruff check harness scenarios tests bench
	$(VENV)/ruff format --check harness scenarios tests bench

bench-cluster: $(VENV)/python  ## cold and warm time-to-ready, peak memory
	$(VENV)/python bench/bench_cluster.py

clean: $(VENV)/python  ## remove containers/networks left by killed runs
	$(VENV)/kafka-harness clean

bench-checker: $(VENV)/python  ## checker wall time and peak RSS at 1M and 10M records
	$(VENV)/python bench/bench_checker.py
