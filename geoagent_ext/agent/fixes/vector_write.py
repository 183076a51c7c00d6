"""A frame written to a vector file through another library's function, and the call failed."""

from __future__ import annotations

import ast

from .. import codeinfo
from .base import Diagnosis, Failure, Rule

# The extensions geopandas' ``to_file`` picks a driver from.
VECTOR_EXTENSIONS = (".geojson", ".gpkg", ".shp", ".fgb", ".gml", ".kml")


class VectorWrite(Rule):
    """``geemap.gdf_to_geojson(gdf, 'out.geojson')`` — a module function given a frame and a vector
    file's path — failed: the frame is written with ``gdf.to_file('out.geojson')``, whose driver
    geopandas takes from the extension. Only a failed call is rewritten: a call that works is the
    model's choice. If the first argument is not a GeoDataFrame, ``to_file`` fails in the next trial
    and says so."""

    strategy = "vector_write"
    order = 106

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        found = written_frame(failure.code, failure.lineno)
        if found is None:
            return None
        statement, frame, path, kept = found
        fixed = codeinfo.replaced(failure.code, [(statement, f"{frame}.to_file({', '.join([path, *kept])})")])
        return self.diagnosis(failure, name=frame, expression=path, fixed_code=fixed)

    def said(self, diagnosis: Diagnosis) -> str:
        return f"wrote `{diagnosis.name}` to {diagnosis.expression} with geopandas' `to_file`"


def written_frame(code: str, lineno: int | None) -> tuple[ast.stmt, str, str, list[str]] | None:
    """The statement on ``lineno`` that is a call ``module.function(frame, ..., 'out.<vector ext>')``
    (the frame a plain name, the path a literal), with the frame's name, the path's source and the
    call's ``layer=``/``driver=`` keywords (``to_file`` takes them too); None for anything else."""
    tree = codeinfo.parse(code)
    if tree is None or not lineno:
        return None
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if (
            statement.lineno == lineno
            and isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.args
            and isinstance(call.args[0], ast.Name)
        ):
            paths = [
                arg
                for arg in [*call.args[1:], *(k.value for k in call.keywords)]
                if isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
                and arg.value.lower().endswith(VECTOR_EXTENSIONS)
            ]
            if len(paths) == 1 and call.args[0].id != call.func.value.id:
                kept = [ast.unparse(k) for k in call.keywords if k.arg in ("layer", "driver")]
                return statement, call.args[0].id, repr(paths[0].value), kept
    return None
