"""Every feature has one of the OGC geometry types the request allows."""

from ._kind import GEOMETRY_MENDS, Params, RequirementKind
from ._mending import promoted


class GeometryTypesParams(Params):
    allowed: list[str]  # OGC type names ("MultiPolygon")


def _kind_geometry_types(params, data, sources):
    kinds = sorted(set(data.geometry.geom_type.dropna()))
    wrong = [k for k in kinds if k not in params.get("allowed", [])]
    return not wrong, f"geometry types {kinds}"


def _converted(p, site):
    """Single parts wrapped into the multi-part type asked for, or multi-parts split; first the
    geometry taken from another geometry column holding the kinds asked for."""
    allowed = [str(t) for t in p.get("allowed") or []]
    if allowed and all(t.startswith("Multi") for t in allowed):
        return [
            *promoted(allowed),
            f"_mend = _mend.set_geometry(_mend.geometry.apply(lambda g: getattr(shapely.geometry, "
            f"'Multi' + g.geom_type)([g]) if g is not None and 'Multi' + g.geom_type in {allowed!r} else g))",
        ]
    if allowed and not any(t.startswith("Multi") for t in allowed):
        return [*promoted(allowed), "_mend = _mend.explode(index_parts=False).reset_index(drop=True)"]
    return promoted(allowed)


GEOMETRY_TYPES = RequirementKind(
    name="geometry_types",
    params=GeometryTypesParams,
    check=_kind_geometry_types,
    geometry=True,
    mend=_converted,
    mend_order=GEOMETRY_MENDS + 8,
    advice=(
        "convert the geometries: shapely.geometry.MultiPolygon([p]) / MultiLineString([l]) "
        "wraps single parts; gdf.explode(index_parts=False) splits multi-parts"
    ),
)
