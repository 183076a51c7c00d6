"""A frame written or built without its geometry set, while its geometries are at hand."""

from __future__ import annotations

import ast
import re
from typing import Any, cast

from .. import codeinfo
from ..probes import run_probe
from .base import Diagnosis, Failure, Rule, TrialFacts, for_each

# geopandas' refusal of ``crs=`` given to a frame built without a geometry column
_CRS_WITHOUT_GEOMETRY = re.compile(r"Assigning CRS to a GeoDataFrame without a geometry column")


class SetGeometry(Rule):
    """``gdf[['id', 'buffered']]`` keeps the buffers but not the active geometry: geopandas writes that
    file and no reader opens it as a spatial file; ``gpd.GeoDataFrame({...})`` from one frame's columns
    alone has no geometry in any row. The trial fails both, and the frame's one geometry column (or
    the source frame's geometry) becomes its geometry."""

    strategy = "set_geometry"
    order = 60

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        builds = geometryless_builds(code)
        rebound = sorted({source for name, source in builds if name == source})
        geo_before = (await run_probe(kernel, "geometry_names", rebound) if rebound else None) or {}
        checked = [(name, source, source in geo_before) for name, source in builds]
        return self._unset_guard(written_frames(code)) + self._geometryless_guard(checked)

    def _unset_guard(self, written: list[str]) -> str:
        """Fails a step that wrote a frame whose geometry column is not among its columns while
        exactly one other column holds geometries."""
        return for_each(
            written,
            "_geoagent_name",
            [
                "_geoagent_f = globals().get(_geoagent_name)",
                "if type(_geoagent_f).__name__ in ('DataFrame', 'GeoDataFrame') and "
                "getattr(_geoagent_f, '_geometry_column_name', None) not in _geoagent_f.columns:",
                "    _geoagent_geo = [c for c in _geoagent_f.columns if str(_geoagent_f[c].dtype) == 'geometry']",
                "    if len(_geoagent_geo) == 1:",
                "        " + self.trip({"name": "_geoagent_name", "geometry": "_geoagent_geo[0]", "kind": "'unset'"}),
                "        raise TypeError(f'`{_geoagent_name}` was written without a geometry column set: '",
                "            'its geometries '",
                "        f'are in {_geoagent_geo[0]!r}, and the file written from it does not open as a '",
                "        f'spatial file. Make that column its geometry before writing: '",
                "        f'{_geoagent_name} = gpd.GeoDataFrame({_geoagent_name}, geometry={_geoagent_geo[0]!r})')",
            ],
        )

    def _geometryless_guard(self, builds: list[tuple[str, str, bool]]) -> str:
        """Fails a step that built a GeoDataFrame from a GeoDataFrame's columns without its geometry,
        as many rows: every row of it has no geometry. ``builds``: (name, source, whether the source
        held a GeoDataFrame before the step), the last told by the kernel for a frame the build
        rebinds (``gdf = gpd.GeoDataFrame({'a': gdf['a']})``: after the step it is the build)."""
        return for_each(
            builds,
            "_geoagent_name, _geoagent_source, _geoagent_was_geo",
            [
                "_geoagent_f, _geoagent_s = globals().get(_geoagent_name), globals().get(_geoagent_source)",
                "if type(_geoagent_f).__name__ == 'GeoDataFrame' \\",
                "        and getattr(_geoagent_f, '_geometry_column_name', None) not in _geoagent_f.columns \\",
                "        and ((_geoagent_was_geo and _geoagent_name == _geoagent_source) or (",
                "            type(_geoagent_s).__name__ == 'GeoDataFrame'",
                "            and getattr(_geoagent_s, '_geometry_column_name', None) in _geoagent_s.columns",
                "            and len(_geoagent_f) == len(_geoagent_s))):",
                "    " + self.trip({"name": "_geoagent_name", "source": "_geoagent_source", "kind": "'given'"}),
                "    raise TypeError(f'`{_geoagent_name}` was built from `{_geoagent_source}`\\'s columns '",
                "        'without its '",
                "        f'geometry: no row of it has one. Give it the geometry: gpd.GeoDataFrame({{...}}, '",
                "        f'geometry={_geoagent_source}.geometry)')",
            ],
        )

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        seen = self.tripped(failure)
        if seen is None:
            return None
        if seen.get("kind") == "given":
            given = with_geometry_given(failure.code, seen["name"], seen["source"])
            expression = f"{seen['source']}.geometry"
        else:
            given = with_geometry_set(failure.code, seen["name"], seen["geometry"])
            expression = seen["geometry"]
        return self.diagnosis(failure, name=seen["name"], expression=expression, fixed_code=given) if given else None

    async def diagnose_live(self, diagnosis: Diagnosis, code: str, lineno: int | None, kernel: Any) -> Diagnosis | None:
        """geopandas refuses ``crs=`` on a frame built from another's columns alone, before any guard
        runs: when the kernel tells the source holds a GeoDataFrame, the call is given its geometry."""
        if diagnosis.fixed_code or not _CRS_WITHOUT_GEOMETRY.search(diagnosis.message):
            return None
        builds = geometryless_builds(code)
        sources = sorted({source for _, source in builds})
        geo = (await run_probe(kernel, "geometry_names", sources, timeout=30) if sources else None) or {}
        name, source = next(((n, s) for n, s in builds if s in geo), ("", ""))
        given = with_geometry_given(code, name, source) if name else None
        if not given:
            return None
        return Diagnosis(self.strategy, diagnosis.message, name=name, expression=f"{source}.geometry", fixed_code=given)

    def said(self, diagnosis: Diagnosis) -> str:
        return f"gave `{diagnosis.name}` the geometry `{diagnosis.expression}` (it had none set)"


