"""Grading rules on tiny synthetic tasks (no suite needed): each rule in isolation."""

from __future__ import annotations

import json

import geopandas as gpd
import pandas as pd
import pytest
from shapely.geometry import MultiPolygon, Point, box

from geoagent_ext.bench.grading import GradingError, grade_generic


def make_task(root, instruction: str, outputs: dict, inputs: dict | None = None):
    """A task folder: outputs maps name -> (frame or JSON document, expected_outputs extras)."""
    task = root / "task"
    (task / "reference" / "outputs").mkdir(parents=True)
    (task / "inputs").mkdir()
    expected = []
    for name, (content, extra) in outputs.items():
        path = task / "reference" / "outputs" / name
        fmt = extra.get("format", name.rsplit(".", 1)[1])
        write(content, path, fmt)
        expected.append({"name": name, "format": fmt, **extra})
    for name, frame in (inputs or {}).items():
        write(frame, task / "inputs" / name, name.rsplit(".", 1)[1])
    (task / "task.json").write_text(
        json.dumps({"task_id": "t", "instruction": instruction, "expected_outputs": expected})
    )
    return task


def write(content, path, fmt):
    if fmt == "json":
        path.write_text(json.dumps(content))
    elif fmt == "csv":
        content.to_csv(path, index=False)
    elif fmt in ("parquet", "geoparquet"):
        content.to_parquet(path, index=False)
    else:
        content.to_file(path, driver={"geojson": "GeoJSON", "gpkg": "GPKG"}[fmt])


def failed(task, workdir) -> dict[str, str]:
    """Failed subchecks by name without the output prefix ('value:bbox', 'geometry')."""
    return {s.name.split(":", 1)[1]: s.detail for s in grade_generic(task, workdir).subchecks if not s.passed}


def squares(n=3, crs=3857):
    return gpd.GeoDataFrame(
        {"cell_id": [f"c{i}" for i in range(n)], "value": [1.5 * (i + 1) for i in range(n)]},
        geometry=[box(i * 10, 0, i * 10 + 10, 10) for i in range(n)],
        crs=crs,
    )


@pytest.fixture
def out(tmp_path):
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.mark.parametrize(
    "instruction,multi_ok",
    [
        ("Write `cells.geojson` with cell_id and value (Polygon or MultiPolygon).", True),
        ("Write `cells.geojson` with cell_id and value; every feature must be a Polygon.", False),
        ("Write `cells.geojson` with cell_id and value, single-part features only.", False),
        ("Write `cells.geojson` with cell_id and value.", True),
    ],
)
def test_single_multi_variants_follow_the_instruction(tmp_path, out, instruction, multi_ok):
    task = make_task(tmp_path, instruction, {"cells.geojson": (squares(), {"geometry_type": "Polygon"})})
    multi = squares()
    multi["geometry"] = [MultiPolygon([g]) for g in multi.geometry]
    write(multi, out / "cells.geojson", "geojson")
    assert ("geometry_type" in failed(task, out)) == (not multi_ok)


def test_json_numbers_counts_and_coordinates(tmp_path, out):
    truth = {
        "count": 80,
        "bbox": [18.380309, -34.073855, 18.819549, -33.701317],
        "mean_km": 12.5,
        "per_class": {"a": 10, "b": 70},
    }
    task = make_task(tmp_path, "Write summary.json.", {"summary.json": (truth, {})})
    good = {
        "count": 80.0,
        "bbox": [18.3803092, -34.0738551, 18.81955, -33.70132],
        "mean_km": 12.505,
        "per_class": {"b": 70, "a": 10},
    }
    write(good, out / "summary.json", "json")
    assert failed(task, out) == {}
    bad = {**good, "count": 79, "bbox": [18.3813, -34.073855, 18.819549, -33.701317], "mean_km": 13.1}
    write(bad, out / "summary.json", "json")
    problems = failed(task, out)
    assert set(problems) == {"value:count", "value:bbox", "value:mean_km"}
    assert "bbox[0]: expected 18.380309" in problems["value:bbox"]


def test_tied_ranks_may_swap_but_ordering_must_hold(tmp_path, out):
    ref = pd.DataFrame({"zone_id": ["a", "b", "c", "d"], "rank": [1, 2, 3, 4], "score": [9.0, 5.0, 5.0, 1.0]})
    task = make_task(
        tmp_path, "Rank zones by score descending into ranks.csv with zone_id, rank, score.", {"ranks.csv": (ref, {})}
    )
    swapped_ties = pd.DataFrame({"zone_id": ["a", "c", "b", "d"], "rank": [1, 2, 3, 4], "score": [9.0, 5.0, 5.0, 1.0]})
    write(swapped_ties, out / "ranks.csv", "csv")
    assert failed(task, out) == {}
    wrong_ranks = pd.DataFrame({"zone_id": ["b", "a", "c", "d"], "rank": [1, 2, 3, 4], "score": [5.0, 9.0, 5.0, 1.0]})
    write(wrong_ranks, out / "ranks.csv", "csv")
    assert set(failed(task, out)) == {"attributes"}  # rows follow its (wrong) ranks
    unsorted = ref.iloc[[3, 0, 2, 1]]
    write(unsorted, out / "ranks.csv", "csv")
    assert set(failed(task, out)) == {"sort_order"}


