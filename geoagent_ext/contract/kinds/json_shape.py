"""The JSON document's top level is the shape asked for: a list (an array) or an object."""

from typing import Literal

from ..checker import _contract_json_shape
from ._kind import Params, RequirementKind


class JsonShapeParams(Params):
    shape: Literal["list", "object"]


def _kind_json_shape(params, path, fmt, layers):
    return _contract_json_shape(path, params["shape"])


JSON_SHAPE = RequirementKind(
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
