"""A step that built the table it must write, and wrote nothing."""

from __future__ import annotations

import ast
import posixpath

from .. import codeinfo
from ..requested import unwritten_output
from .base import Diagnosis, Failure, Rule

_TABLES = ("pd.DataFrame", "pandas.DataFrame", "pd.concat", "pandas.concat")
_GEO_TABLES = ("gpd.GeoDataFrame", "geopandas.GeoDataFrame")
_WRITERS = {"to_csv", "to_file", "to_parquet", "to_json", "to_feather", "to_excel", "dump", "write", "writerow"}


class UnwrittenFrame(Rule):
    """The trial fails a step that must write an output and did not. When its code built exactly one
    table (``name = pd.DataFrame(...)``, ``pd.concat``, ``gpd.GeoDataFrame(...)``) and calls no
    writer at all, the table is the step's result: it is written to the output, in the format the
    file's name says (CSV without the index, GeoJSON or GeoPackage of a GeoDataFrame, Parquet). Any
    other case (two tables, a writer called, a format the table cannot have) goes to the model."""

    strategy = "write_frame"
    order = 165

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        missing = unwritten_output(failure.evalue) if failure.ename == "FileNotFoundError" else None
        written = with_table_written(failure.code, missing) if missing else None
        return self.diagnosis(failure, name=written[1], fixed_code=written[0]) if written else None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"wrote `{diagnosis.name}`, the one table the step built, to the file it must write"


def _writes(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Attribute) and node.func.attr in _WRITERS)
            or codeinfo.call_name(node.func) == "open"
            and any(isinstance(a, ast.Constant) and str(a.value)[:1] in "wa" for a in node.args[1:2])
        )
        for node in ast.walk(tree)
    )


def _write_line(name: str, geo: bool, path: str) -> str | None:
    ext = posixpath.splitext(path)[1].lower()
    if ext == ".csv":
        return f"{name}.to_csv({path!r}, index=False)"
    if ext in (".parquet", ".geoparquet"):
        return f"{name}.to_parquet({path!r}" + ("" if geo else ", index=False") + ")"
    if geo and ext in (".geojson", ".gpkg"):
        return f"{name}.to_file({path!r}, driver={'GeoJSON' if ext == '.geojson' else 'GPKG'!r})"
    return None


def with_table_written(code: str, path: str) -> tuple[str, str] | None:
    """(``code`` with the one table it builds written to ``path``, the table's name), or None."""
    tree = codeinfo.parse(code)
    if tree is None or _writes(tree):
        return None
    built: dict[str, bool] = {}  # name -> a GeoDataFrame
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        called = codeinfo.call_name(stmt.value.func) if isinstance(stmt.value, ast.Call) else None
        if called in _TABLES or called in _GEO_TABLES:
            built[stmt.targets[0].id] = called in _GEO_TABLES
    if len(built) != 1:
        return None
    [(name, geo)] = built.items()
    line = _write_line(name, geo, path)
    return (f"{code.rstrip()}\n{line}\n", name) if line else None
