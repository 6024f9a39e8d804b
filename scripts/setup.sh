#!/usr/bin/env bash
# Bring a machine from nothing to ready: Python environment, Java and Spark's Kafka
# connector, Docker engine, build tools, images. Every step checks first and skips what is
# already there, so a warm run is fast.
#
# System packages (openjdk-17-jre-headless, chromium, docker.io, debootstrap, maven, golang-go) are
# installed only where that is safe to do unasked: as root on a Debian-family system (CI
# machines). Anywhere else the script prints the exact command and stops.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "==> $*" >&2; }
die() { echo "setup: $*" >&2; exit 1; }

may_install_system() { [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ] && command -v apt-get >/dev/null; }

apt_updated=""
install_system() {  # install_system PACKAGE... : install, or say how and stop
  if ! may_install_system; then
    die "missing $*; install it yourself: sudo apt-get install -y $* (or your platform's equivalent)"
  fi
  if [ -z "$apt_updated" ]; then apt-get update -qq; apt_updated=1; fi
  say "installing Debian packages: $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

need_cmd() {  # need_cmd COMMAND DEBIAN_PACKAGE
  command -v "$1" >/dev/null || install_system "$2"
}

harness_call() {  # harness_call 'EXPRESSION': a harness step in Python; its HarnessError ends setup
  .venv/bin/python -c '
import sys
from harness.errors import HarnessError
import scenarios
from harness import provision
from harness.jvm import java_clients, spark
from harness.settings import Settings
try:
    eval(sys.argv[1])
except HarnessError as exc:
    sys.exit(f"setup: {exc}\n{exc.detail}")
' "$1"
}

# --- 1. Python environment -----------------------------------------------------------
PY=$(command -v python3.11 || command -v python3 || true)
[ -n "$PY" ] || die "Python 3.11 not found; install it (Debian: apt-get install python3.11 python3.11-venv)"
"$PY" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
  || die "$PY is not Python 3.11; set PATH so python3.11 comes first"
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ -x .venv/bin/python ] && [ "$(cat .venv/.setup-stamp 2>/dev/null)" = "$want" ]; then
  say "python: .venv up to date"
else
  say "python: installing pinned dependencies into .venv (pyspark is ~490 MB; first time takes a few minutes)"
  "$PY" -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -e '.[dev]'
  echo "$want" > .venv/.setup-stamp
fi

# --- 2. Java, the Spark Kafka connector and the Java workload apps --------------------
# pyspark runs Spark in a local JVM, which needs Java 17+. Its Kafka connector is not part
# of the pyspark package: it is fetched once with Maven into the cache (harness/jvm/spark.py).
need_cmd java openjdk-17-jre-headless
java_major=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
[ "${java_major:-0}" -ge 17 ] || die "java is version ${java_major:-unknown} but Spark needs 17+; \
install openjdk-17-jre-headless and make it the default (update-alternatives --config java)"
say "java: version $java_major"
spark_jars_ready() { .venv/bin/python -c 'import sys; from harness.settings import Settings; from harness.jvm import spark; sys.exit(not spark.connector_jars_cached(Settings()))' 2>/dev/null; }
if spark_jars_ready; then
  say "spark: Kafka connector jars cached"
else
  need_cmd mvn maven
  harness_call 'spark.connector_jars(Settings())'
  say "spark: Kafka connector jars fetched"
fi
# A class archive of the Spark driver JVM (harness/jvm/class_archive.py): every driver a
# scenario starts maps Spark's classes from it instead of loading them, and starts faster.
spark_archive_ready() { .venv/bin/python -c 'import sys; from harness.jvm import spark; sys.exit(not spark.class_archive_path().is_file())' 2>/dev/null; }
if spark_archive_ready; then
  say "spark: driver class archive cached"
else
  harness_call 'spark.build_class_archive()'
fi

