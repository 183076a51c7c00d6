"""Harvest API records from the *installed* version of a library.

Why a subprocess per library: importing leafmap/geemap pulls in heavy optional
stacks, some submodules fail to import, and an import could block (network,
prompts). A child process with a deadline, no stdin and no network keeps one
bad library from stalling or crashing the build; the parent only reads JSON.

Why these names: each object is recorded once, under the shortest public path
it is reachable by (modules walked shallowest first), because that is what
users type: ``geopandas.sjoin`` rather than ``geopandas.tools.sjoin.sjoin``.
Methods are recorded under every public class that has them (inherited ones
included when the base class belongs to the library), and accessor methods
under the accessor path (``xarray.DataArray.rio.reproject``).
"""

from __future__ import annotations

import argparse
import enum
import functools
import importlib
import inspect
import json
import os
import pkgutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .docstrings import parse_docstring
from .libraries import LIBRARIES, LibrarySpec, common_excluded, installed_version
from .records import ApiRecord, render_text

MODULE_IMPORT_TIMEOUT_S = 60
MAX_SIGNATURE_CHARS = 400


@dataclass
class HarvestResult:
    library: str
    version: str
    records: list[ApiRecord] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0


# --------------------------------------------------------------------- parent side


def harvest(spec: LibrarySpec, timeout: float = 300.0) -> HarvestResult:
    """Harvest ``spec`` in a child process; never raises, errors go in ``error``."""
    started = time.monotonic()
    version = installed_version(spec)
    if version is None:
        return HarvestResult(spec.name, "", error=f"{spec.dist} is not installed")
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [package_root, env.get("PYTHONPATH", "")] if p)
    env.setdefault("MPLBACKEND", "Agg")
    env["PYTHONWARNINGS"] = "ignore"
    env.pop("USE_FOLIUM", None)  # geemap/leafmap would switch to their folium flavour
    with tempfile.TemporaryDirectory(prefix="geoagent-harvest-") as tmp:
        out = Path(tmp) / "records.json"
        cmd = [sys.executable, "-m", "geoagent_ext.rag.harvest", json.dumps(asdict(spec)), "--out", str(out)]
        try:
            proc = subprocess.run(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=env,
                cwd=tmp,
                timeout=timeout,
                text=True,
            )
        except subprocess.TimeoutExpired:
            return HarvestResult(
                spec.name, version, error=f"harvest timed out after {timeout:.0f} s", seconds=time.monotonic() - started
            )
        if proc.returncode != 0 or not out.exists():
            tail = (proc.stderr or "").strip().splitlines()[-3:]
            return HarvestResult(
                spec.name,
                version,
                error=f"harvest failed (exit {proc.returncode}): " + " | ".join(tail),
                seconds=time.monotonic() - started,
            )
        data = json.loads(out.read_text())
    return HarvestResult(
        spec.name,
        data["version"],
        records=[ApiRecord(**r) for r in data["records"]],
        warnings=data["warnings"],
        seconds=time.monotonic() - started,
    )


# ---------------------------------------------------------------------- child side


class _Timeout(Exception):
    pass


def _deny_network() -> None:
    """Make any connection attempt fail at once instead of hanging the import."""
    import socket

    def refuse(*args, **kwargs):
        raise OSError("network disabled while harvesting API records")

    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.socket.connect_ex = refuse  # type: ignore[method-assign]
    socket.create_connection = refuse  # type: ignore[assignment]


def _deny_earth_engine() -> None:
    """geemap may call ee.Initialize/Authenticate; both need network and a login."""
    try:
        import ee
    except Exception:
        return

    def refuse(*args, **kwargs):
        raise RuntimeError("Earth Engine is disabled while harvesting API records")

    ee.Initialize = refuse
    ee.Authenticate = refuse


