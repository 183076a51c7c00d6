"""BM25 over names, signatures and text (bm25s, sparse matrices).

Why lexical next to embeddings: analysts type API words ("sjoin", "to_crs",
"dissolve", "EPSG") that a small sentence model blurs, while BM25 finds them
exactly. Identifiers are split (``to_crs`` -> to, crs, to_crs; ``GeoDataFrame``
-> geo, data, frame, geodataframe) and the name is weighted above the text by
repetition. The index is rebuilt from the store's documents at open (about a
second for the full set), so a remote chroma server needs no side files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import bm25s
import numpy as np

from .records import ApiRecord, split_identifier_words

NAME_WEIGHT = 3
SUMMARY_WEIGHT = 2

_STOP = frozenset(
    """a an and are as at be by can do does for from how i in into is it its me my of on or
    our per should so than that the their them then there these this those to use using via
    want we what when where which while who will with within without you your""".split()
)
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?")


def _stem(word: str) -> str:
    """A light suffix stripper, applied alike to queries and documents:
    clipping/clipped/clips -> clip, geometries -> geometry, patches -> patch."""
    if len(word) <= 4 or not word.isalpha():
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                stem = stem[:-1]
            return stem
    return word


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens, identifiers split into parts and kept whole."""
    tokens: list[str] = []
    for raw in _TOKEN.findall(text):
        parts = [p.lower() for p in split_identifier_words(raw)]
        whole = raw.lower().strip("_")
        if len(parts) > 1 and whole:
            tokens.append(whole)
        for part in parts:
            if part and part not in _STOP:
                tokens.append(_stem(part))
    return tokens


def record_tokens(record: ApiRecord) -> list[str]:
    """Field-weighted tokens: name x3, summary x2, signature, parameters, text once."""
    name_tokens = tokenize(record.qualified_name)
    if record.kind in ("recipe", "intro"):
        name_tokens += tokenize(" ".join(record.apis))
    summary = tokenize(record.summary)
    body = tokenize(record.signature) + tokenize(" ".join(record.parameters)) + tokenize(record.text)
    return name_tokens * NAME_WEIGHT + summary * SUMMARY_WEIGHT + body


class LexicalIndex:
    """BM25 over records; ``search`` returns (position, score) pairs, best first."""

    def __init__(self, records: Sequence[ApiRecord]) -> None:
        self.ids = [r.id for r in records]
        self.flags = [set(r.libraries or [r.library]) for r in records]
        self.kinds = [r.kind for r in records]
        self.bm25 = bm25s.BM25(k1=1.2, b=0.75)
        corpus = [record_tokens(r) or ["_empty_"] for r in records]
        if corpus:
            self.bm25.index(corpus, show_progress=False)
        self.vocab = set(self.bm25.vocab_dict) if corpus else set()
        self._masks: dict[tuple, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def mask(self, libraries: Iterable[str] | None, kinds: Iterable[str] | None) -> np.ndarray:
        key = (None if libraries is None else frozenset(libraries), None if kinds is None else frozenset(kinds))
        if key not in self._masks:
            self._masks[key] = self._mask(libraries, kinds)
        return self._masks[key]

    def _mask(self, libraries, kinds) -> np.ndarray:
        keep = np.ones(len(self.ids), dtype=bool)
        if libraries is not None:
            wanted = set(libraries)
            keep &= np.array([bool(f & wanted) for f in self.flags], dtype=bool)
        if kinds is not None:
            allowed = set(kinds)
            keep &= np.array([k in allowed for k in self.kinds], dtype=bool)
        return keep

    def search(self, query: str, k: int = 50, libraries=None, kinds=None) -> list[tuple[int, float]]:
        if not self.ids:
            return []
        tokens = [t for t in tokenize(query) if t in self.vocab]
        if not tokens:
            return []
        scores = self.bm25.get_scores(tokens)
        scores = np.where(self.mask(libraries, kinds), scores, 0.0)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [(int(i), float(scores[i])) for i in top if scores[i] > 0]
