# kafka-eos-harness. A fresh machine needs two commands: `make setup`, then `make test`.
VENV := .venv/bin

.PHONY: setup test test-unit test-properties lint stability bench-cluster bench-checker bench-spark bench-driver bench-eos bench-streams bench-stop bench-explore bench-campaign clean

setup:  ## Python env, Docker engine, build tools and images (skips what exists)
	bash scripts/setup.sh

$(VENV)/python:
	@echo "no .venv: run \`make setup\` first" >&2; exit 2

# pytest's JUnit XML of the run, for CI (e.g. `make test JUNIT=out/junit.xml`).
JUNIT ?= runs/junit/make-test.xml
# Three pytest-xdist workers, each with its own session cluster: a scenario mostly waits on its
# faults and apps, so on 2 cores three run side by side (docs/setup.md: 23 min against 28 for
# two; TEST_WORKERS=0: one process, one cluster).
TEST_WORKERS ?= 3
# Then the example user project (examples/python-app) as its users run it: its own rootdir and
# settings (not tests/conftest.py), the plugin as installed, a cluster of its own. Both always run.
EXAMPLE = examples/python-app
test: $(VENV)/python  ## everything, against real three-broker clusters
	@status=0; \
	$(VENV)/python -m pytest -ra --durations=40 --junitxml=$(JUNIT) -n $(TEST_WORKERS) || status=$$?; \
	$(VENV)/python -m pytest -ra --rootdir $(EXAMPLE) -c $(EXAMPLE)/pyproject.toml \
		--junitxml=$(JUNIT:.xml=-example.xml) $(EXAMPLE)/tests || status=$$?; \
	exit $$status

test-unit: $(VENV)/python  ## only the tests that need no cluster and no JVM: no Docker, no java on PATH (by marker)
	$(VENV)/python -m pytest -ra -m "not cluster and not spark and not jvm"

# The checker's property tests searched wider than in `make test`: thousands of generated
# histories, new ones each run (tests/conftest.py's "deep" Hypothesis profile).
test-properties: $(VENV)/python  ## the checker against thousands of generated histories
	$(VENV)/python -m pytest -ra tests/harness/checker/test_properties.py --hypothesis-profile=deep --hypothesis-show-statistics

lint: $(VENV)/python
	$(VENV)/ruff check harness scenarios tests bench spark_jobs examples
	$(VENV)/ruff format --check harness scenarios tests bench spark_jobs examples
	@unformatted=$$(cd toxiproxy && gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt: $$unformatted" >&2; exit 1; fi
	cd toxiproxy && go vet ./...

# Every pair TIMES times in a row on one cluster, then a table of how often each control
# showed its anomaly and each guarantee was clean. Every scenario by default; narrow it with
# e.g. `make stability SCENARIOS="A3 B2b" TIMES=3`, or CLIENT=java for the Java apps.
SCENARIOS ?= $(shell $(VENV)/kafka-harness list --ids)
TIMES ?= 5
CLIENT ?=
stability: $(VENV)/python  ## repeat scenario pairs and report how stable they are
	$(VENV)/kafka-harness run $(SCENARIOS) --repeat $(TIMES) $(if $(CLIENT),--client $(CLIENT))

bench-cluster: $(VENV)/python  ## cold and warm time-to-ready, peak memory
	$(VENV)/python bench/bench_cluster.py

clean: $(VENV)/python  ## remove containers/networks left by killed runs
	$(VENV)/kafka-harness clean

bench-checker: $(VENV)/python  ## checker wall time and peak RSS at 1M and 10M records
	$(VENV)/python -m bench.bench_checker

bench-spark: $(VENV)/python  ## Spark's Kafka sink vs the exactly-once foreachBatch sink: records/s, batch p50/p99
	$(VENV)/python bench/bench_spark.py

bench-driver: $(VENV)/python  ## the harness's apps against the bare client and ProducerPerformance: records/s, ratios
	$(VENV)/python bench/bench_driver.py

bench-eos: $(VENV)/python  ## the seeds' EOS performance claims measured side by side, with a verdict each
	$(VENV)/python bench/bench_eos.py

bench-stop: $(VENV)/python  ## how soon Ctrl-C / SIGTERM ends a pair mid-run, quiet and under load, and what it waits on
	$(VENV)/python bench/bench_stop.py

bench-streams: $(VENV)/python  ## Kafka Streams at_least_once vs exactly_once_v2 at commit.interval.ms 100 ms and 30 s
	$(VENV)/python bench/bench_streams.py

bench-campaign: $(VENV)/python  ## a campaign's runs per hour by worker count, and where a run's time goes
	$(VENV)/python bench/bench_campaign.py

bench-explore: $(VENV)/python  ## explore's cost: warm cluster start, per-run overhead, one worker's share of the machine, 1 vs 2 workers
	$(VENV)/python bench/bench_explore.py
