"""The corpus is sound as data: every deliverable is written, exactly as declared, and each broken one differs."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pandas as pd
import pyogrio
import pytest

from tests.contract.corpus import ENTRIES, input_path, materialise

CASES = [(e, which) for e in ENTRIES for which in ("reference", *e.broken)]


def test_enough_distinct_entries():
    ids = Counter(e.id for e in ENTRIES)
    assert len(ENTRIES) >= 40
    assert [i for i, n in ids.items() if n > 1] == []


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_entry_is_complete(entry):
    assert entry.request and entry.outputs
    assert len(entry.broken) >= 2
    assert all(input_path(spec).is_file() for spec in entry.inputs)
    assert len({input_path(s).name for s in entry.inputs}) == len(entry.inputs), "inputs collide by base name"


def _fingerprint(path: Path) -> str:
    """What a file holds; a GeoPackage by its layers' CRS and rows (its bytes carry timestamps)."""
    if path.suffix != ".gpkg":
        return hashlib.sha256(path.read_bytes()).hexdigest()
    parts = []
    for layer, _ in pyogrio.list_layers(path):
        info = pyogrio.read_info(path, layer=layer)
        frame = pyogrio.read_dataframe(path, layer=layer)
        parts.append(f"{layer}|{info['crs']}|{pd.util.hash_pandas_object(frame.to_wkb(), index=False).sum()}")
    return "\n".join(parts)


def _written(entry, folder: Path, which: str) -> dict[str, str]:
    materialise(entry, folder, which)
    inputs = {input_path(s).name for s in entry.inputs}
    return {p.name: _fingerprint(p) for p in folder.iterdir() if p.name not in inputs}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_deliverables_written_and_broken_ones_differ(entry, tmp_path):
    reference = _written(entry, tmp_path / "reference", "reference")
    assert sorted(reference) == sorted(entry.outputs)
    for name in entry.broken:
        broken = _written(entry, tmp_path / name, name)
        assert sorted(broken) == sorted(entry.outputs), name
        assert broken != reference, f"{name} writes the same files as the reference"