def written_frames(code: str) -> list[str]:
    """The names whose frame ``code`` writes to a file (``gdf.to_parquet(...)``, ``gdf.to_file(...)``)."""
    return list(dict.fromkeys(_written_name(call) for call in codeinfo.frame_writes(codeinfo.parse(code))))


def _written_name(call: ast.Call) -> str:
    """The frame a write (one of ``codeinfo.frame_writes``: ``<name>.to_file(...)``) writes."""
    return cast(ast.Name, cast(ast.Attribute, call.func).value).id


def with_geometry_set(code: str, name: str, geometry: str) -> str | None:
    """``code`` with ``name = gpd.GeoDataFrame(name, geometry=geometry)`` before its first write of
    ``name``: the frame's one geometry column becomes its geometry (a selection that kept
    ``gdf['buffered']`` but not the active ``geometry`` writes a GeoParquet no reader opens:
    ``KeyError: 'geometry'``), named ``geometry`` as readers of a GeoParquet expect when no other
    column has that name. None when ``code`` does not write ``name``."""
    tree = codeinfo.parse(code)
    if tree is None:
        return None
    writes = [call for call in codeinfo.frame_writes(tree) if _written_name(call) == name]
    statement = (
        next(
            (
                s
                for s in ast.walk(tree)
                if isinstance(s, ast.stmt)
                and not isinstance(s, _BLOCKS)
                and writes
                and s.lineno <= writes[0].lineno <= (s.end_lineno or s.lineno)
            ),
            None,
        )
        if writes
        else None
    )
    if statement is None:
        return None
    lines = code.splitlines()
    indent = " " * statement.col_offset
    lines[statement.lineno - 1 : statement.lineno - 1] = [
        f"{indent}{name} = gpd.GeoDataFrame({name}, geometry={geometry!r})",
        f"{indent}{name} = {name}.rename_geometry('geometry') if 'geometry' not in {name}.columns else {name}",
    ]
    fixed = "\n".join(lines)
    return fixed if "gpd" in codeinfo.bound_names(code) else "import geopandas as gpd\n" + fixed


def _geometryless_builds(tree: ast.Module) -> list[tuple[str, str, ast.Call]]:
    """(name, source, call) of each top-level ``name = gpd.GeoDataFrame({...})`` whose columns all come
    from one frame ``source`` (``{'a': src['a'], 'b': src.b}``), without ``geometry=`` or a
    ``'geometry'`` key: a GeoDataFrame with no geometry."""
    found = []
    for stmt in tree.body:
        call = (
            stmt.value
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            else None
        )
        if not (
            isinstance(call, ast.Call)
            and codeinfo.method_of(call) == "GeoDataFrame"
            and len(call.args) == 1
            and isinstance(call.args[0], ast.Dict)
            and call.args[0].values
            and not any(k.arg in ("geometry", None) for k in call.keywords)
        ):
            continue
        keys, values = call.args[0].keys, call.args[0].values
        sources = {_frame_of(v) for v in values}
        source = sources.pop() if len(sources) == 1 else None
        if source is not None and not any(isinstance(k, ast.Constant) and k.value == "geometry" for k in keys):
            found.append((cast(ast.Name, cast(ast.Assign, stmt).targets[0]).id, source, call))
    return found


def _frame_of(value: ast.expr) -> str | None:
    """The frame a column value is taken from: the name at the root of a chain of its members,
    items and method calls (``src['a']``, ``src.a``, ``src['geometry'].apply(f)``,
    ``src.geometry.length``); None for any other value (a literal, a bare name, a module's function
    such as ``pd.to_numeric(...)``, whose root is a module, not a frame, counts as another source)."""
    node = value
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Call)):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Attribute):
                return None
            node = node.func
        node = node.value
    return node.id if isinstance(node, ast.Name) and node is not value else None


def geometryless_builds(code: str) -> list[tuple[str, str]]:
    """(name, source) of each GeoDataFrame ``code`` builds from one frame's columns without its geometry."""
    tree = codeinfo.parse(code)
    return [(name, source) for name, source, _ in _geometryless_builds(tree)] if tree is not None else []


def with_geometry_given(code: str, name: str, source: str) -> str | None:
    """``code`` with ``geometry=source.geometry`` in the call that builds ``name`` from ``source``'s
    columns alone: the frame it builds has no geometry in any row."""
    tree = codeinfo.parse(code)
    calls = [call for n, s, call in _geometryless_builds(tree) if (n, s) == (name, source)] if tree is not None else []
    text = ast.get_source_segment(code, calls[0]) if calls else None
    if not text or not text.endswith(")"):
        return None
    head = text[:-1].rstrip()
    return codeinfo.replaced(
        code, [(calls[0], f"{head}{'' if head.endswith(',') else ','} geometry={source}.geometry)")]
    )


_BLOCKS = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.If,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
)
