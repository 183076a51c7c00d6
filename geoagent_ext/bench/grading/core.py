"""grade_task: the task's own grader when it has one, else the generic checklist.

grade_generic: one checklist per expected output, compared with the task's reference files.

Per output: ``exists`` and ``parses``; JSON then ``keys`` and one ``value:<key>`` per
top-level key; tables/layers (one block per reference layer of a GeoPackage) the checks
planned in ``layer.LayerCheck``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from .jsondoc import difference
from .layer import LayerCheck
from .models import GradeReport, Subcheck
from .official import grade_with_task_grader, task_grader
from .readers import ReadError, read_json, read_tables
from .task import ExpectedOutput, TaskSpec, normalise_format


class GradingError(Exception):
    """The suite itself is broken (no task.json, missing or unreadable reference output)."""


def grade_task(task_dir: Path, workdir: Path) -> GradeReport:
    """Grade the deliverables in ``workdir``: with the task's ``grade.py`` if present (the benchmark's rules)."""
    if task_grader(Path(task_dir)) is not None:
        return grade_with_task_grader(Path(task_dir), Path(workdir))
    return grade_generic(task_dir, workdir)


def grade_generic(task_dir: Path, workdir: Path) -> GradeReport:
    """Grade the deliverables in ``workdir`` against ``task_dir``'s reference outputs."""
    try:
        spec = TaskSpec.load(Path(task_dir))
    except (OSError, ValueError) as exc:
        raise GradingError(f"cannot load task {task_dir}: {exc}") from exc
    subchecks: list[Subcheck] = []
    for output in spec.outputs:
        subchecks += grade_output(spec, output, Path(workdir))
    return GradeReport(task_id=spec.task_id, subchecks=subchecks)


REFERENCE_LAYOUTS = (("reference", "outputs"), ("reference", "solution", "outputs"))


def _reference_path(spec: TaskSpec, output: ExpectedOutput) -> Path:
    """The reference deliverable, in either layout GeoAgentBench uses."""
    candidates = [spec.task_dir.joinpath(*parts, output.name) for parts in REFERENCE_LAYOUTS]
    for path in candidates:
        if path.exists():
            return path
    raise GradingError(
        f"{spec.task_id}: reference output {output.name} is missing "
        f"(looked in {', '.join(str(p.parent) for p in candidates)})"
    )


def grade_output(spec: TaskSpec, output: ExpectedOutput, workdir: Path) -> list[Subcheck]:
    ref_path = _reference_path(spec, output)
    path = workdir / output.name
    exists = path.is_file()
    missing = f"missing: {output.name} was not written in the working directory"
    checks = [Subcheck(name=f"{output.name}:exists", passed=exists, detail="found" if exists else missing, gate=True)]
    if output.format == "json":
        return checks + _grade_json(output, ref_path, path if exists else None)
    ref_format = normalise_format(None, ref_path.name) if output.format == "unknown" else output.format
    try:
        ref_tables = _read_reference(str(ref_path), ref_format, *_stamp(ref_path))
    except ReadError as exc:
        raise GradingError(f"{spec.task_id}: reference {output.name} unreadable: {exc}") from exc
    got_tables, reason = None, f"{output.name} missing"
    if exists:
        try:
            got_tables = read_tables(path, output.format)
            checks.append(
                Subcheck(name=f"{output.name}:parses", passed=True, detail=f"reads as {output.format}", gate=True)
            )
        except ReadError as exc:
            reason = f"{output.name} does not parse"
            checks.append(Subcheck(name=f"{output.name}:parses", passed=False, detail=str(exc), gate=True))
    else:
        checks.append(Subcheck(name=f"{output.name}:parses", passed=False, detail=f"not checked: {reason}", gate=True))
    multi = len(ref_tables) > 1
    for layer, ref in ref_tables.items():
        prefix = f"{output.name}[{layer}]" if multi else output.name
        got, why = _pick_layer(got_tables, layer, multi, path.stem)
        if multi:
            checks.append(
                Subcheck(
                    name=f"{prefix}:layer",
                    passed=got is not None,
                    gate=True,
                    detail=("present" if got is not None else why or reason),
                )
            )
        checks += LayerCheck(spec, output, ref, got, prefix, why or reason).run()
    return checks


def _stamp(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=64)
def _read_reference(path: str, fmt: str, mtime_ns: int, size: int):
    """Reference tables, cached per file version: a suite run grades each task many times.

    Callers must not modify the returned tables."""
    return read_tables(Path(path), fmt)


def _pick_layer(tables, layer: str, multi: bool, stem: str):
    """The deliverable's table for a reference layer: same name; for single-layer outputs the only one."""
    if tables is None:
        return None, ""
    if layer in tables:
        return tables[layer], ""
    if not multi:
        if len(tables) == 1:
            return next(iter(tables.values())), ""
        if stem in tables:
            return tables[stem], ""
        return None, f"several layers {sorted(tables)} and none named {layer!r}"
    return None, f"layer {layer!r} missing (layers: {sorted(tables)})"


def _grade_json(output: ExpectedOutput, ref_path: Path, path: Path | None) -> list[Subcheck]:
    name = output.name
    try:
        expected = read_json(ref_path)
    except ReadError as exc:
        raise GradingError(f"reference {name} unreadable: {exc}") from exc
    got, reason = None, f"{name} missing"
    out: list[Subcheck] = []
    if path is not None:
        try:
            got = read_json(path)
            out.append(Subcheck(name=f"{name}:parses", passed=True, detail="valid JSON", gate=True))
        except ReadError as exc:
            reason = f"{name} does not parse"
            out.append(Subcheck(name=f"{name}:parses", passed=False, detail=str(exc), gate=True))
    else:
        out.append(Subcheck(name=f"{name}:parses", passed=False, detail=f"not checked: {reason}", gate=True))
    parsed = path is not None and out[-1].passed
    if not isinstance(expected, dict):
        problem = difference(expected, got) if parsed else f"not checked: {reason}"
        return out + [Subcheck(name=f"{name}:value", passed=problem is None, detail=problem or "equal")]
    # A missing key is a gate; an extra one costs its own subcheck.
    if not parsed or not isinstance(got, dict):
        why = f"not checked: {reason}" if not parsed else f"expected an object, got {type(got).__name__}"
        out.append(Subcheck(name=f"{name}:keys", passed=False, detail=why, gate=True))
        out.append(Subcheck(name=f"{name}:extra_keys", passed=False, detail=why))
    else:
        missing = [k for k in expected if k not in got]
        extra = [k for k in got if k not in expected]
        out.append(
            Subcheck(
                name=f"{name}:keys",
                passed=not missing,
                gate=True,
                detail=f"missing {missing}" if missing else f"{len(expected)} keys",
            )
        )
        out.append(
            Subcheck(name=f"{name}:extra_keys", passed=not extra, detail=f"unexpected {extra}" if extra else "none")
        )
    for key, value in expected.items():
        if not parsed or not isinstance(got, dict):
            detail = f"not checked: {reason}" if not parsed else "document is not an object"
            out.append(Subcheck(name=f"{name}:value:{key}", passed=False, detail=detail))
        elif key not in got:
            out.append(Subcheck(name=f"{name}:value:{key}", passed=False, detail=f"key {key!r} missing"))
        else:
            problem = difference({key: value}, {key: got[key]})
            out.append(Subcheck(name=f"{name}:value:{key}", passed=problem is None, detail=problem or "equal"))
    return out
