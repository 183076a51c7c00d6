"""Shared pieces of the grading tests: where the dev suite is, and deliverable rewriters."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SUITE = Path(__file__).resolve().parents[2].parent / "shared" / "bench" / "geoagentbench-dev"
SOLUTIONS = Path(__file__).resolve().parents[2] / "benchmarks" / "reference_solutions"


def task_ids() -> list[str]:
    if not SUITE.is_dir():
        return []
    return sorted(p.name for p in SUITE.iterdir() if (p / "task.json").is_file())


def task_params():
    """One pytest param per dev task, or a single skipped param when the suite is absent."""
    ids = task_ids()
    if not ids:
        reason = f"dev suite not found at {SUITE} (CI has it beside the repo)"
        return [pytest.param("", marks=pytest.mark.skip(reason=reason))]
    return ids


def copy_truth(task: str, dest: Path) -> Path:
    for path in (SUITE / task / "reference" / "outputs").iterdir():
        shutil.copy(path, dest / path.name)
    return dest


# --- rewriting a deliverable with a change -----------------------------------------------


def read_layers(path: Path, fmt: str) -> dict:
    """Layer name -> (Geo)DataFrame, as a user would load the deliverable."""
    import geopandas as gpd
    import pandas as pd
    import pyarrow.parquet as pq
    import pyogrio

    if fmt == "csv":
        return {"": pd.read_csv(path)}
    if fmt in ("parquet", "geoparquet"):
        geo = b"geo" in (pq.read_schema(path).metadata or {})
        return {"": gpd.read_parquet(path) if geo else pd.read_parquet(path)}
    return {name: gpd.read_file(path, layer=name) for name, _ in pyogrio.list_layers(path)}


def write_layers(layers: dict, path: Path, fmt: str) -> None:
    path.unlink(missing_ok=True)
    for name, frame in layers.items():
        if fmt == "csv":
            frame.to_csv(path, index=False)
        elif fmt in ("parquet", "geoparquet"):
            frame.to_parquet(path, index=False)
        elif fmt == "gpkg":
            frame.to_file(path, layer=name, driver="GPKG")
        else:
            frame.to_file(path, driver={"geojson": "GeoJSON"}.get(fmt, fmt))


def rewrite(workdir: Path, name: str, fmt: str, change) -> None:
    """Load deliverable ``name``, apply ``change(frame) -> frame`` to its first layer, write it back."""
    path = workdir / name
    layers = read_layers(path, fmt)
    first = next(iter(layers))
    layers[first] = change(layers[first])
    write_layers(layers, path, fmt)
