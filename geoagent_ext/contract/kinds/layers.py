"""A GeoPackage has the layers the request names, and no feature in more than one of them. Its mend
(a GeoPackage of layers named for geometry kinds rewritten one kind per layer) reads and writes
the whole file, so ``contract/mend.py`` builds it around the other mends."""

from ..checker import _contract_has_geometry
from ._kind import Params, RequirementKind
from ._mending import function_source


class LayersParams(Params):
    names: list[str]  # the layers' names


def _contract_feature_keys(data):
    """Each feature as one text, its attributes and its geometry alike (the layer-split mend keeps
    each once by the same key: it embeds this function); a missing value is written as text too (pandas'
    `astype(str)` keeps it a float). Built column by column: a row-wise join is slow on large layers."""
    keys = data.geometry.to_wkb(hex=True).astype(object)
    attributes = [c for c in data.columns if c != data.geometry.name]
    if attributes and len(data):
        joined = data[attributes[0]].map(str)
        for column in attributes[1:]:
            joined = joined + "|" + data[column].map(str)
        keys = joined + keys
    return keys


def _contract_shared_features(layers):
    """How many features (geometry and attributes alike) of a layered file are in more than one layer."""
    seen, shared = {}, set()
    for name, data in layers.items():
        if not _contract_has_geometry(data):
            continue
        for key in set(_contract_feature_keys(data).tolist()):
            if seen.setdefault(key, name) != name:
                shared.add(key)
    return len(shared)


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


_KIND_WORDS = {
    "point": ["Point", "MultiPoint"],
    "line": ["LineString", "MultiLineString"],
    "polygon": ["Polygon", "MultiPolygon"],
}


def layers_by_kind(names: list[str]) -> dict[str, list[str]] | None:
    """{layer: the geometry types it holds} when every layer is named for one geometry kind
    ("points", "lines", "polygons"), else None: any other split is the model's to decide."""
    found = {}
    for name in names:
        kinds = [k for word, k in _KIND_WORDS.items() if word in name.lower()]
        if len(kinds) != 1:
            return None
        found[name] = kinds[0]
    return found or None


def split_by_kind(path: str, by_kind: dict[str, list[str]]) -> tuple[str, str]:
    """(read, write) of a GeoPackage mended as one frame: every layer read into it (a feature written
    to several layers kept from the first, as the check tells them apart), written back one geometry
    kind per layer."""
    feature_keys = function_source(_contract_feature_keys).replace(
        "def _contract_feature_keys(", "def _feature_keys(", 1
    )
    read = (
        f"pd.concat([gpd.read_file({path!r}, layer=n).assign(_layer=i) for i, n in "
        f"enumerate(gpd.list_layers({path!r})['name'])], ignore_index=True)\n{feature_keys}\n"
        "_seen = _feature_keys(_mend.drop(columns='_layer'))\n"
        "_mend = _mend[_mend['_layer'] == _mend.groupby(_seen)['_layer'].transform('min')].drop(columns='_layer')"
    )
    write = "\n".join(
        [
            "import os",
            f"os.remove({path!r})",
            f"for _layer, _kinds in {by_kind!r}.items():",
            f"    _mend[_mend.geom_type.isin(_kinds)].to_file({path!r}, layer=_layer, driver='GPKG')",
        ]
    )
    return read, write


LAYERS = RequirementKind(
    helpers=(
        _contract_feature_keys,
        _contract_shared_features,
    ),
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
