"""Wrong deliverables fail the right subchecks, and only those.

Each case rewrites one reference output with one defect (as an agent's mistake would) and
grades that output alone.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from geoagent_ext.bench.grading import grade_output
from geoagent_ext.bench.grading.core import _read_reference
from geoagent_ext.bench.grading.layer import LayerCheck
from geoagent_ext.bench.grading.readers import type_family
from geoagent_ext.bench.grading.task import TaskSpec

from .helpers import SUITE, copy_truth, rewrite, task_ids

TABLE_KINDS = ("drop_row", "numeric_5pct", "rename_column", "crs_stamped", "crs_reprojected", "shuffle")


def _first_table_output(task: str):
    spec = TaskSpec.load(SUITE / task)
    for output in spec.outputs:
        if output.format != "json":
            return spec, output
    return spec, None


def _cases():
    cases = []
    for task in task_ids():
        spec, output = _first_table_output(task)
        if output is not None:
            cases += [(task, kind) for kind in TABLE_KINDS]
    return cases or [pytest.param("", "", marks=pytest.mark.skip(reason=f"dev suite not found at {SUITE}"))]


def _layer_check(spec, output) -> LayerCheck:
    path = SUITE / spec.task_id / "reference" / "outputs" / output.name
    tables = _read_reference(str(path), output.format, path.stat().st_mtime_ns, path.stat().st_size)
    ref = next(iter(tables.values()))
    return LayerCheck(spec, output, ref, ref, output.name)


def _failed(spec, output, workdir) -> dict[str, str]:
    """Failed subchecks of one output, by name without the file/layer prefix."""
    return {s.name.rsplit(":", 1)[1]: s.detail for s in grade_output(spec, output, workdir) if not s.passed}


@pytest.mark.parametrize("task,kind", _cases())
def test_defect_fails_the_right_subchecks(task, kind, tmp_path):
    spec, output = _first_table_output(task)
    check = _layer_check(spec, output)
    ref = check.ref
    workdir = copy_truth(task, tmp_path)
    key = check.key
    stated_crs = output.crs is not None

    if kind == "drop_row":
        rewrite(workdir, output.name, output.format, lambda f: f.iloc[1:])
        expected = {"row_count"} | ({"id_set"} if key else set())
    elif kind == "numeric_5pct":
        numeric = [c for c in check.required if c != key and type_family(ref.types[c]) in ("float", "int")]
        if not numeric:
            pytest.skip("no numeric required attribute")
        col = next((c for c in numeric if type_family(ref.types[c]) == "float"), numeric[0])
        row = int(np.flatnonzero(ref.frame[col].notna().to_numpy())[0])

        def bump(frame):
            frame = frame.copy()
            value = frame[col].iloc[row]
            new = value * 1.05 if type_family(ref.types[col]) == "float" else value + max(1, round(0.05 * value))
            frame.iloc[row, frame.columns.get_loc(col)] = new
            return frame

        rewrite(workdir, output.name, output.format, bump)
        expected = {"attributes"}
    elif kind == "rename_column":
        others = [c for c in check.required if c != key]
        col = others[0] if others else key
        rewrite(workdir, output.name, output.format, lambda f: f.rename(columns={col: col + "_x"}))
        failed = _failed(spec, output, workdir)
        assert "columns" in failed and col in failed["columns"], failed
        allowed = {"columns", "attributes", "dtypes"} | ({"id_set", "sort_order"} if col == key else set())
        assert set(failed) <= allowed, failed
        if len(others) > 1:
            assert "attributes" not in failed, failed  # the other columns still compare
        return
    elif kind in ("crs_stamped", "crs_reprojected"):
        if not ref.spatial:
            pytest.skip("not a spatial output")
        other = 4326 if ref.crs.to_epsg() == 3857 else 3857
        if kind == "crs_stamped":  # declared CRS changed, coordinates not transformed
            rewrite(workdir, output.name, output.format, lambda f: f.set_crs(other, allow_override=True))
            failed = _failed(spec, output, workdir)
            assert "geometry" in failed, failed
            assert ("crs" in failed) == stated_crs, failed
            return
        rewrite(workdir, output.name, output.format, lambda f: f.to_crs(other))
        expected = {"crs"} if stated_crs else set()  # correctly reprojected: only the CRS choice differs
    elif kind == "shuffle":
        rewrite(workdir, output.name, output.format, lambda f: f.sample(frac=1.0, random_state=7))
        expected = {"sort_order"} if spec.sort_requested else set()
    else:
        raise AssertionError(kind)
    failed = _failed(spec, output, workdir)
    assert set(failed) == expected, failed
    for name in expected:
        assert failed[name], "a failed subcheck must say what differed"


def _json_tasks():
    tasks = [t for t in task_ids() if any(o.format == "json" for o in TaskSpec.load(SUITE / t).outputs)]
    return tasks or [pytest.param("", marks=pytest.mark.skip(reason="no JSON task in the suite (or no suite)"))]


@pytest.mark.parametrize("task", _json_tasks())
def test_json_defects(task, tmp_path):
    spec = TaskSpec.load(SUITE / task)
    output = next(o for o in spec.outputs if o.format == "json")
    workdir = copy_truth(task, tmp_path)
    truth = json.loads((workdir / output.name).read_text())
    keys = list(truth)

    def failed_with(document) -> set[str]:
        (workdir / output.name).write_text(json.dumps(document))
        return {s.name.split(":", 1)[1] for s in grade_output(spec, output, workdir) if not s.passed}

    for key in keys:
        wrong = json.loads(json.dumps(truth))
        wrong[key] = _perturb(wrong[key])
        assert failed_with(wrong) == {f"value:{key}"}, key
    missing = {k: v for k, v in truth.items() if k != keys[0]}
    assert failed_with(missing) == {"keys", f"value:{keys[0]}"}
    (workdir / output.name).write_text("{not json")
    assert "parses" in {s.name.split(":", 1)[1] for s in grade_output(spec, output, workdir) if not s.passed}


def _perturb(value):
    """The value with its first number off by 5% (+1 for integers), or a changed string."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.05 if value else 1.0
    if isinstance(value, list) and value:
        if len(value) >= 2 and all(isinstance(v, (int, float)) for v in value[:2]):
            return [value[1], value[0], *value[2:]]  # swapped pair, e.g. lat/lon
        return [_perturb(value[0]), *value[1:]]
    if isinstance(value, dict) and value:
        first = next(iter(value))
        return {**value, first: _perturb(value[first])}
    return f"{value}-x"