def _import(name: str):
    def on_alarm(signum, frame):
        raise _Timeout(f"import of {name} took over {MODULE_IMPORT_TIMEOUT_S} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(MODULE_IMPORT_TIMEOUT_S)
    try:
        return importlib.import_module(name)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _signature(obj: Any, drop_first: bool = False) -> str:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return ""
    params = list(sig.parameters.values())
    if drop_first and params and params[0].name in ("self", "cls"):
        sig = sig.replace(parameters=params[1:])
    try:
        text = str(sig)
    except Exception:
        return ""
    if len(text) > MAX_SIGNATURE_CHARS:
        text = text[: MAX_SIGNATURE_CHARS - 4] + "...)"
    return text


def _private_class(cls: type) -> bool:
    parts = [cls.__name__, *getattr(cls, "__module__", "").split(".")]
    return any(p.startswith("_") for p in parts)


class _Walker:
    def __init__(self, spec: LibrarySpec, version: str) -> None:
        self.spec = spec
        self.version = version
        self.root = spec.module
        self.records: dict[str, ApiRecord] = {}
        self.warnings: list[str] = []
        self.seen: set[int] = set()
        self.classes: list[tuple[str, type]] = []
        self.accessor_classes: list[type] = []

    def skipped(self, qualified: str) -> bool:
        return any(qualified == s or qualified.startswith(s + ".") for s in self.spec.skip)

    # -- helpers
    def ours(self, obj: Any) -> bool:
        module = getattr(obj, "__module__", None)
        return isinstance(module, str) and (module == self.root or module.startswith(self.root + "."))

    def add(self, kind: str, qualified_name: str, obj: Any, signature: str) -> None:
        try:
            doc = inspect.getdoc(obj) or ""
        except Exception:
            doc = ""
        info = parse_docstring(doc)
        summary = info.summary
        if kind == "method" and signature == "" and not summary:
            summary = "Property."
        record = ApiRecord(
            id=ApiRecord.make_id(kind, qualified_name),
            qualified_name=qualified_name,
            library=self.spec.name,
            version=self.version,
            kind=kind,
            signature=signature,
            summary=summary,
            parameters=info.parameters,
            examples=info.examples,
            libraries=[self.spec.name],
            source=self.spec.name,
            text=render_text(qualified_name, signature, summary, info.parameters, info.examples, info.description),
        )
        self.records.setdefault(record.id, record)

    # -- modules
    def modules(self) -> list[str]:
        # The package itself may take long on a busy machine (geemap: 13 s idle); only
        # the parent's deadline bounds it. Optional submodules get MODULE_IMPORT_TIMEOUT_S.
        root = importlib.import_module(self.root)
        keep = [self.root]
        # Listed from the file system (pkgutil.iter_modules), never by importing, so an
        # excluded subpackage is not even loaded.
        pending = [(list(getattr(root, "__path__", [])), self.root)]
        while pending:
            paths, prefix = pending.pop()
            for info in pkgutil.iter_modules(paths, prefix=prefix + "."):
                name = info.name
                if common_excluded(name.rsplit(".", 1)[-1]):
                    continue
                if any(name == e or name.startswith(e + ".") for e in self.spec.exclude):
                    continue
                if info.ispkg:
                    pending.append(([os.path.join(info.module_finder.path, name.rsplit(".", 1)[-1])], name))
                if self.spec.include and not any(name == i or name.startswith(i + ".") for i in self.spec.include):
                    continue  # walked into (packages are listed, not imported), not recorded
                keep.append(name)
        return sorted(keep, key=lambda n: (n.count("."), n))

    def walk_module(self, name: str) -> None:
        try:
            module = _import(name)
        except BaseException as exc:  # SystemExit from CLIs, timeouts, missing extras
            if isinstance(exc, KeyboardInterrupt):
                raise
            self.warnings.append(f"skipped {name}: {type(exc).__name__}: {str(exc)[:160]}")
            return
        exported = getattr(module, "__all__", None)
        explicit = isinstance(exported, (list, tuple)) and all(isinstance(n, str) for n in exported)
        names = list(exported) if explicit else [n for n in vars(module) if not n.startswith("_")]
        for attr in names:
            if attr.startswith("_"):
                continue
            try:
                obj = getattr(module, attr)
            except Exception:
                continue
            if id(obj) in self.seen or not self.ours(obj):
                continue
            # An object bound to two names (shapely's unary_union = union_all) is
            # recorded under its own __name__, the current spelling.
            own = getattr(obj, "__name__", attr)
            if own != attr and isinstance(own, str) and not own.startswith("_") and getattr(module, own, None) is obj:
                attr = own
            # Re-exports count only up the package tree (or when listed in __all__):
            # matplotlib.legend importing Line2D does not make it legend's API.
            home = obj.__module__
            if not explicit and not (home == name or home.startswith(name + ".")):
                continue
            if inspect.isclass(obj):
                self.seen.add(id(obj))
                self.classes.append((f"{name}.{attr}", obj))
            elif inspect.isroutine(obj) or (callable(obj) and hasattr(obj, "__wrapped__")):
                self.seen.add(id(obj))
                if self.skipped(f"{name}.{attr}"):
                    continue
                self.add("function", f"{name}.{attr}", obj, _signature(obj))

    # -- classes
    def walk_class(self, qualified: str, cls: type, record_class: bool = True) -> None:
        """Record the class and its methods; inherited ones only from private bases,
        or from any base for the library's primary classes (GeoDataFrame, DataArray...),
        so that 40 matplotlib artists do not each repeat Artist's 100 methods."""
        if record_class:
            self.add("class", qualified, cls, _signature(cls))
        if issubclass(cls, (BaseException, enum.Enum)):
            return
        inherit_all = qualified in self.spec.primary
        if record_class and not inherit_all and not self.spec.all_methods:
            return
        taken: set[str] = set()
        for klass in cls.__mro__:
            if klass is object:
                continue
            mine = self.ours(klass) and (klass is cls or inherit_all or not record_class or _private_class(klass))
            for member, raw in list(vars(klass).items()):
                if member.startswith("_") or member in taken:
                    continue
                taken.add(member)
                if mine:
                    self.add_member(f"{qualified}.{member}", cls, member, raw)

    def add_member(self, qualified: str, cls: type, member: str, raw: Any) -> None:
        if isinstance(raw, (property, functools.cached_property)) or inspect.isgetsetdescriptor(raw):
            # properties (Cython getset descriptors too: rasterio's src.crs, src.profile)
            self.add("method", qualified, raw, "")
            return
        if isinstance(raw, staticmethod):
            self.add("method", qualified, raw.__func__, _signature(raw.__func__))
        elif isinstance(raw, classmethod):
            self.add("method", qualified, raw.__func__, _signature(raw.__func__, drop_first=True))
        elif inspect.isfunction(raw) or inspect.ismethoddescriptor(raw):
            self.add("method", qualified, raw, _signature(raw, drop_first=True))

    def walk_accessors(self) -> None:
        for host, attr, class_path in self.spec.accessors:
            module_name, _, class_name = class_path.rpartition(".")
            try:
                cls = getattr(_import(module_name), class_name)
            except BaseException as exc:
                self.warnings.append(f"accessor {host}.{attr}: {type(exc).__name__}: {exc}")
                continue
            self.seen.add(id(cls))
            self.accessor_classes.append(cls)
            self.add("class", f"{host}.{attr}", cls, "")
            self.walk_class(f"{host}.{attr}", cls, record_class=False)

    def run(self) -> None:
        self.walk_accessors()
        for name in self.modules():
            self.walk_module(name)
        # Bases of the primary classes (GeoPandasBase, xarray's DataWithCoords...) are
        # implementation detail: their methods are recorded under the primary classes.
        primaries = [cls for q, cls in self.classes if q in self.spec.primary] + self.accessor_classes
        absorbed = {id(b) for cls in primaries for b in cls.__mro__[1:]}
        for qualified, cls in self.classes:
            if id(cls) in absorbed and qualified not in self.spec.primary:
                continue
            if self.skipped(qualified):
                continue
            self.walk_class(qualified, cls)


def harvest_in_process(spec: LibrarySpec) -> HarvestResult:
    """The child's work; callable directly in tests of a single small library."""
    version = installed_version(spec) or ""
    walker = _Walker(spec, version)
    walker.run()
    return HarvestResult(spec.name, version, list(walker.records.values()), walker.warnings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Harvest one library's API (internal).")
    parser.add_argument("spec", help="a library name or a LibrarySpec as JSON")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    _deny_network()
    if args.spec.startswith("{"):
        fields = json.loads(args.spec)
        spec = LibrarySpec(
            **{
                k: tuple(tuple(i) if isinstance(i, list) else i for i in v) if isinstance(v, list) else v
                for k, v in fields.items()
            }
        )
    else:
        spec = LIBRARIES[args.spec]
    if spec.name in ("geemap", "leafmap"):
        _deny_earth_engine()
    result = harvest_in_process(spec)
    payload = {
        "library": result.library,
        "version": result.version,
        "records": [r.model_dump() for r in result.records],
        "warnings": result.warnings,
    }
    Path(args.out).write_text(json.dumps(payload))
    return 0


if __name__ == "__main__":  # pragma: no cover - runs in the child process
    sys.exit(main())
