"""A column is stored as the type the request names (or every other attribute column is)."""

from ..checker import _contract_check_dtype, _contract_over_layers, _contract_stored_types
from ._kind import TABLE_MENDS, Params, RequirementKind
from ._mending import TYPED


class DtypeParams(Params):
    dtype: str  # as the request writes it ("int32", "double", "timestamp[us]"), compared by its canonical name
    name: str | None = None  # the column; without it, every attribute column but ``others``
    others: list[str] = []  # the typed names left out of "every other column"


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
