"""Broker and Toxiproxy images: built locally from registry packages, or official ones pulled.

Locally built images carry a hash of everything that went into them in a label; a build
whose inputs hash to what the existing image carries is skipped, so warm runs spend
nothing here.

- Kafka: a Java 17 rootfs made by debootstrap and imported, plus Apache Kafka's own broker
  artifacts from Maven Central (runtime closure of ``org.apache.kafka:kafka_2.13``).
- Toxiproxy: the harness's own server (``toxiproxy/``: Toxiproxy's server with the Kafka
  protocol toxics registered, ``go build``) and Toxiproxy's CLI (``go install``), both
  against Toxiproxy's module from the Go module proxy, in a scratch image.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import docker
from docker.errors import APIError, ImageNotFound

from harness import commands
from harness.cluster import docker_engine
from harness.errors import HarnessError
from harness.jvm.maven import maven_closure
from harness.progress import say, step
from harness.settings import KNOWN_KAFKA_VERSIONS, LABEL, LABEL_INPUTS, Settings

DEBIAN_SUITE = "bookworm"
ROOTFS_PACKAGES = ("openjdk-17-jre-headless", "ca-certificates")
TOXIPROXY_MODULE = "github.com/Shopify/toxiproxy/v2"
# The Go sources of the harness's Toxiproxy server (its go.mod pins the default version).
TOXIPROXY_SOURCES = Path(__file__).resolve().parents[2] / "toxiproxy"
_VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-eos-harness</groupId><artifactId>broker-closure</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId>
      <version>{version}</version></dependency>
  </dependencies>
</project>
"""


def _dockerfiles(name: str) -> Path:
    return Path(__file__).parent / "dockerfiles" / name


def _hash(inputs: dict[str, object]) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:16]


