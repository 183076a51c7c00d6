"""A record (a dict a step collects in a list, one per layer, group or feature) holding a whole
pandas column in a field an output lists, where one value belongs: taken as its first value where
that is certain, else the model repairs it, told which."""

from __future__ import annotations

import ast
import re
from typing import Any

from .. import codeinfo
from .base import Diagnosis, Failure, Rule, TrialFacts, for_each

# A field whose name says it holds one item taken from many: a sample, an example, the first
_ONE_OF_MANY = re.compile(r"(?:^|_)(?:sample|example|first)(?:$|_)", re.IGNORECASE)


class ColumnInRecord(Rule):
    """``rows.append({'layer': name, 'sample_x': layer.centroid.x})`` puts every feature's x in one
    field, and the table made of the records prints the Series into a cell. The trial fails a step
    whose list of records has a pandas object in a field named like a column of the contract's
    outputs. The value becomes its first one (``.iloc[0]`` on the dict's value) only where no other
    reading exists: every value of the column is the same (its first, mean and only value agree), or
    the field's name says it is a sample, an example or the first. Otherwise no rewrite is certain
    (the first value, the mean, a count): the model repairs it, with the field and the value's length
    in the error."""

    strategy = "one_value"
    order = 45

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        names = record_lists(code) if facts.output_columns else []
        return for_each(
            names,
            "_geoagent_name",
            [
                "_geoagent_f = globals().get(_geoagent_name)",
                "_geoagent_records = _geoagent_f if isinstance(_geoagent_f, list) else []",
                "for _geoagent_i, _geoagent_r in enumerate(_geoagent_records):",
                "    _geoagent_whole = [k for k, v in (_geoagent_r.items() if isinstance(_geoagent_r, dict) else []) "
                f"if k in {sorted(facts.output_columns)!r} "
                "and type(v).__module__.split('.')[0] in ('pandas', 'geopandas') and hasattr(v, '__len__')]",
                "    if _geoagent_whole:",
                "        _geoagent_k = _geoagent_whole[0]",
                "        _geoagent_same = [k for k in _geoagent_whole if all(len({repr(x) for x in v.tolist()}) == 1 "
                "for r in _geoagent_records if isinstance(r, dict) for v in [r.get(k)] if hasattr(v, 'tolist'))]",
                "        "
                + self.trip({"name": "_geoagent_name", "fields": "_geoagent_whole", "same": "_geoagent_same"}),
                "        raise ValueError(f'`{_geoagent_name}[{_geoagent_i}][{_geoagent_k!r}]` holds a whole '",
                "            f'{type(_geoagent_r[_geoagent_k]).__name__} of {len(_geoagent_r[_geoagent_k])} values '",
                "            'where a record holds one value per field (a cell of the output): take the one '",
                "            'value the field means (.iloc[0] for one feature\\'s, .mean(), .unique()[0], '",
                "            'len(frame)), not the column.')",
            ],
        )

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        seen = self.tripped(failure)
        if seen is None:
            return None
        same = set(seen.get("same") or [])
        certain = {str(k) for k in seen.get("fields") or [] if k in same or _ONE_OF_MANY.search(str(k))}
        edits = [(value, _first_of(failure.code, value)) for value in record_values(failure.code, certain)]
        if not edits:
            return None
        fixed = codeinfo.replaced(failure.code, edits)
        return self.diagnosis(failure, name=", ".join(f"`{k}`" for k in sorted(certain)), fixed_code=fixed)

    def said(self, diagnosis: Diagnosis) -> str:
        return f"took the first value (`.iloc[0]`) for {diagnosis.name}: the record's field held a whole column"


def record_values(code: str, fields: set[str]) -> list[ast.expr]:
    """The values of ``code``'s dict displays under the keys ``fields`` (string keys)."""
    tree = codeinfo.parse(code)
    if tree is None or not fields:
        return []
    return [
        value
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        for key, value in zip(node.keys, node.values)
        if isinstance(key, ast.Constant) and key.value in fields
    ]


def _first_of(code: str, value: ast.expr) -> str:
    """``value``'s source with ``.iloc[0]`` taken of it (bracketed unless it is a primary)."""
    text = ast.get_source_segment(code, value) or ast.unparse(value)
    primary = isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
    return f"{text}.iloc[0]" if primary else f"({text}).iloc[0]"


def record_lists(code: str) -> list[str]:
    """Names ``code`` appends to or binds to a list display or comprehension: where records of a
    table are gathered."""
    tree = codeinfo.parse(code)
    if tree is None:
        return []
    bound = [
        node.targets[0].id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, (ast.List, ast.ListComp))
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
    ]
    return list(dict.fromkeys(codeinfo.appended_lists(code) + bound))
