"""A column is stored as the type the request names (or every other attribute column is)."""

from ..checker import _contract_over_layers
from ._kind import TABLE_MENDS, Params, RequirementKind
from ._mending import TYPED


class DtypeParams(Params):
    dtype: str  # as the request writes it ("int32", "double", "timestamp[us]"), compared by its canonical name
    name: str | None = None  # the column; without it, every attribute column but ``others``
    others: list[str] = []  # the typed names left out of "every other column"


def _contract_type_name(t):
    """A type as Arrow or OGR/numpy names it, or as a request writes it ("double", "text") ->
    one canonical name, so the two compare."""
    t = str(t).lower().replace(" ", "")
    if t.startswith("datetime64["):  # pyogrio's numpy dtypes
        t = "timestamp[" + t[len("datetime64[") :]
    aliases = {
        "large_string": "string",
        "utf8": "string",
        "object": "string",
        "str": "string",
        "double": "float64",
        "float": "float32",
        "halffloat": "float16",
        "boolean": "bool",
        "date32[day]": "date32",
        "date64[ms]": "date64",
        "text": "string",
        "strings": "string",
    }
    return aliases.get(t, t.replace(",tz=", ", tz="))


def _contract_stored_types(path, fmt):
    """{layer: {column: canonical type}} as the file stores them (geometry columns left out): a
    Parquet schema, not the pandas frame read from it (which turns timestamp[us] into [ns])."""
    if fmt in ("parquet", "geoparquet"):
        import pyarrow.parquet as pq

        schema = pq.read_schema(path)
        skip = set(geoparquet_meta(schema).get("columns", {}))  # noqa: F821 - _15_geocolumns
        return {
            "": {
                f.name: _contract_type_name(f.type)
                for f in schema
                if f.name not in skip and not f.name.startswith("__index_level_")
            }
        }
    import pyogrio

    out = {}
    layers = [row[0] for row in pyogrio.list_layers(path)]
    for layer in layers:
        info = pyogrio.read_info(path, layer=layer)
        out[layer if len(layers) > 1 else ""] = {
            str(n): _contract_type_name(d) for n, d in zip(info["fields"], info["dtypes"])
        }
    return out


def _contract_check_dtype(params, types):
    """(passed, observed) of a stored-type requirement on one layer's {column: type}."""
    want = _contract_type_name(params["dtype"])

    def ok(t):  # "timestamp[us]" also accepts a zone the request did not name
        return t == want or (want.startswith("timestamp[") and "," not in want and t.startswith(want[:-1] + ","))

    if "name" in params:
        name = params["name"]
        if name not in types:
            return False, f"`{name}` is not in the file"
        return ok(types[name]), f"`{name}` is stored as {types[name]}"
    wrong = {n: t for n, t in types.items() if n not in params.get("others", []) and not ok(t)}
    return not wrong, (f"not {want}: {dict(list(wrong.items())[:6])}" if wrong else f"every other column is {want}")


def _kind_dtype(params, path, fmt, layers):
    # The file's stored types (a Parquet schema), not the frame read from it
    return _contract_over_layers(_contract_stored_types(path, fmt), lambda types: _contract_check_dtype(params, types))


def _cast_step(p, site):
    return _cast(p, site.spatial) if site.fmt in TYPED else []


def _cast(p: dict, spatial: bool) -> list[str]:
    """Store a column (or every other attribute column) as the type the request names."""
    dtype = str(p.get("dtype") or "").lower().replace(" ", "")
    if dtype.startswith("timestamp["):
        unit, _, zone = dtype[len("timestamp[") : -1].partition(",tz=")
        # Numbers are epoch times in the unit their size says (1.7e12: milliseconds), not always nanoseconds.
        unit_of = (
            "(None if not pd.api.types.is_numeric_dtype(_mend[c]) else ['s', 'ms', 'us', 'ns']"
            "[min(3, max(0, len(str(int(_mend[c].abs().median()))) - 10) // 3)])"
        )
        converted = f"pd.to_datetime(_mend[c], utc=True, unit={unit_of})" + (
            f".dt.tz_convert({zone!r})" if zone else ".dt.tz_localize(None)"
        )
        cast = f"{converted}.astype('datetime64[{unit}{', ' + zone if zone else ''}]')"
    elif dtype in ("string", "large_string", "utf8", "text", "strings"):  # a code read as float: "10002", not "10002.0"
        cast = (
            "(_mend[c].astype('Int64') if pd.api.types.is_float_dtype(_mend[c]) and (_mend[c].dropna() % 1 == 0).all() "
            "else _mend[c]).astype('string')"
        )
    elif dtype in ("bool", "boolean"):
        cast = "_mend[c].astype(bool)"
    elif dtype.startswith(("int", "uint", "float")) or dtype == "double":
        cast = f"pd.to_numeric(_mend[c]).astype({'float64' if dtype == 'double' else dtype!r})"
    else:
        return []
    if p.get("name"):
        columns = repr([str(p["name"])])
    else:
        skipped = [*map(str, p.get("others") or []), *(["_mend.geometry.name"] if spatial else [])]
        names = ", ".join(repr(n) if n != "_mend.geometry.name" else n for n in skipped)
        columns = f"[c for c in _mend.columns if c not in [{names}]]"
    return [f"for c in {columns}:", f"    _mend[c] = {cast}"]


DTYPE = RequirementKind(
    helpers=(
        _contract_type_name,
        _contract_stored_types,
        _contract_check_dtype,
    ),
    name="dtype",
    params=DtypeParams,
    check=_kind_dtype,
    reads="file",
    mend=_cast_step,
    mend_order=TABLE_MENDS + 2,
    advice=(
        "cast just before writing: df[COLUMN] = df[COLUMN].astype('int32') / 'float64' / 'string' / 'bool'; "
        "a timestamp: pd.to_datetime(df[COLUMN], utc=True).dt.tz_localize(None).astype('datetime64[us]') (the "
        "unit the requirement names; utc=True reads zoned and plain times alike); write GeoParquet with "
        "to_parquet, which keeps these types"
    ),
)
