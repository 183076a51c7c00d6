"""A record (a dict a step collects in a list, one per layer, group or feature) holding a whole
pandas column in a field an output lists, where one value belongs: the model repairs it, told which."""

from __future__ import annotations

import ast
from typing import Any

from .. import codeinfo
from .base import Rule, TrialFacts, for_each


class ColumnInRecord(Rule):
    """``rows.append({'layer': name, 'sample_x': layer.centroid.x})`` puts every feature's x in one
    field, and the table made of the records prints the Series into a cell. The trial fails a step
    whose list of records has a pandas object in a field named like a column of the contract's
    outputs. No rewrite is certain (the first value, the mean, a count): the model repairs it, with
    the field and the value's length in the error."""

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
                "        raise ValueError(f'`{_geoagent_name}[{_geoagent_i}][{_geoagent_k!r}]` holds a whole '",
                "            f'{type(_geoagent_r[_geoagent_k]).__name__} of {len(_geoagent_r[_geoagent_k])} values '",
                "            'where a record holds one value per field (a cell of the output): take the one '",
                "            'value the field means (.iloc[0] for one feature\\'s, .mean(), .unique()[0], '",
                "            'len(frame)), not the column.')",
            ],
        )


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