def _dir_digest(path: Path, skip: tuple[str, ...] = ()) -> str:
    """A hash of every file under ``path`` (names and contents), but those matching ``skip``."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        if any(file.match(pattern) for pattern in skip):
            continue
        digest.update(file.relative_to(path).as_posix().encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


# Tests and their recorded frames do not change the binary.
_GO_NOT_BUILT = ("*_test.go", "testdata/*", "recordedtest/*")


def _image_inputs(dc: docker.DockerClient, tag: str) -> str | None:
    try:
        return (dc.images.get(tag).labels or {}).get(LABEL_INPUTS)
    except ImageNotFound:
        return None


def _docker_build(dc: docker.DockerClient, context: Path, tag: str, inputs: str, buildargs: dict[str, str]) -> None:
    try:
        dc.images.build(
            path=str(context),
            tag=tag,
            buildargs=buildargs,
            rm=True,
            forcerm=True,
            pull=False,
            labels={LABEL: "image", LABEL_INPUTS: inputs},
        )
    except (APIError, docker.errors.BuildError) as exc:
        raise HarnessError(f"docker build of {tag} failed: {str(exc).splitlines()[0][:200]}") from exc


# --- Java rootfs ----------------------------------------------------------------------


def _jre_base(settings: Settings, dc: docker.DockerClient) -> str:
    tag = "kafka-eos-harness/jre17:" + _hash({"suite": DEBIAN_SUITE, "packages": ROOTFS_PACKAGES})
    try:
        dc.images.get(tag)
        return tag
    except ImageNotFound:
        pass
    with (
        step(f"debootstrap {DEBIAN_SUITE} + {', '.join(ROOTFS_PACKAGES)} and import as {tag}"),
        tempfile.TemporaryDirectory(dir=_cache(settings)) as tmp,
    ):
        rootfs = Path(tmp) / "rootfs"
        commands.run(
            [
                "debootstrap",
                "--variant=minbase",
                f"--include={','.join(ROOTFS_PACKAGES)}",
                DEBIAN_SUITE,
                str(rootfs),
                settings.debian_mirror,
            ],
            "build the Java 17 rootfs",
            "run `make setup` (installs debootstrap as root on Debian), or use the official "
            "image: KEH_KAFKA_IMAGE=apache/kafka:<version>",
        )
        # Package caches and docs are a third of the rootfs and nothing reads them.
        for junk in ("var/cache/apt/archives", "usr/share/doc", "usr/share/man", "usr/share/locale"):
            shutil.rmtree(rootfs / junk, ignore_errors=True)
        repo, _, version = tag.partition(":")
        with subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE) as tar:
            dc.api.import_image_from_stream(
                tar.stdout,
                repository=repo,
                tag=version,
                changes=["ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
            )
    return tag


def _cache(settings: Settings) -> Path:
    settings.cache_dir.mkdir(parents=True, exist_ok=True)
    return settings.cache_dir


# --- Kafka ----------------------------------------------------------------------------


def check_kafka_version(version: str) -> None:
    if not _VERSION_RE.match(version):
        raise HarnessError(
            f"unknown Kafka version {version!r}: expected X.Y.Z, e.g. one of {', '.join(KNOWN_KAFKA_VERSIONS)}"
        )


def _kafka_jars(settings: Settings, version: str) -> Path:
    """Runtime closure of the broker plus an slf4j binding, resolved once per version."""
    work = _cache(settings) / f"kafka-{version}"
    libs = work / "libs"
    done = work / "resolved"
    if done.exists():
        return libs
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "pom.xml").write_text(_POM.format(version=version))
    with step(f"resolve org.apache.kafka:kafka_2.13:{version} and its runtime closure with mvn"):
        try:
            maven_closure(work / "pom.xml", libs, f"resolve Kafka {version} from Maven Central")
        except HarnessError as exc:
            if "not found" in str(exc):
                raise
            raise HarnessError(
                f"unknown Kafka version {version}: Maven Central has no complete "
                f"org.apache.kafka:kafka_2.13:{version} (tested: {', '.join(KNOWN_KAFKA_VERSIONS)})",
                exc.detail,
            ) from exc
        # The broker ships only slf4j-api; without a binding it logs nothing at all.
        slf4j = next(libs.glob("slf4j-api-*.jar")).stem.removeprefix("slf4j-api-")
        commands.run(
            [
                "mvn",
                "-B",
                "-q",
                "-f",
                str(work / "pom.xml"),
                "dependency:copy",
                f"-Dartifact=org.slf4j:slf4j-simple:{slf4j}",
                f"-DoutputDirectory={libs}",
            ],
            "resolve the slf4j-simple logging binding",
            "check Maven Central is reachable",
        )
    done.write_text(version)
    return libs


def _storage_tool_class(libs: Path) -> str:
    """The class behind kafka-storage.sh: kafka.tools.StorageTool so far, searched to be sure."""
    for jar in sorted(libs.glob("kafka*.jar")):
        with zipfile.ZipFile(jar) as zf:
            for candidate in ("kafka/tools/StorageTool.class", "org/apache/kafka/tools/StorageTool.class"):
                if candidate in zf.namelist():
                    return candidate.removesuffix(".class").replace("/", ".")
    raise HarnessError(f"no StorageTool class in {libs}: the Kafka artifacts look incomplete; delete it and rebuild")


def build_kafka(settings: Settings) -> str:
    version = settings.kafka_version
    check_kafka_version(version)
    dc = docker_engine.client()
    tag = f"kafka-eos-harness/kafka:{version}"
    context_src = _dockerfiles("kafka")
    base_tag = "kafka-eos-harness/jre17:" + _hash({"suite": DEBIAN_SUITE, "packages": ROOTFS_PACKAGES})
    inputs = _hash({"version": version, "base": base_tag, "context": _dir_digest(context_src)})
    if _image_inputs(dc, tag) == inputs:
        say(f"{tag} is up to date")
        return tag
    libs = _kafka_jars(settings, version)  # first: an unknown version fails in seconds, not after debootstrap
    base = _jre_base(settings, dc)
    with step(f"build {tag}"), tempfile.TemporaryDirectory(dir=_cache(settings)) as tmp:
        context = Path(tmp)
        shutil.copytree(context_src, context, dirs_exist_ok=True)
        shutil.copytree(libs, context / "libs")
        _docker_build(dc, context, tag, inputs, {"BASE": base, "STORAGE_TOOL": _storage_tool_class(libs)})
    return tag


# --- Toxiproxy ------------------------------------------------------------------------


def _toxiproxy_inputs(settings: Settings) -> str:
    return _hash(
        {
            "version": settings.toxiproxy_version,
            "context": _dir_digest(_dockerfiles("toxiproxy")),
            "server": _dir_digest(TOXIPROXY_SOURCES, _GO_NOT_BUILT),
        }
    )


def toxiproxy_image(settings: Settings) -> str:
    """The Toxiproxy image a cluster runs: the official one when overridden, else the local
    build of these sources, tagged by their hash so checkouts of other sources on the same
    Docker engine keep images of their own."""
    if settings.toxiproxy_image_override:
        return settings.toxiproxy_image_override
    return f"kafka-eos-harness/toxiproxy:{settings.toxiproxy_version}-{_toxiproxy_inputs(settings)[:12]}"


def build_toxiproxy(settings: Settings) -> str:
    version = settings.toxiproxy_version
    dc = docker_engine.client()
    tag = toxiproxy_image(settings)
    context_src = _dockerfiles("toxiproxy")
    inputs = _toxiproxy_inputs(settings)
    if _image_inputs(dc, tag) == inputs:
        say(f"{tag} is up to date")
        return tag
    hint = (
        "install Go (https://go.dev/dl) or use KEH_TOXIPROXY_IMAGE=ghcr.io/shopify/toxiproxy:<version> "
        "(without protocol faults)"
    )
    with (
        step(f"go build toxiproxy v{version} with the Kafka protocol toxics, and build {tag}"),
        tempfile.TemporaryDirectory(dir=_cache(settings)) as tmp,
    ):
        context = Path(tmp)
        shutil.copytree(context_src, context, dirs_exist_ok=True)
        server = context / "server-src"
        shutil.copytree(TOXIPROXY_SOURCES, server)
        env = {**os.environ, "GOBIN": str(context / "bin"), "CGO_ENABLED": "0", "GOFLAGS": "-mod=mod"}
        # go.mod pins the default version; another one is asked for here.
        commands.run(
            ["go", "get", f"{TOXIPROXY_MODULE}@v{version}"], f"resolve toxiproxy v{version}", hint, env=env, cwd=server
        )
        commands.run(
            ["go", "build", "-o", str(context / "toxiproxy"), "."],
            "build the harness's toxiproxy server",
            hint,
            env=env,
            cwd=server,
        )
        commands.run(
            ["go", "install", f"{TOXIPROXY_MODULE}/cmd/cli@v{version}"],
            f"build toxiproxy cli v{version}",
            hint,
            env=env,
        )
        (context / "bin" / "cli").rename(context / "toxiproxy-cli")
        shutil.rmtree(server)
        _docker_build(dc, context, tag, inputs, {})
    return tag


# --- Entry points ---------------------------------------------------------------------


def ensure(settings: Settings) -> None:
    """Make the configured images present: build local ones, pull overridden ones."""
    dc = docker_engine.client()
    for override, build in (
        (settings.toxiproxy_image_override, build_toxiproxy),
        (settings.kafka_image_override, build_kafka),
    ):
        if not override:
            build(settings)
            continue
        try:
            dc.images.get(override)
        except ImageNotFound:
            with step(f"pull {override}"):
                try:
                    dc.images.pull(override)
                except APIError as exc:
                    raise HarnessError(
                        f"cannot pull {override} ({str(exc).splitlines()[0][:120]}): unset the image "
                        "override to use locally built images (`kafka-harness images build`)"
                    ) from exc


def require_present(settings: Settings) -> None:
    """Fail fast, before any container starts, when an image is missing."""
    dc = docker_engine.client()
    for image in (toxiproxy_image(settings), settings.kafka_image):
        try:
            dc.images.get(image)
        except ImageNotFound:
            if image == settings.kafka_image and settings.kafka_version not in KNOWN_KAFKA_VERSIONS:
                raise HarnessError(
                    f"unknown Kafka version {settings.kafka_version}: no image {image}; tested versions are "
                    f"{', '.join(KNOWN_KAFKA_VERSIONS)} (try another with "
                    f"`kafka-harness images build --kafka-version {settings.kafka_version}`)"
                ) from None
            raise HarnessError(
                f"image {image} is not present: run `make setup` or `kafka-harness images build"
                f" --kafka-version {settings.kafka_version}`"
            ) from None
