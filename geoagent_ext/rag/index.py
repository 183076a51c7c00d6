"""``KnowledgeIndex``: build, keep current, and query the API knowledge index.

Why it looks like this:
- Version-true: every record carries its library's installed version, and the
  manifest lists them; a build re-harvests only libraries whose installed version
  changed (and the corpus only when its files changed).
- Self-healing: a missing, corrupt or outdated index is reported with a clear
  message and rebuilt on first use, so the agent never crashes on it.
- Shared: with a chroma server (``chroma_host``) every retrieval first re-reads the
  server's manifest (at most every ``REMOTE_RECHECK_S``): a rebuild by the team is
  loaded, and a server that went away leaves the copy loaded here in use, with a
  warning the run shows ("retrieval is degraded"), never an error.
- Hybrid retrieval: the embedding ranking (chromadb, MiniLM) and a BM25 ranking
  (in memory, rebuilt from the stored documents at open) are fused by weighted
  reciprocal rank fusion; each catches what the other misses.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from . import corpus as corpus_mod
from .embeddings import MODEL_ID, embed_texts
from .fusion import reciprocal_rank_fusion
from .harvest import HarvestResult, harvest
from .lexical import LexicalIndex
from .libraries import LIBRARIES, LibrarySpec, installed_version, resolve
from .records import ApiRecord, BuildReport
from .store import IndexUnavailable, IndexUnreachable, Store

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
SEARCH_KINDS = ("function", "class", "method", "recipe")
EMBED_BATCH = 256
# Fusion weights (embedding, lexical), measured with benchmarks/bench_retrieval.py.
FUSION_WEIGHTS = (1.0, 1.0)
# A small k rewards agreement near the top; k in 2..7 measured alike, 60 (the
# customary default) was 0.06 lower on Recall@3.
FUSION_K = 5
CANDIDATES = 60
REMOTE_RECHECK_S = 2.0

Progress = Callable[[str, str, int, int], None]
"""progress(phase, label, done, total); phases: harvest, embed, corpus, done."""


def _noop(phase: str, label: str, done: int, total: int) -> None:
    pass


class KnowledgeIndex:
    """The geospatial API knowledge index (see module docstring)."""

    def __init__(
        self,
        store: Store,
        libraries: Iterable[str] | None = None,
        corpus_root: Path | None = None,
        auto_build: bool = True,
        harvest_timeout: float = 300.0,
    ) -> None:
        self.store = store
        self.libraries = [s.name for s in resolve(libraries)] if libraries else None
        self.corpus_root = corpus_root
        self.auto_build = auto_build
        self.harvest_timeout = harvest_timeout
        self._lock = threading.RLock()
        self._loaded = False
        self.state = "unknown"  # ready | missing | corrupt | outdated | empty
        self.message = ""
        self.manifest: dict[str, Any] | None = None
        self._records: list[ApiRecord] = []
        self._by_id: dict[str, ApiRecord] = {}
        self._by_name: dict[str, list[ApiRecord]] = {}
        self._lexical: LexicalIndex | None = None
        self._vectors = None  # (records, 384) float32, rows as in self._records
        self._refresh_failed: set[str] = set()
        self._loaded_at = ""  # wall clock of the last load (named when a shared server is gone)
        self._checked = 0.0  # monotonic time of the last look at the shared server
        self._unreachable = ""  # why the shared server did not answer at the last look

    @classmethod
    def open(
        cls, settings, libraries: Iterable[str] | None = None, auto_build: bool = True, **kwargs
    ) -> KnowledgeIndex:
        """Open the index configured in ``GeoAgentSettings`` (cheap: loads lazily)."""
        store = Store.from_settings(settings)
        return cls(store, libraries=libraries, auto_build=auto_build, **kwargs)

    # ------------------------------------------------------------------ state
    def _inspect(self) -> None:
        """Set ``state``/``message`` from the manifest and a probe of the store."""
        try:
            manifest = self.store.read_manifest()
        except IndexUnreachable as exc:
            self.state, self.message, self.manifest = "unreachable", str(exc), None
            return
        except IndexUnavailable as exc:
            self.state, self.message, self.manifest = "corrupt", str(exc), None
            return
        if manifest is None:
            self.state, self.manifest = "missing", None
            self.message = f"no knowledge index at {self.store.location} (run `jupyter geoagent index build`)"
            return
        if manifest.get("schema") != SCHEMA_VERSION or manifest.get("embedding") != MODEL_ID:
            self.state, self.manifest = "outdated", manifest
            self.message = (
                f"the knowledge index at {self.store.location} was built by another "
                "GeoAgent version or embedding model; it needs a rebuild"
            )
            return
        try:
            self.store.check()
        except IndexUnavailable as exc:
            self.state, self.message, self.manifest = "corrupt", str(exc), None
            return
        self.state, self.message, self.manifest = "ready", "", manifest

    def _load(self) -> None:
        self._checked = time.monotonic()
        self._inspect()
        self._records, self._by_id, self._by_name, self._lexical = [], {}, {}, None
        if self.state == "ready":
            try:
                records, self._vectors = self.store.all_records()
            except Exception as exc:
                self.state, self.message = "corrupt", self.store._describe(exc)
                return
            self._records = records
            self._by_id = {r.id: r for r in records}
            for r in records:
                self._by_name.setdefault(r.qualified_name, []).append(r)
            self._lexical = LexicalIndex(records)
            self._loaded_at = datetime.now().strftime("%H:%M:%S")
        self._loaded = True

    def stale(self) -> dict[str, tuple[str, str | None]]:
        """Indexed libraries whose installed version differs: {name: (indexed, installed)}."""
        out = {}
        for name, version in ((self.manifest or {}).get("libraries") or {}).items():
            spec = LIBRARIES.get(name)
            now = installed_version(spec) if spec else None
            if now != version:
                out[name] = (version, now)
        return out

    def ensure_ready(self, progress: Progress | None = None) -> None:
        """Load the index; rebuild it (with a logged reason) if missing, corrupt or stale."""
        with self._lock:
            if self._loaded and self.state == "unreachable" and self._recheck_due():
                self._loaded = False  # the shared server may be back
            if not self._loaded:
                self._load()
            if self.state == "unreachable":
                raise IndexUnavailable(self.message)  # never build over a server that may come back
            stale = {n: v for n, v in self.stale().items() if n not in self._refresh_failed}
            if self.state == "ready" and not (self.auto_build and stale):
                return
            if not self.auto_build:
                raise IndexUnavailable(
                    self.message
                    or f"knowledge index at {self.store.location} is not ready (run `jupyter geoagent index build`)"
                )
            if self.state == "ready":
                log.warning(
                    "knowledge index: installed versions changed (%s); refreshing",
                    ", ".join(f"{n} {a}->{b}" for n, (a, b) in stale.items()),
                )
                libraries = list(stale)
            else:
                log.warning("knowledge index: %s; rebuilding now", self.message)
                libraries = self.libraries or None
            report = self.build(libraries=libraries, rebuild=False, progress=progress)
            # Do not retry a failing refresh on every query of this process.
            self._refresh_failed.update(report.failed)
            if self.state != "ready":
                raise IndexUnavailable(
                    f"knowledge index at {self.store.location} could not be built: "
                    + "; ".join(f"{k}: {v}" for k, v in report.failed.items())
                )

    # ------------------------------------------------------------------ build
    def build(
        self, libraries: Iterable[str] | None = None, rebuild: bool = False, progress: Progress | None = None
    ) -> BuildReport:
        """Harvest changed libraries and the corpus into the store; incremental unless
        ``rebuild`` or the index is unusable. ``libraries`` limits what is (re)harvested;
        other indexed libraries stay."""
        progress = progress or _noop
        started = time.monotonic()
        with self._lock:
            specs = resolve(libraries if libraries else (self.libraries or None))
            report = BuildReport(index_dir=self.store.location)
            manifest = self._manifest_for_build(rebuild, report)
            sources: dict[str, dict] = manifest.setdefault("sources", {})

            todo: list[tuple[LibrarySpec, str]] = []
            for spec in specs:
                version = installed_version(spec)
                if version is None:
                    report.failed[spec.name] = f"{spec.dist} is not installed"
                    if spec.name in sources:  # uninstalled since: its API is gone too
                        self.store.collection(create=True)
                        report.removed += self._drop_source(spec.name, manifest)
                    continue
                if sources.get(spec.name, {}).get("version") == version:
                    report.unchanged.append(spec.name)
                else:
                    todo.append((spec, version))

            self.store.collection(create=True)
            for result in self._harvest_all(todo, progress):
                if result.error:
                    report.failed[result.library] = result.error
                    continue
                report.warnings += [f"{result.library}: {w}" for w in result.warnings]
                removed, added = self._replace_source(result.library, result.records, manifest, progress)
                sources[result.library] = {"version": result.version, "records": added}
                report.removed += removed
                report.added += added
                report.rebuilt.append(result.library)
                self._write_manifest(manifest)

            self._update_corpus(manifest, report, progress)
            manifest["records"] = self.store.collection().count()
            self._write_manifest(manifest)
            report.libraries = dict(manifest["libraries"])
            report.records = manifest["records"]
            report.seconds = round(time.monotonic() - started, 2)
            progress("done", "", report.records, report.records)
            self._load()
            return report

    def _manifest_for_build(self, rebuild: bool, report: BuildReport) -> dict[str, Any]:
        manifest = None
        if rebuild:
            report.reason = "rebuild requested"
        else:
            self._inspect()
            if self.state == "ready":
                manifest = self.manifest
            else:
                report.reason = self.message
                if self.state in ("corrupt", "outdated"):
                    log.warning("knowledge index: %s", self.message)
        if manifest is None:
            self.store.wipe()
            manifest = {
                "schema": SCHEMA_VERSION,
                "embedding": MODEL_ID,
                "records": 0,
                "libraries": {},
                "sources": {},
                "corpus": {},
            }
        return manifest

    def _harvest_all(self, todo, progress: Progress):
        """Harvest two libraries at a time in child processes; yield as they finish."""
        if not todo:
            return
        total = len(todo)
        progress("harvest", "", 0, total)
        with ThreadPoolExecutor(max_workers=2) as pool:
            futures = {pool.submit(harvest, spec, self.harvest_timeout): spec for spec, _ in todo}
            for done, future in enumerate(as_completed(futures), 1):
                spec = futures[future]
                try:
                    result = future.result()
                except Exception as exc:  # harvest() should not raise; be safe anyway
                    result = HarvestResult(spec.name, "", error=f"{type(exc).__name__}: {exc}")
                progress("harvest", spec.name, done, total)
                yield result

    def _drop_source(self, source: str, manifest: dict) -> int:
        manifest["sources"].pop(source, None)
        manifest["libraries"].pop(source, None)
        self._write_manifest(manifest)
        return self.store.delete_source(source)

    def _replace_source(
        self, source: str, records: list[ApiRecord], manifest: dict, progress: Progress
    ) -> tuple[int, int]:
        # Forget the source in the manifest first: a crash mid-way then reads as
        # "not indexed" and the next build redoes it.
        removed = self._drop_source(source, manifest)
        total = len(records)
        for start in range(0, total, EMBED_BATCH):
            chunk = records[start : start + EMBED_BATCH]
            vectors = embed_texts([r.embedding_text() for r in chunk])
            self.store.add(chunk, [v for v in vectors])
            progress("embed", source, min(start + EMBED_BATCH, total), total)
        if source in LIBRARIES and records:
            manifest["libraries"][source] = records[0].version
        return removed, total

    def _update_corpus(self, manifest: dict, report: BuildReport, progress: Progress) -> None:
        source = corpus_mod.CORPUS_SOURCE
        libraries = sorted(manifest["libraries"])
        try:
            version = corpus_mod.corpus_version(self.corpus_root)
        except corpus_mod.CorpusError as exc:
            report.failed[source] = str(exc)
            return
        wanted = {"version": version, "libraries": libraries}
        current = manifest.get("corpus") or {}
        if {k: current.get(k) for k in wanted} == wanted:
            report.unchanged.append(source)
            return
        try:
            records = corpus_mod.corpus_records(self.corpus_root, libraries)
        except corpus_mod.CorpusError as exc:
            report.failed[source] = str(exc)
            return
        progress("corpus", source, 0, len(records))
        manifest["corpus"] = {}
        removed, added = self._replace_source(source, records, manifest, progress)
        manifest["corpus"] = {**wanted, "records": added}
        report.removed += removed
        report.added += added
        report.rebuilt.append(source)

    def _write_manifest(self, manifest: dict) -> None:
        manifest["updated_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        manifest["records"] = self.store.collection().count()
        self.store.write_manifest(manifest)

    # ------------------------------------------------------------ shared index
    def _recheck_due(self) -> bool:
        return time.monotonic() - self._checked >= REMOTE_RECHECK_S

    def _recheck_remote(self, warnings: list[str]) -> None:
        """Look at the shared server's manifest: reload after a rebuild there; when the server is
        gone, keep serving the copy loaded here and say so in ``warnings``."""
        with self._lock:
            if self._recheck_due():
                self._checked = time.monotonic()
                try:
                    manifest = self.store.read_manifest()
                except IndexUnavailable as exc:
                    self._unreachable = str(exc)
                else:
                    self._unreachable = ""
                    if manifest and manifest.get("updated_at") != (self.manifest or {}).get("updated_at"):
                        log.warning("knowledge index: the shared index at %s changed; reloading", self.store.location)
                        self._load()
                        if self.state != "ready":
                            raise IndexUnavailable(self.message)
            if self._unreachable:
                warnings.append(
                    f"{self._unreachable}; using the copy of the index this server loaded at {self._loaded_at}"
                )

    def _store_query(self, vector, fetch: int, warnings: list[str]) -> list[str] | None:
        """Nearest ids from chroma's HNSW index; None (with a warning) when the store fails."""
        try:
            return self.store.collection().query(
                query_embeddings=[vector.tolist()], n_results=fetch, include=["distances"]
            )["ids"][0]
        except Exception as exc:
            warnings.append(
                f"the index store at {self.store.location} failed "
                f"({type(exc).__name__}: {exc}); searched the copy loaded at {self._loaded_at}"
            )
            return None

    # --------------------------------------------------------------- queries
    def _libraries_arg(self, libraries) -> list[str] | None:
        if libraries is None:
            return None
        return [s.name for s in resolve(libraries)]

    def embedding_ranking(
        self, query: str, n: int, libraries=None, kinds=SEARCH_KINDS, warnings: list[str] | None = None
    ) -> list[str]:
        """Record ids nearest to the query embedding, best first.

        Unfiltered searches go to chromadb's HNSW index (~1 ms). Filtered ones are
        scored exactly over the in-memory copy of the vectors instead: chromadb's
        metadata pre-filter costs ~50 ms per query here. So is an unfiltered one whose
        store fails (a shared server gone), with a note in ``warnings``."""
        vector = embed_texts([query])[0]
        if libraries is None:
            fetch = min(len(self._records), n + 16)  # room to drop intros
            if fetch <= 0:
                return []
            ids = self._store_query(vector, fetch, warnings if warnings is not None else [])
            if ids is not None:
                wanted = set(kinds)
                return [rid for rid in ids if rid in self._by_id and self._by_id[rid].kind in wanted][:n]
        rows = np.flatnonzero(self._lexical.mask(libraries, kinds))
        if rows.size == 0:
            return []
        scores = self._vectors[rows] @ vector
        top = rows[np.argsort(-scores)[:n]]
        return [self._records[i].id for i in top]

    def lexical_ranking(self, query: str, n: int, libraries=None, kinds=SEARCH_KINDS) -> list[str]:
        """Record ids by BM25 score, best first."""
        if self._lexical is None:
            return []
        hits = self._lexical.search(query, n, libraries, kinds)
        return [self._lexical.ids[i] for i, _ in hits]

    def retrieve(
        self,
        query: str,
        libraries: Iterable[str] | None = None,
        k: int = 5,
        kinds: Iterable[str] = SEARCH_KINDS,
        method: str = "hybrid",
        warnings: list[str] | None = None,
    ) -> list[ApiRecord]:
        """The ``k`` records most useful for ``query`` (API records and recipes).

        ``libraries`` restricts to those libraries; ``method`` is ``hybrid`` (default),
        ``embedding`` or ``lexical`` (the latter two for measurement and debugging).
        ``warnings`` collects why an answer may be degraded (a shared server gone);
        IndexUnavailable when there is nothing to answer from.
        """
        if not query or not query.strip():
            return []
        warnings = warnings if warnings is not None else []
        self.ensure_ready()
        if self.store.remote:
            self._recheck_remote(warnings)
        libs = self._libraries_arg(libraries)
        kinds = tuple(kinds)
        n = max(CANDIDATES, 4 * k)
        if method == "embedding":
            fused = [
                (rid, 1.0 / (i + 1)) for i, rid in enumerate(self.embedding_ranking(query, n, libs, kinds, warnings))
            ]
        elif method == "lexical":
            fused = [(rid, 1.0 / (i + 1)) for i, rid in enumerate(self.lexical_ranking(query, n, libs, kinds))]
        elif method == "hybrid":
            fused = reciprocal_rank_fusion(
                [self.embedding_ranking(query, n, libs, kinds, warnings), self.lexical_ranking(query, n, libs, kinds)],
                weights=FUSION_WEIGHTS,
                k=FUSION_K,
            )
        else:
            raise ValueError(f"unknown retrieval method {method!r}")
        return self._top(fused, k)

    def _top(self, fused: list[tuple[str, float]], k: int) -> list[ApiRecord]:
        """The best ``k`` records, folding copies of one API (``GeoSeries.buffer`` and
        ``GeoDataFrame.buffer`` share a docstring) into ``aliases`` of the first."""
        out: list[ApiRecord] = []
        seen: dict[tuple, ApiRecord] = {}
        for rid, score in fused:
            record = self._by_id.get(rid)
            if record is None:
                continue
            key = (
                (record.kind, record.qualified_name.rsplit(".", 1)[-1], record.summary, record.signature)
                if record.kind in ("method", "function")
                else (rid,)
            )
            if key in seen:
                seen[key].aliases.append(record.qualified_name)
                continue
            copy = record.model_copy(update={"score": round(float(score), 6), "aliases": []})
            seen[key] = copy
            out.append(copy)
            if len(out) == k:
                break
        return out

    def intros(self, libraries: Iterable[str] | None = None) -> dict[str, str]:
        """One "what is it for" text per library, for the planner.

        Falls back to reading ``rag_index/intros`` when the index is unusable, so
        planning never waits on or fails with the index."""
        wanted = set(self._libraries_arg(libraries) or LIBRARIES)
        try:
            self.ensure_ready()
            found = {r.library: r.text for r in self._records if r.kind == "intro"}
        except IndexUnavailable as exc:
            log.warning("knowledge index unavailable for intros (%s); reading the corpus", exc)
            found = {i.library: i.text for i in corpus_mod.load_intros(self.corpus_root)}
        return {lib: found[lib] for lib in sorted(wanted) if lib in found}

    def lookup(self, qualified_name: str) -> ApiRecord | None:
        """The record for an exact qualified name; a unique dotted suffix also matches
        (``GeoDataFrame.to_crs``, ``DataArray.rio.reproject``)."""
        self.ensure_ready()
        name = qualified_name.strip()
        order = {"function": 0, "class": 1, "method": 2, "recipe": 3, "intro": 4}
        hits = self._by_name.get(name)
        if not hits:
            suffix = "." + name
            candidates = [n for n in self._by_name if n.endswith(suffix)]
            if not candidates:
                return None
            # shortest path wins: geopandas.GeoDataFrame.to_crs over deeper aliases
            hits = self._by_name[min(candidates, key=lambda n: (n.count("."), len(n)))]
        return sorted(hits, key=lambda r: order.get(r.kind, 9))[0].model_copy()

    def names(self) -> list[str]:
        """Every qualified name in the index (for tools and benchmarks)."""
        self.ensure_ready()
        return list(self._by_name)

    def close(self) -> None:
        self.store.close()
