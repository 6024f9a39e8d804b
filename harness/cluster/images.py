"""Broker and Toxiproxy images: built locally from registry packages, or official ones pulled.

Locally built images carry a hash of everything that went into them in a label; a build
whose inputs hash to what the existing image carries is skipped, so warm runs spend
nothing here.

- Kafka: a Java 17 rootfs made by debootstrap and imported, plus Apache Kafka's own broker
  artifacts from Maven Central (runtime closure of ``org.apache.kafka:kafka_2.13``, kept in
  ``<cache>/kafka-jars/<version>``), for any KRaft release (3.3.0 on): built at setup for the
  tested versions, and on first use for any other (``ensure``, also when a cluster starts).
- Toxiproxy: the harness's own server (``toxiproxy/``: Toxiproxy's server with the Kafka
  protocol toxics registered, ``go build``) and Toxiproxy's CLI (``go install``), both
  against Toxiproxy's module from the Go module proxy, in a scratch image tagged by a hash
  of those sources.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

import docker
from docker.errors import APIError, ImageNotFound

from harness import build_steps, cache_folders, commands, docker_engine, versions
from harness.build_steps import BuildStep
from harness.errors import HarnessError
from harness.jvm.maven import maven_closure, mvn, unresolved
from harness.progress import step
from harness.settings import KNOWN_KAFKA_VERSIONS, LABEL, LABEL_INPUTS, Settings

DEBIAN_SUITE = "bookworm"
ROOTFS_PACKAGES = ("openjdk-17-jre-headless", "ca-certificates")
TOXIPROXY_MODULE = "github.com/Shopify/toxiproxy/v2"
# The Go sources of the harness's Toxiproxy server (its go.mod pins the default version).
TOXIPROXY_SOURCES = Path(__file__).resolve().parents[2] / "toxiproxy"

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


def _jre_tag() -> str:
    return "kafka-eos-harness/jre17:" + _hash({"suite": DEBIAN_SUITE, "packages": ROOTFS_PACKAGES})


def _jre_base(settings: Settings) -> str:
    dc = docker_engine.client()
    tag = _jre_tag()
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


def _kafka_jars(settings: Settings, version: str) -> Path:
    """Runtime closure of the broker plus an slf4j binding, resolved once per version into
    ``<cache>/kafka-jars/<version>`` (harness.cache_folders: whole or not at all)."""
    folder = _cache(settings) / "kafka-jars" / version
    if cache_folders.complete(folder, _POM.format(version=version)):
        return folder / "libs"
    with (
        step(f"resolve org.apache.kafka:kafka_2.13:{version} and its runtime closure with mvn"),
        cache_folders.staging(folder) as work,
    ):
        pom = work / "pom.xml"
        pom.write_text(_POM.format(version=version))
        staged = work / "staged"
        libs = staged / "libs"
        try:
            # -U: ask again for artifacts an earlier attempt found missing (Maven waits a day otherwise).
            maven_closure(pom, libs, f"resolve Kafka {version} from Maven Central", "-U")
        except HarnessError as exc:
            raise unresolved(
                exc, f"Kafka {version} (org.apache.kafka:kafka_2.13:{version})", ", ".join(KNOWN_KAFKA_VERSIONS)
            ) from exc
        # The broker ships only slf4j-api; without a binding it logs nothing at all.
        slf4j = next(libs.glob("slf4j-api-*.jar")).stem.removeprefix("slf4j-api-")
        binding = f"-Dartifact=org.slf4j:slf4j-simple:{slf4j}"
        mvn(
            pom,
            ["dependency:copy", binding, f"-DoutputDirectory={libs}"],
            "resolve the slf4j-simple logging binding",
            "check Maven Central is reachable",
        )
        cache_folders.publish(staged, folder, _POM.format(version=version))
    return folder / "libs"


def _storage_tool_class(libs: Path) -> str:
    """The class behind kafka-storage.sh: kafka.tools.StorageTool so far, searched to be sure."""
    for jar in sorted(libs.glob("kafka*.jar")):
        with zipfile.ZipFile(jar) as zf:
            for candidate in ("kafka/tools/StorageTool.class", "org/apache/kafka/tools/StorageTool.class"):
                if candidate in zf.namelist():
                    return candidate.removesuffix(".class").replace("/", ".")
    raise HarnessError(f"no StorageTool class in {libs}: the Kafka artifacts look incomplete; delete it and rebuild")


def _kafka_target(settings: Settings) -> tuple[str, str]:
    """The local broker image of ``settings``' Kafka version, and the hash of its inputs."""
    version = versions.kafka(settings.kafka_version)
    inputs = _hash({"version": version, "base": _jre_tag(), "context": _dir_digest(_dockerfiles("kafka"))})
    return f"kafka-eos-harness/kafka:{version}", inputs


def build_kafka(settings: Settings) -> str:
    """The local broker image of ``settings``' Kafka version: resolved from Maven Central and
    built on first use, skipped while its inputs are unchanged."""
    dc = docker_engine.client()
    tag, inputs = _kafka_target(settings)
    if _image_inputs(dc, tag) == inputs:
        return tag
    version = settings.kafka_version
    libs = _kafka_jars(settings, version)  # first: an unknown version fails in seconds, not after debootstrap
    base = _jre_base(settings)  # both there already when built by its steps (_kafka_steps)
    with step(f"build {tag}"), tempfile.TemporaryDirectory(dir=_cache(settings)) as tmp:
        context = Path(tmp)
        shutil.copytree(_dockerfiles("kafka"), context, dirs_exist_ok=True)
        shutil.copytree(libs, context / "libs")
        _docker_build(dc, context, tag, inputs, {"BASE": base, "STORAGE_TOOL": _storage_tool_class(libs)})
    return tag


