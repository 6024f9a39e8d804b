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

need_go() {  # Toxiproxy's go.mod asks for a newer Go than some distributions ship (bookworm: 1.19)
  need_cmd go golang-go
  local want have
  want=$(sed -n 's/^go \([0-9.]*\)$/\1/p' toxiproxy/go.mod)
  have=$(go env GOVERSION | sed 's/^go//')
  [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n 1)" = "$want" ] \
    || die "go $have is older than the $want toxiproxy/go.mod needs; install Go $want or newer (https://go.dev/dl) \
first on PATH, or use KEH_TOXIPROXY_IMAGE=ghcr.io/shopify/toxiproxy:<version>"
}

harness_call() {  # harness_call 'EXPRESSION': a harness step in Python; its HarnessError ends setup
  .venv/bin/python -c '
import sys
from harness import build_steps, provision, stopping
from harness.errors import HarnessError
from harness.settings import Settings
import scenarios
stopping.install()  # Ctrl-C: the steps under way (mvn, debootstrap, go) are killed at once
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
  say "python: installing pinned dependencies into .venv, the spark extra too (pyspark is ~490 MB; first time takes a few minutes)"
  "$PY" -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -e '.[dev,spark]'
  echo "$want" > .venv/.setup-stamp
fi

# --- 2. Java ---------------------------------------------------------------------------
# pyspark runs Spark in a local JVM, which needs Java 17+; so do the Java workload apps (java/).
need_cmd java openjdk-17-jre-headless
java_major=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
[ "${java_major:-0}" -ge 17 ] || die "java is version ${java_major:-unknown} but Spark needs 17+; \
install openjdk-17-jre-headless and make it the default (update-alternatives --config java)"
say "java: version $java_major"

# --- 3. Chromium ----------------------------------------------------------------------
# Tests open run reports in it as a reader would, and `kafka-harness run --screenshot` keeps
# a picture; playwright (dev extras) drives this one, so it never downloads a browser.
need_cmd chromium chromium
say "chromium: $(chromium --version 2>/dev/null | head -n 1)"

# --- 4. Docker engine ----------------------------------------------------------------
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

# --- 5. Jars, class archives, images, pinned versions ----------------------------------
# What the runs need from registries and builds, side by side where one does not wait for
# another (harness/build_steps.py, provision.setup_steps): Spark's Kafka connector (not part
# of pyspark) and a class archive of its driver JVM; the Java workload apps (java/) built with
# Maven, the client jars of every tested Kafka version and their class archives, kafka-tools
# for `make bench-driver`; the broker image of every tested Kafka version (scenarios that
# compare versions and verify-config's version matrix run them side by side) and Toxiproxy's;
# and every version a scenario pins (Variant.kafka_version, Variant.client: a regression pair
# runs the affected release on one side and the fixed one on the other; docs/versions.md).
# Locally built images need debootstrap and Go; official images (KEH_KAFKA_IMAGE /
# KEH_TOXIPROXY_IMAGE set) are pulled instead. Only the tools the missing parts need are
# installed, and nothing runs when everything is there.
STEPS='provision.setup_steps(Settings(), scenarios.all_scenarios().values())'
todo=$(harness_call "print(len(steps := $STEPS), *build_steps.tools(steps))") || exit 1
read -r count tools <<<"$todo"
if [ "$count" = 0 ]; then
  say "jars, class archives, images and pinned versions: ready"
else
  for tool in $tools; do
    case $tool in
      mvn) need_cmd mvn maven ;;
      javac) need_cmd javac openjdk-17-jdk-headless ;;
      go) need_go ;;
      *) need_cmd "$tool" "$tool" ;;
    esac
  done
  harness_call "build_steps.run($STEPS, Settings().steps_at_once)"
fi
say "ready: run \`make test\`"
