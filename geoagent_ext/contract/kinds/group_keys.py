"""A JSON object with one key per value of an input's column ("count_per_district"), each value
that group's number of rows when it counts them."""

from ..checker import _contract_input, _contract_short
from ._kind import ColumnParams, RequirementKind
from ._mending import embedded, read_table


class GroupKeysParams(ColumnParams):
    column: str  # the input's column whose values are the keys
    input: str
    counts: bool = False  # each value is its group's number of rows


def _contract_group_keys(name, value, params, sources):
    """A JSON object keyed by every value of the group column (keys compared as text; 3.0 is '3')."""
    column = params["column"]
    if not isinstance(value, dict):
        return False, (
            f"`{name}` = {_contract_short(value, 100)}: a JSON {type(value).__name__}, not an object "
            f"keyed by the values of `{column}`"
        )
    src = _contract_input(params["input"], sources)
    if column not in getattr(src, "columns", []):
        return False, f"`{column}` is not in {params['input']}"
    want = {_contract_group_text(v) for v in src[column].dropna().tolist()}
    have = {str(k) for k in value}
    missing, foreign = sorted(want - have), sorted(have - want)
    if not missing and not foreign and params.get("counts"):  # "count_per_X": each value is its group's size
        sizes = {_contract_group_text(k): int(n) for k, n in src[column].dropna().value_counts().items()}
        wrong = {k: v for k, v in value.items() if sizes.get(str(k)) != v}
        if wrong:
            first = list(wrong)[:4]
            return False, (
                f"`{name}`: {len(wrong)} group(s) whose value is not its number of rows in "
                f"`{params['input']}`, e.g. "
                + ", ".join(f"{k}: {wrong[k]} (counted {sizes.get(str(k))})" for k in first)
            )
        return True, f"`{name}` counts the rows of each of the {len(want)} values of `{column}`"
    if not missing and not foreign:
        return True, f"`{name}` has a key for each of the {len(want)} values of `{column}`"
    said = f"`{name}` keys {sorted(have)[:6]}"
    if missing:
        said += f"; {len(missing)} value(s) of `{column}` missing, e.g. {missing[:4]}"
    if foreign:
        said += f"; {len(foreign)} key(s) that are not values of `{column}`: {foreign[:4]}"
    return False, said


def _contract_group_text(value):
    """A group value as the group-keys check compares it: 3.0 is '3'."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _contract_group_object(value, column, groups, fill=None):
    """A per-group JSON value as {group: value}, reshaped from what pandas writes without changing
    a value (the contract's mend embeds it): a frame's ``to_dict()`` ({column: {i: group}, other:
    {i: value}}) or its records ([{column: group, other: value}]), a one-key wrapper ({other:
    {group: value}}). Groups of ``groups`` it lacks get ``fill`` when one is given (0 for counts: a
    groupby leaves empty groups out). Anything else is returned as it was."""
    want = [_contract_group_text(g) for g in groups]
    if (
        isinstance(value, list)
        and value
        and all(isinstance(r, dict) and len(r) == 2 and r.keys() == value[0].keys() for r in value)
    ):
        value = {k: [r[k] for r in value] for k in value[0]}
    if isinstance(value, dict) and len(value) == 2 and all(isinstance(v, (dict, list)) for v in value.values()):
        cols = {k: list(v.values()) if isinstance(v, dict) else list(v) for k, v in value.items()}
        keyed = [k for k in cols if k == column] or [
            k for k, v in cols.items() if v and {_contract_group_text(x) for x in v} <= set(want)
        ]
        if len({len(v) for v in cols.values()}) == 1 and len(keyed) == 1:
            other = next(k for k in cols if k != keyed[0])
            value = dict(zip(map(_contract_group_text, cols[keyed[0]]), cols[other]))
    if isinstance(value, dict) and len(value) == 1:
        inner = next(iter(value.values()))
        if isinstance(inner, dict) and inner and {_contract_group_text(k) for k in inner} <= set(want):
            value = inner
    if isinstance(value, dict) and fill is not None and {_contract_group_text(k) for k in value} <= set(want):
        have = {_contract_group_text(k): v for k, v in value.items()}
        value = {**have, **{g: fill for g in want if g not in have}}
    return value


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
        *embedded(_contract_group_text, _contract_group_object),
        f"_groups = {read_table(source)}[{column!r}].dropna().tolist()",
        f"_mend[{name!r}] = _contract_group_object(_mend[{name!r}], {column!r}, _groups, "
        f"fill={0 if counts else None!r})",
    ]


GROUP_KEYS = RequirementKind(
    helpers=(
        _contract_group_keys,
        _contract_group_text,
        _contract_group_object,
    ),
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