# --- Toxiproxy ------------------------------------------------------------------------


def _toxiproxy_target(settings: Settings) -> tuple[str, str]:
    """The local Toxiproxy image's tag and the hash of its inputs. The tag carries the hash, so
    checkouts of other sources on the same Docker engine keep images of their own."""
    version = settings.toxiproxy_version
    inputs = _hash(
        {
            "version": version,
            "context": _dir_digest(_dockerfiles("toxiproxy")),
            "server": _dir_digest(TOXIPROXY_SOURCES, _GO_NOT_BUILT),
        }
    )
    return f"kafka-eos-harness/toxiproxy:{version}-{inputs[:12]}", inputs


def toxiproxy_image(settings: Settings) -> str:
    """The Toxiproxy image a cluster runs: the official one when overridden, else the local build."""
    return settings.toxiproxy_image_override or _toxiproxy_target(settings)[0]


def build_toxiproxy(settings: Settings) -> str:
    dc = docker_engine.client()
    tag, inputs = _toxiproxy_target(settings)
    if _image_inputs(dc, tag) == inputs:
        return tag
    version = settings.toxiproxy_version
    hint = (
        "install Go (https://go.dev/dl) or use KEH_TOXIPROXY_IMAGE=ghcr.io/shopify/toxiproxy:<version> "
        "(without protocol faults)"
    )
    with (
        step(f"go build toxiproxy v{version} with the Kafka protocol toxics, and build {tag}"),
        tempfile.TemporaryDirectory(dir=_cache(settings)) as tmp,
    ):
        context = Path(tmp)
        shutil.copytree(_dockerfiles("toxiproxy"), context, dirs_exist_ok=True)
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


def _kafka_steps(settings: Settings, dc: docker.DockerClient) -> list[BuildStep]:
    """The local broker image's steps: the Java rootfs (once for every version) and its
    version's jars side by side, then the image. An unknown version fails at its jars, once
    a debootstrap under way beside them is done (its rootfs is kept)."""
    tag = _kafka_target(settings)[0]
    version = settings.kafka_version
    jars = f"kafka jars {version}"
    found = []
    if not dc.images.list(name=_jre_tag()):
        found.append(BuildStep(_jre_tag(), partial(_jre_base, settings), cpu=True, tools=("debootstrap",)))
    if not cache_folders.complete(_cache(settings) / "kafka-jars" / version, _POM.format(version=version)):
        found.append(BuildStep(jars, partial(_kafka_jars, settings, version), tools=("mvn",)))
    return [*found, BuildStep(tag, partial(build_kafka, settings), after=(_jre_tag(), jars))]


def _toxiproxy_steps(settings: Settings, dc: docker.DockerClient) -> list[BuildStep]:
    return [BuildStep(_toxiproxy_target(settings)[0], partial(build_toxiproxy, settings), cpu=True, tools=("go",))]


def _images(
    settings: Settings,
) -> list[tuple[str, tuple[str, str], Callable[[Settings, docker.DockerClient], list[BuildStep]]]]:
    """The cluster's images: (overriding image or "", (local tag, hash of its inputs), its build steps)."""
    return [
        (settings.toxiproxy_image_override, _toxiproxy_target(settings), _toxiproxy_steps),
        (settings.kafka_image_override, _kafka_target(settings), _kafka_steps),
    ]


def missing(settings: Settings) -> list[str]:
    """The images a cluster of ``settings`` would have to build (missing or stale) or pull."""
    dc = docker_engine.client()
    found = []
    for override, (tag, inputs), _ in _images(settings):
        if not override and _image_inputs(dc, tag) != inputs:
            found.append(tag)
        elif override and not dc.images.list(name=override):
            found.append(override)
    return found


def steps(settings: Settings, pull: bool = True) -> list[BuildStep]:
    """The steps that make the cluster's images present (none when they are; harness.build_steps):
    local ones built if missing or stale (a Kafka version's first use resolves its jars and
    builds its image; a version Maven Central lacks fails there), overridden ones pulled, or
    with ``pull`` False they must be there already."""
    dc = docker_engine.client()
    found = []
    for override, (tag, inputs), local in _images(settings):
        if override and not dc.images.list(name=override):
            found.append(BuildStep(f"pull {override}", partial(_pull, dc, override, pull)))
        elif not override and _image_inputs(dc, tag) != inputs:
            found += local(settings, dc)
    return found


def _pull(dc: docker.DockerClient, name: str, pull: bool) -> None:
    if not pull:
        raise HarnessError(
            f"image {name} is not present: pull it (`kafka-harness images build`), "
            "or unset the override to build images locally"
        )
    with step(f"pull {name}"):
        try:
            dc.images.pull(name)
        except APIError as exc:
            raise HarnessError(
                f"cannot pull {name} ({str(exc).splitlines()[0][:120]}): unset the image "
                "override to use locally built images (`kafka-harness images build`)"
            ) from exc


def ensure(settings: Settings, pull: bool = True) -> list[str]:
    """Make the cluster's images present (``steps``), before any container starts; their names."""
    build_steps.run(steps(settings, pull), settings.steps_at_once)
    return [toxiproxy_image(settings), settings.kafka_image_override or _kafka_target(settings)[0]]
