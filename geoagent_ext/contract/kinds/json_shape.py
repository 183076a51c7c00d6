"""The JSON document's top level is the shape asked for: a list (an array) or an object."""

from typing import Literal

from ._kind import Params, RequirementKind


class JsonShapeParams(Params):
    shape: Literal["list", "object"]


def _contract_json_shape(path, shape):
    """(passed, observed): the JSON document's top level is a list (an array) or an object, as asked."""
    import json as _j

    with open(path, encoding="utf-8") as fh:
        document = _j.load(fh)
    kind = "list" if isinstance(document, list) else "object" if isinstance(document, dict) else type(document).__name__
    if isinstance(document, dict) and document.get("type") == "FeatureCollection":
        kind = "object (a GeoJSON FeatureCollection)"
    return kind == shape, f"the top level is a JSON {kind}" + ("" if kind == shape else f", not a {shape}")


def _kind_json_shape(params, path, fmt, layers):
    return _contract_json_shape(path, params["shape"])


JSON_SHAPE = RequirementKind(
    helpers=(_contract_json_shape,),
    name="json_shape",
    params=JsonShapeParams,
    check=_kind_json_shape,
    reads="file",
    advice=(
        "write the shape asked for: json.dump(df.to_dict(orient='records'), f) for a list of records, "
        "json.dump([...], f) for a list of values, json.dump({...}, f) for one object; not gdf.to_json() "
        "(a GeoJSON FeatureCollection) or df.to_json() (columns of values)"
    ),
)
