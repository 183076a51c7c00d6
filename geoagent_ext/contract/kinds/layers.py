"""A GeoPackage has the layers the request names, and no feature in more than one of them. Its mend
(a GeoPackage of layers named for geometry kinds rewritten one kind per layer) reads and writes
the whole file, so ``contract/mend.py`` builds it around the other mends."""

from ..checker import _contract_shared_features
from ._kind import Params, RequirementKind


class LayersParams(Params):
    names: list[str]  # the layers' names


def _kind_layers(params, path, fmt, layers):
    import pyogrio

    named = [row[0] for row in pyogrio.list_layers(path)]  # a file of one layer is read as ""
    missing = [n for n in params.get("names", []) if n not in named]
    shared = _contract_shared_features(layers)
    observed = (
        f"layers {sorted(named)}"
        + (f"; missing {missing}" if missing else "")
        + (f"; {shared} feature(s) are in more than one layer" if shared else "")
    )
    return not missing and not shared, observed


LAYERS = RequirementKind(
    name="layers",
    params=LayersParams,
    check=_kind_layers,
    reads="file",
    advice=(
        "write each layer from the rows it holds with gdf.to_file(path, layer=NAME, driver='GPKG'), e.g. "
        "one geometry kind per layer: gdf[gdf.geom_type.isin(['Point', 'MultiPoint'])].to_file(path, "
        "layer='points', driver='GPKG') (a GeoDataFrame's rows, not a unary_union)"
    ),
)
