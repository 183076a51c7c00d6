"""A JSON object with one key per value of an input's column ("count_per_district"), each value
that group's number of rows when it counts them."""

from ..checker import _contract_group_keys
from ._kind import ColumnParams, RequirementKind
from ._mending import embedded, read_table


class GroupKeysParams(ColumnParams):
    column: str  # the input's column whose values are the keys
    input: str
    counts: bool = False  # each value is its group's number of rows


def _kind_group_keys(params, data, value, sources):
    return _contract_group_keys(params["name"], value, params, sources)


def _regrouped(p, site):
    """A per-group object written in another of pandas' shapes reshaped without changing a value;
    a group it lacks counts 0 when the values are counts (an integer requirement on the same name)."""
    name, column, source = str(p.get("name") or ""), str(p.get("column") or ""), str(p.get("input") or "")
    if not (name and column and source):
        return []
    counts = any(kind == "integer" for kind, _ in site.same_name)
    return [
        *embedded("_contract_group_text", "_contract_group_object"),
        f"_groups = {read_table(source)}[{column!r}].dropna().tolist()",
        f"_mend[{name!r}] = _contract_group_object(_mend[{name!r}], {column!r}, _groups, "
        f"fill={0 if counts else None!r})",
    ]


GROUP_KEYS = RequirementKind(
    name="group_keys",
    params=GroupKeysParams,
    check=_kind_group_keys,
    reads="column",
    mend=_regrouped,
    mends_json=True,
    advice=(
        "make it a dict {group value: value} over every value of the group column, e.g. "
        "counts.reindex(sorted(layer[GROUP].dropna().unique()), fill_value=0) then "
        "{str(k): int(v) for k, v in counts.items()}; not a list of records, not df.to_dict()"
    ),
)
