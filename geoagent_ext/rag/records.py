"""The record types the index stores and returns (the ``rag`` contract).

Why two texts per record: ``text`` is what the agent reads (signature, summary,
parameters, examples); the embedding text is a short natural sentence (name
words + summary + parameter names), because MiniLM matches sentences, not code.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

Kind = Literal["function", "class", "method", "recipe", "intro"]


class ApiRecord(BaseModel):
    id: str
    qualified_name: str
    library: str
    version: str
    kind: Kind
    signature: str = ""
    summary: str = ""
    text: str = ""
    score: float = 0.0
    # Extra fields (not in the contract's minimum, useful to callers):
    libraries: list[str] = Field(default_factory=list)  # recipes span several
    parameters: list[str] = Field(default_factory=list)  # "name: type"
    examples: str = ""
    apis: list[str] = Field(default_factory=list)  # recipes: API names the solution uses
    source: str = ""  # harvest unit: a library name or "corpus"
    aliases: list[str] = Field(default_factory=list)  # same API under other paths (results)

    @staticmethod
    def make_id(kind: str, qualified_name: str) -> str:
        return f"{kind}:{qualified_name}"

    def embedding_text(self) -> str:
        """A sentence for MiniLM: readable name words, summary, parameter names."""
        if self.kind in ("recipe", "intro"):
            return f"{self.summary}\n{self.text}"[:1500]
        words = " ".join(split_identifier_words(self.qualified_name))
        params = ", ".join(p.split(":", 1)[0] for p in self.parameters[:12])
        sentence = f"{self.library} {words}: {self.summary}"
        if params:
            sentence += f" Parameters: {params}."
        return sentence[:1000]

    def to_metadata(self) -> dict[str, Any]:
        """Flat chromadb metadata; one boolean per library so filters can OR them."""
        meta: dict[str, Any] = {
            "qualified_name": self.qualified_name,
            "library": self.library,
            "version": self.version,
            "kind": self.kind,
            "signature": self.signature[:2000],
            "summary": self.summary[:2000],
            "source": self.source or self.library,
            "libraries": ",".join(self.libraries or [self.library]),
            "parameters": "\n".join(self.parameters),
            "examples": self.examples[:4000],
            "apis": ",".join(self.apis),
        }
        for lib in self.libraries or [self.library]:
            meta[library_flag(lib)] = True
        return meta

    @classmethod
    def from_chroma(cls, rid: str, document: str | None, meta: dict[str, Any], score: float = 0.0):
        def split(value, sep):
            return [v for v in (value or "").split(sep) if v]

        return cls(
            id=rid,
            qualified_name=meta.get("qualified_name", rid),
            library=meta.get("library", ""),
            version=meta.get("version", ""),
            kind=meta.get("kind", "function"),
            signature=meta.get("signature", ""),
            summary=meta.get("summary", ""),
            text=document or "",
            score=score,
            libraries=split(meta.get("libraries"), ","),
            parameters=split(meta.get("parameters"), "\n"),
            examples=meta.get("examples", ""),
            apis=split(meta.get("apis"), ","),
            source=meta.get("source", ""),
        )


def library_flag(library: str) -> str:
    """Metadata key marking a record as belonging to ``library``."""
    return "lib_" + re.sub(r"[^0-9a-zA-Z]", "_", library)


_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+")


def split_identifier_words(name: str) -> list[str]:
    """``geopandas.GeoDataFrame.to_crs`` -> ['geopandas', 'Geo', 'Data', 'Frame', 'to', 'crs']."""
    words: list[str] = []
    for part in re.split(r"[._\s]+", name):
        words.extend(_CAMEL.findall(part))
    return words


def render_text(
    qualified_name: str, signature: str, summary: str, parameters: list[str], examples: str, description: str = ""
) -> str:
    """The text the agent reads for one API record."""
    lines = [f"{qualified_name}{signature}"]
    if summary:
        lines.append(summary)
    if description:
        lines.append(description)
    if parameters:
        lines.append("Parameters: " + "; ".join(parameters))
    if examples:
        lines.append("Examples:\n" + examples)
    return "\n".join(lines)


class BuildReport(BaseModel):
    """What a build did; printed by the CLI, returned to callers."""

    index_dir: str
    libraries: dict[str, str] = Field(default_factory=dict)  # name -> version now indexed
    rebuilt: list[str] = Field(default_factory=list)  # sources harvested in this build
    unchanged: list[str] = Field(default_factory=list)
    failed: dict[str, str] = Field(default_factory=dict)  # library -> reason
    warnings: list[str] = Field(default_factory=list)
    records: int = 0
    added: int = 0
    removed: int = 0
    seconds: float = 0.0
    reason: str = ""  # why a full rebuild happened, if it did
