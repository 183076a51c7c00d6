"""Each row's rate is its own count / measure * factor ("stations_per_10km2")."""

from ..checker import _contract_rounding_step, _contract_short
from ._kind import VALUE_MENDS, Params, RequirementKind


class DensityParams(Params):
    name: str
    count: str  # the column counted
    measure: str  # the column it is taken over
    factor: float  # the multiple of the unit ("per 10 km²": 10 in the measure's unit, as metres' worth)


def _contract_density(params, data):
    """(passed, observed) of a rate against count / measure * factor of its own row, within 1 % or
    half the rounding the values show; rows without a positive measure are left out."""
    import pandas as pd

    name, count, measure, factor = params["name"], params["count"], params["measure"], float(params["factor"])
    absent = [c for c in (name, count, measure) if c not in data.columns]
    if absent:
        return False, f"{absent} not in the file"
    values, counts, measures = (pd.to_numeric(data[c], errors="coerce").tolist() for c in (name, count, measure))
    rows = [(v, c / m * factor) for v, c, m in zip(values, counts, measures) if m == m and m > 0 and c == c]
    if not rows:
        return False, f"no row has a number in `{count}` and a positive `{measure}`"
    slack = _contract_rounding_step([v for v, _ in rows if v == v]) / 2
    wrong = [(v, e) for v, e in rows if not (v == v and abs(v - e) <= 0.01 * abs(e) + slack)]
    if not wrong:
        return True, f"`{name}` = `{count}` / `{measure}` × {factor:g} on all {len(rows)} rows"
    v, e = wrong[0]
    ratio = sorted(v / e for v, e in rows if e and v == v)
    seen = f"; as if × {factor * ratio[len(ratio) // 2]:.4g}" if ratio else ""
    return False, (
        f"`{name}` differs from `{count}` / `{measure}` × {factor:g} on {len(wrong)} of {len(rows)} rows "
        f"(e.g. {_contract_short(v, 20)}, expected {e:.4g}){seen}"
    )


def _kind_density(params, data, sources):
    return _contract_density(params, data)


def _rate(p, site):
    if not all(p.get(k) for k in ("name", "count", "measure", "factor")):
        return []
    return [
        f"_mend[{str(p['name'])!r}] = pd.to_numeric(_mend[{str(p['count'])!r}]) / "
        f"pd.to_numeric(_mend[{str(p['measure'])!r}]) * {float(p['factor'])!r}"
    ]


DENSITY = RequirementKind(
    helpers=(_contract_density,),
    name="density",
    params=DensityParams,
    check=_kind_density,
    mend=_rate,
    mend_order=VALUE_MENDS + 4,
    computed_by_mend=True,
    advice="compute it from its own row's columns just before writing: df[COLUMN] = df[NUM] / df[DEN] * FACTOR",
)
