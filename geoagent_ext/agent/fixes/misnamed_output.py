"""A step that wrote its output under another extension of the same name, where the request asks for
one file: ``to_parquet('parcels.parquet')`` for ``parcels.geoparquet``."""

from __future__ import annotations

import ast
import posixpath

from .. import codeinfo
from ..requested import unwritten_output
from .base import Diagnosis, Failure, Rule

# The writer that writes each output format, by the path's extension
_WRITER = {
    ".csv": "to_csv",
    ".parquet": "to_parquet",
    ".geoparquet": "to_parquet",
    ".geojson": "to_file",
    ".gpkg": "to_file",
    ".shp": "to_file",
    ".fgb": "to_file",
}


class MisnamedOutput(Rule):
    """The trial fails a step that must write an output and did not. When the code's one write of a
    file of that output's name (``parcels``) goes to another extension, and its writer is the one
    the output's format takes (``to_parquet`` for a ``.geoparquet``), the file was meant: the path is
    made the output's. A writer of another format, or several such writes, go to the model."""

    strategy = "output_path"
    order = 164

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        missing = unwritten_output(failure.evalue) if failure.ename == "FileNotFoundError" else None
        found = misnamed_write(failure.code, missing) if missing else None
        if found is None:
            return None
        fixed = codeinfo.replaced(failure.code, [(found, repr(missing))])
        return self.diagnosis(failure, name=str(found.value), expression=missing, fixed_code=fixed)

    def said(self, diagnosis: Diagnosis) -> str:
        return f"wrote `{diagnosis.expression}`, the file the request asks for, where the step wrote `{diagnosis.name}`"


def misnamed_write(code: str, path: str) -> ast.Constant | None:
    """The path literal of ``code``'s one write of ``path``'s name under another extension, with the
    writer ``path``'s format takes; None for no such write, or more than one."""
    writer = _WRITER.get(posixpath.splitext(path)[1].lower())
    tree = codeinfo.parse(code)
    if writer is None or tree is None:
        return None
    stem = posixpath.splitext(posixpath.basename(path))[0]
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        given = (
            node.args[0]
            if node.args
            else next((k.value for k in node.keywords if k.arg in ("path", "path_or_buf", "filename")), None)
        )
        if not (isinstance(given, ast.Constant) and isinstance(given.value, str)):
            continue
        written = given.value
        if written != path and posixpath.splitext(posixpath.basename(written))[0] == stem:
            found.append((node.func.attr, given))
    return found[0][1] if len(found) == 1 and found[0][0] == writer else None
