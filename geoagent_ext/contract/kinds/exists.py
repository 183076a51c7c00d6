"""The file exists and opens as its format."""

from ._kind import Params, RequirementKind


def _kind_exists(params, path, fmt, layers):
    first = next(iter(layers.values()))
    if isinstance(first, dict):
        shape = f"keys {sorted(map(str, first))[:12]}"
    elif hasattr(first, "columns"):
        shape = f"{len(first)} rows, columns {list(map(str, first.columns))[:12]}"
    else:
        shape = f"a JSON {type(first).__name__}"
    return True, f"opens; {len(layers)} layer(s); {shape}"


EXISTS = RequirementKind(
    name="exists",
    params=Params,
    check=_kind_exists,
    reads="file",
    advice="write the file with the right writer for its format (to_file / to_csv / to_parquet / json.dump)",
)
