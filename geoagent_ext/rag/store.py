"""Where the index lives: a chromadb PersistentClient directory or a chroma server.

Why a manifest: ``jupyter geoagent status`` must say what the index holds without
opening chromadb, and builds must know which library versions are indexed to
rebuild only what changed. Locally it is ``<index_dir>/manifest.json``, written
last (atomically) so a build that died half-way reads as incomplete. A shared
chroma server (``chroma_host``) has no directory we own, so there the manifest
is one document in a small ``geoagent_manifest`` collection on the server.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import chromadb
import numpy as np
from chromadb.config import Settings as ChromaSettings

from .embeddings import MiniLMEmbeddingFunction
from .records import ApiRecord

COLLECTION = "geoagent_api"
MANIFEST_COLLECTION = "geoagent_manifest"
MANIFEST_FILE = "manifest.json"
MANIFEST_ID = "manifest"
PAGE = 2000


class IndexUnavailable(RuntimeError):
    """The index is missing, corrupt or unreachable; the message says what to do."""


class IndexUnreachable(IndexUnavailable):
    """The shared chroma server did not answer: maybe only for now, so never rebuild over it."""


def _with_timeout(client, seconds: float):
    """chromadb's HTTP client waits forever (httpx ``timeout=None``): a hung server would
    hang every retrieval with it. Its session is private API, so a moved one is tolerated."""
    try:
        import httpx

        client._server._session.timeout = httpx.Timeout(seconds)
    except AttributeError:
        pass
    return client


class Store:
    """One chroma location plus its manifest."""

    def __init__(
        self,
        index_dir: str,
        chroma_host: str = "",
        chroma_port: int = 8000,
        *,
        chroma_ssl: bool = False,
        chroma_timeout: float = 10.0,
    ) -> None:
        self.index_dir = Path(index_dir).expanduser()
        self.host = chroma_host
        self.port = chroma_port
        self.ssl = chroma_ssl
        self.timeout = chroma_timeout
        self._client = None
        self._collection = None
        self.embedding_function = MiniLMEmbeddingFunction()

    @classmethod
    def from_settings(cls, settings) -> Store:
        return cls(
            settings.index_dir,
            settings.chroma_host,
            settings.chroma_port,
            chroma_ssl=settings.chroma_ssl,
            chroma_timeout=settings.chroma_timeout,
        )

    @property
    def remote(self) -> bool:
        return bool(self.host)

    @property
    def location(self) -> str:
        return f"chroma server {self.host}:{self.port}" if self.remote else str(self.index_dir)

    # ------------------------------------------------------------------ client
    def _settings(self) -> ChromaSettings:
        settings = ChromaSettings(anonymized_telemetry=False, allow_reset=True)
        if not self.remote:  # what PersistentClient() sets, so the cache key matches
            settings.persist_directory = str(self.index_dir)
            settings.is_persistent = True
        return settings

    def client(self):
        if self._client is None:
            settings = self._settings()
            try:
                if self.remote:
                    self._client = _with_timeout(
                        chromadb.HttpClient(host=self.host, port=self.port, ssl=self.ssl, settings=settings),
                        self.timeout,
                    )
                else:
                    self.index_dir.mkdir(parents=True, exist_ok=True)
                    self._client = chromadb.PersistentClient(path=str(self.index_dir), settings=settings)
            except Exception as exc:
                if self.remote:  # HTTP clients are never shared (chromadb gives each its own id)
                    raise IndexUnreachable(self._describe(exc)) from exc
                self._forget_cached_system()
                raise IndexUnavailable(self._describe(exc)) from exc
        return self._client

    def _forget_cached_system(self) -> None:
        """chromadb caches one System per path, even one whose start failed; a broken
        cached System would make every later open of this path fail, so drop ours."""
        try:
            from chromadb.api.shared_system_client import SharedSystemClient as shared

            ident = shared._get_identifier_from_settings(self._settings())
            with shared._refcount_lock:
                system = shared._identifier_to_system.pop(ident, None)
                shared._identifier_to_refcount.pop(ident, None)
            if system is not None:
                try:
                    system.stop()
                except Exception:
                    pass
        except Exception:  # private API moved: worst case a restart is needed
            pass

    def _describe(self, exc: BaseException) -> str:
        if isinstance(exc, IndexUnavailable):
            return str(exc)
        if self.remote:
            return (
                f"cannot reach the chroma server at {self.host}:{self.port} "
                f"({type(exc).__name__}: {exc}); check chroma_host/chroma_port"
            )
        return (
            f"the knowledge index at {self.index_dir} cannot be opened "
            f"({type(exc).__name__}: {exc}); it will be rebuilt "
            "(or run `jupyter geoagent index build --rebuild`)"
        )

    def collection(self, create: bool = False):
        """The records collection, always with our offline embedding function."""
        if self._collection is None:
            client = self.client()
            try:
                if create:
                    self._collection = client.get_or_create_collection(
                        COLLECTION,
                        embedding_function=self.embedding_function,
                        configuration={"hnsw": {"space": "cosine"}},
                    )
                else:
                    self._collection = client.get_collection(COLLECTION, embedding_function=self.embedding_function)
            except Exception as exc:
                raise IndexUnavailable(self._describe(exc)) from exc
        return self._collection

    def check(self) -> int:
        """Count and probe the collection; raises IndexUnavailable if it is unusable."""
        try:
            collection = self.collection()
            count = collection.count()
            if count:
                collection.get(limit=1, include=["documents", "metadatas"])
            return count
        except IndexUnavailable:
            raise
        except Exception as exc:
            raise IndexUnavailable(self._describe(exc)) from exc

    def close(self) -> None:
        if self._client is not None:
            try:
                self._client.close()
            except Exception:
                pass
        self._client = None
        self._collection = None

    def wipe(self) -> None:
        """Delete everything we stored, even if chromadb cannot open it."""
        if self.remote:
            client = self.client()
            for name in (COLLECTION, MANIFEST_COLLECTION):
                try:
                    client.delete_collection(name)
                except Exception:
                    pass
            self._collection = None
            return
        self.close()
        self._forget_cached_system()
        if self.index_dir.exists():
            for child in self.index_dir.iterdir():
                if child.is_dir():
                    shutil.rmtree(child, ignore_errors=True)
                else:
                    child.unlink(missing_ok=True)

    # ----------------------------------------------------------------- records
    def add(self, records: list[ApiRecord], embeddings) -> None:
        collection = self.collection(create=True)
        batch = min(PAGE, self.client().get_max_batch_size())
        for start in range(0, len(records), batch):
            chunk = records[start : start + batch]
            collection.upsert(
                ids=[r.id for r in chunk],
                documents=[r.text for r in chunk],
                metadatas=[r.to_metadata() for r in chunk],
                embeddings=embeddings[start : start + batch],
            )

    def delete_source(self, source: str) -> int:
        collection = self.collection(create=True)
        ids = collection.get(where={"source": source}, include=[])["ids"]
        for start in range(0, len(ids), PAGE):
            collection.delete(ids=ids[start : start + PAGE])
        return len(ids)

    def all_records(self) -> tuple[list[ApiRecord], np.ndarray]:
        """Every record and its embedding (rows in the same order)."""
        collection = self.collection()
        records: list[ApiRecord] = []
        vectors: list[np.ndarray] = []
        offset = 0
        while True:
            page = collection.get(limit=PAGE, offset=offset, include=["documents", "metadatas", "embeddings"])
            ids = page["ids"]
            if not ids:
                break
            for rid, doc, meta in zip(ids, page["documents"], page["metadatas"]):
                records.append(ApiRecord.from_chroma(rid, doc, meta or {}))
            vectors.append(np.asarray(page["embeddings"], dtype=np.float32))
            offset += len(ids)
        matrix = np.concatenate(vectors) if vectors else np.zeros((0, 384), dtype=np.float32)
        return records, matrix

    # ---------------------------------------------------------------- manifest
    def read_manifest(self) -> dict[str, Any] | None:
        """The manifest, None when absent; IndexUnavailable when unreadable."""
        if self.remote:
            try:
                coll = self.client().get_or_create_collection(
                    MANIFEST_COLLECTION, embedding_function=self.embedding_function
                )
                got = coll.get(ids=[MANIFEST_ID], include=["documents"])
            except IndexUnavailable:
                raise
            except Exception as exc:
                raise IndexUnreachable(self._describe(exc)) from exc
            if not got["ids"]:
                return None
            text = got["documents"][0]
        else:
            path = self.index_dir / MANIFEST_FILE
            if not path.exists():
                return None
            try:
                text = path.read_text()
            except OSError as exc:
                raise IndexUnavailable(f"cannot read {path}: {exc}") from exc
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or not isinstance(data.get("libraries"), dict):
                raise ValueError("not a manifest object")
            return data
        except ValueError as exc:
            raise IndexUnavailable(
                f"the index manifest at {self.location} is corrupt ({exc}); it will be rebuilt"
            ) from exc

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        text = json.dumps(manifest, indent=2, sort_keys=True)
        if self.remote:
            coll = self.client().get_or_create_collection(
                MANIFEST_COLLECTION, embedding_function=self.embedding_function
            )
            # A constant vector: the manifest is fetched by id, never searched.
            coll.upsert(ids=[MANIFEST_ID], documents=[text], embeddings=[[1.0] + [0.0] * 383])
            return
        self.index_dir.mkdir(parents=True, exist_ok=True)
        path = self.index_dir / MANIFEST_FILE
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)

    def remove_manifest(self) -> None:
        """Mark the index incomplete while a build changes it."""
        if self.remote:
            try:
                self.client().get_or_create_collection(
                    MANIFEST_COLLECTION, embedding_function=self.embedding_function
                ).delete(ids=[MANIFEST_ID])
            except Exception:
                pass
            return
        (self.index_dir / MANIFEST_FILE).unlink(missing_ok=True)