def test_rows_without_ids_match_by_geometry_when_unordered(tmp_path, out):
    ref = gpd.GeoDataFrame({"kind": ["x", "y", "z"]}, geometry=[Point(0, 0), Point(5, 5), Point(9, 1)], crs=32633)
    task = make_task(
        tmp_path,
        "Write pts.gpkg with the kind column.",
        {"pts.gpkg": (ref, {})},
        inputs={"src.csv": pd.DataFrame({"kind": ["x"]})},
    )
    write(ref.iloc[[2, 0, 1]], out / "pts.gpkg", "gpkg")
    assert failed(task, out) == {}
    moved = ref.iloc[[2, 0, 1]].copy()
    moved["geometry"] = moved.translate(0.5, 0)
    write(moved, out / "pts.gpkg", "gpkg")
    assert set(failed(task, out)) == {"geometry"}


@pytest.mark.parametrize("named", [True, False])
def test_exact_width_only_when_the_instruction_names_it(tmp_path, out, named):
    ref = pd.DataFrame({"row_id": ["a", "b"], "n": pd.array([1, 2], dtype="int32")})
    words = "with `n` as int32" if named else "with an integer `n`"
    task = make_task(tmp_path, f"Write t.parquet {words} and row_id.", {"t.parquet": (ref, {})})
    write(ref.astype({"n": "int64"}), out / "t.parquet", "parquet")
    assert ("dtypes" in failed(task, out)) == named
    write(ref.astype({"n": "float64"}), out / "t.parquet", "parquet")
    assert "expected int" in failed(task, out)["dtypes"]


def test_format_is_checked_by_content(tmp_path, out):
    task = make_task(
        tmp_path,
        "Write cells.gpkg and cells.geoparquet with cell_id and value.",
        {"cells.gpkg": (squares(), {}), "cells.geoparquet": (squares(), {})},
    )
    write(squares(), out / "cells.gpkg", "geojson")  # GeoJSON text under a .gpkg name
    pd.DataFrame(squares().drop(columns="geometry")).to_parquet(out / "cells.geoparquet")  # no geo metadata
    problems = {s.name: s.detail for s in grade_generic(task, out).subchecks if not s.passed}
    assert "GDAL reads it as GeoJSON" in problems["cells.gpkg:parses"]
    assert "GeoParquet 'geo' metadata" in problems["cells.geoparquet:parses"]


def test_output_crs_stated_or_not(tmp_path, out):
    stated = make_task(
        tmp_path / "a",
        "Write cells.geojson with cell_id and value.",
        {"cells.geojson": (squares(), {"crs": "EPSG:3857"})},
    )
    free = make_task(tmp_path / "b", "Write cells.geojson with cell_id and value.", {"cells.geojson": (squares(), {})})
    write(squares().to_crs(4326), out / "cells.geojson", "geojson")
    assert set(failed(stated, out)) == {"crs"}
    assert failed(free, out) == {}
    write(squares().set_crs(4326, allow_override=True), out / "cells.geojson", "geojson")  # stamped, not projected
    assert set(failed(free, out)) == {"geometry"}


def test_unrequested_reference_columns_are_not_graded(tmp_path, out):
    ref = squares()
    ref["cluster_no"] = [7, 8, 9]  # the reference's own numbering, never asked for
    task = make_task(tmp_path, "Write cells.geojson keeping cell_id and value.", {"cells.geojson": (ref, {})})
    write(squares(), out / "cells.geojson", "geojson")
    assert failed(task, out) == {}


def test_empty_string_equals_null(tmp_path, out):
    ref = pd.DataFrame({"row_id": ["a", "b"], "note": ["x", ""]})
    task = make_task(tmp_path, "Write n.parquet with row_id and note.", {"n.parquet": (ref, {})})
    write(pd.DataFrame({"row_id": ["a", "b"], "note": ["x", None]}), out / "n.parquet", "parquet")
    assert failed(task, out) == {}


def test_broken_suite_raises(tmp_path, out):
    task = make_task(tmp_path, "Write a.csv.", {"a.csv": (pd.DataFrame({"x": [1]}), {})})
    (task / "reference" / "outputs" / "a.csv").unlink()
    with pytest.raises(GradingError, match="reference output a.csv is missing"):
        grade_generic(task, out)
    with pytest.raises(GradingError, match="no task.json"):
        grade_generic(tmp_path / "nowhere", out)
