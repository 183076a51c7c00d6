"""A frame written while one name is both its index and a column (``cannot insert X, already exists``)."""

from __future__ import annotations

import ast
import re

from .. import codeinfo
from .base import Diagnosis, Failure, Rule

# pandas' words when reset_index() (which to_file and to_parquet call on a frame whose index is not
# the default one) would add a column the frame already has.
_INDEX_AS_COLUMN = re.compile(r"cannot insert (.+?), already exists")


class IndexTwice(Rule):
    """``gdf.dissolve(by='source')`` (or a groupby) keeps ``source`` as the index; setting the column
    ``source`` again and then writing the frame fails, because the writer turns the index into a
    column and that column exists. The file can hold one ``source``: the column the code set last,
    so the write takes the frame without that index level,
    ``gdf.reset_index(level='source', drop=True).to_file(...)``. Only a write of a named frame on the
    failing line is rewritten; anything else raising these words goes to the model."""

    strategy = "index_twice"
    order = 158

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        found = _INDEX_AS_COLUMN.search(failure.evalue) if failure.ename == "ValueError" else None
        if found is None:
            return None
        level = found.group(1)
        fixed = without_index_level(failure.code, level, failure.lineno)
        return self.diagnosis(failure, name=level, fixed_code=fixed) if fixed else None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"wrote the frame without its index `{diagnosis.name}`: its column `{diagnosis.name}` holds the values"


def without_index_level(code: str, level: str, lineno: int | None) -> str | None:
    """``code`` with the frame written on ``lineno`` (``name.to_file(...)``, ``to_parquet``,
    ``to_feather``) taken without its index level ``level``; None when that line writes no named
    frame, or several."""
    tree = codeinfo.parse(code)
    writes = [
        call
        for call in codeinfo.frame_writes(tree)
        if lineno is not None and call.lineno <= lineno <= (call.end_lineno or call.lineno)
    ]
    if len(writes) != 1:
        return None
    writer = writes[0].func
    frame = writer.value if isinstance(writer, ast.Attribute) else None
    if not isinstance(frame, ast.Name):  # frame_writes finds writes of a named frame only
        return None
    fixed = codeinfo.replaced(code, [(frame, f"{frame.id}.reset_index(level={level!r}, drop=True)")])
    return fixed if codeinfo.parse(fixed) is not None else None