# --- 2b. Java apps ------------------------------------------------------------------
# The workload apps on Kafka's Java client (java/, harness/jvm/java_clients.py): built with Maven
# once per source change, and the client jars of every tested Kafka version fetched once; also
# kafka-tools for the default version (ProducerPerformance, for `make bench-driver`).
java_apps_ready() { .venv/bin/python -c 'import sys; from harness.settings import Settings; from harness.jvm import java_clients; sys.exit(not java_clients.ready(Settings()))' 2>/dev/null; }
if java_apps_ready; then
  say "java apps: built, client and tools jars cached"
else
  need_cmd mvn maven
  need_cmd javac openjdk-17-jdk-headless
  harness_call 'java_clients.prepare(Settings())'
  say "java apps: built, client and tools jars fetched"
fi

# --- 2c. Chromium ----------------------------------------------------------------------
# Tests open run reports in it as a reader would, and `kafka-harness run --screenshot` keeps
# a picture; playwright (dev extras) drives this one, so it never downloads a browser.
need_cmd chromium chromium
say "chromium: $(chromium --version 2>/dev/null | head -n 1)"

# --- 3. Docker engine ----------------------------------------------------------------
docker_answers() { .venv/bin/python -c 'import docker; docker.from_env(timeout=5).ping()' 2>/dev/null; }
if docker_answers; then
  say "docker: engine answers"
else
  command -v dockerd >/dev/null || install_system docker.io
  if [ "$(id -u)" != 0 ]; then
    die "the Docker daemon is not running; start it: sudo systemctl start docker (or start Docker Desktop)"
  fi
  say "docker: starting dockerd in the background (log: /var/log/kafka-eos-harness-dockerd.log)"
  nohup dockerd >/var/log/kafka-eos-harness-dockerd.log 2>&1 &
  for _ in $(seq 60); do docker_answers && break; sleep 1; done
  docker_answers || die "dockerd did not answer within 60 s; see /var/log/kafka-eos-harness-dockerd.log"
  say "docker: engine answers"
fi

# --- 4. Images -----------------------------------------------------------------------
# Locally built images need debootstrap, Maven and Go; official images (KEH_KAFKA_IMAGE /
# KEH_TOXIPROXY_IMAGE set) are pulled instead. Nothing is needed when the images exist.
# Every tested Kafka version: scenarios that compare versions (B9) and the version matrix
# of verify-config run them side by side.
KAFKA_VERSIONS=$(.venv/bin/python -c 'from harness.settings import KNOWN_KAFKA_VERSIONS; print(*KNOWN_KAFKA_VERSIONS)')
images_ready() {
  for v in $KAFKA_VERSIONS; do
    .venv/bin/python -c 'import sys; from harness.settings import Settings; from harness.cluster import images; sys.exit(bool(images.missing(Settings(kafka_version=sys.argv[1]))))' "$v" 2>/dev/null || return 1
  done
}
if ! images_ready; then
  if [ -z "${KEH_KAFKA_IMAGE:-}" ]; then need_cmd debootstrap debootstrap; need_cmd mvn maven; fi
  if [ -z "${KEH_TOXIPROXY_IMAGE:-}" ]; then need_cmd go golang-go; fi
fi
for v in $KAFKA_VERSIONS; do .venv/bin/kafka-harness images build --kafka-version "$v"; done

# --- 5. Versions the scenarios pin ----------------------------------------------------
# A scenario side may pin its Kafka version or its client release (Variant.kafka_version,
# Variant.client: a regression pair runs the affected release on one side and the fixed one
# on the other). Every pin of every scenario module is prepared here as the tested versions
# are, so such a pair starts with nothing to fetch (harness/provision.py, docs/versions.md).
PINS='provision.pinned(Settings(), scenarios.all_scenarios().values())'
pins_ready() { .venv/bin/python -c "import sys, scenarios; from harness import provision; from harness.settings import Settings; sys.exit(not provision.ready(Settings(), $PINS))" 2>/dev/null; }
if pins_ready; then
  say "pinned versions: ready"
else
  need_cmd mvn maven
  if [ -z "${KEH_KAFKA_IMAGE:-}" ]; then need_cmd debootstrap debootstrap; fi
  harness_call "provision.fetch(Settings(), $PINS)"
  say "pinned versions: fetched"
fi
say "ready: run \`make test\`"
