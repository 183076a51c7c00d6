"""Each row's rate is its own count / measure * factor ("stations_per_10km2")."""

from ..checker import _contract_density
from ._kind import VALUE_MENDS, Params, RequirementKind


class DensityParams(Params):
    name: str
    count: str  # the column counted
    measure: str  # the column it is taken over
    factor: float  # the multiple of the unit ("per 10 km²": 10 in the measure's unit, as metres' worth)


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
    name="density",
    params=DensityParams,
    check=_kind_density,
    mend=_rate,
    mend_order=VALUE_MENDS + 4,
    computed_by_mend=True,
    advice="compute it from its own row's columns just before writing: df[COLUMN] = df[NUM] / df[DEN] * FACTOR",
)
