"""Plan steps the data already refutes, found before any code runs.

A small planner often relates two layers by ``merge ... on `key``` although only one of them
has that column (points and the polygons they fall in share no key: they are related by
location). Every attempt then fails with another ``KeyError`` and the step is skipped, leaving
the later steps without their input. The input files' columns say so up front, so the step is
reworded (``Planner.rewrite``) before it runs. Likewise a step that names a raster library
(rasterio, xarray) when no data file is a raster loses that phrase: the coder follows the
step's words and opens vector files with rasterio on every attempt.
"""

from __future__ import annotations

import re

_JOIN_ON = re.compile(r"\b(?:merg\w*|join\w*)\b[^.;]*?\bon\s+(?:the\s+)?(?:common\s+|shared\s+)?"
                      r"(?:column\s+|key\s+|field\s+)?`?(?P<key>[A-Za-z_]\w*)`?", re.IGNORECASE)
# A step that relates layers by location (this one or an earlier one): keys may come from it.
_BY_LOCATION = re.compile(r"\b(sjoin\w*|spatial(?:ly)?|within|contain\w*|intersect\w*|nearest|overlay|"
                          r"clip\w*|location|falls?\s+in)\b", re.IGNORECASE)
_NOT_A_KEY = {"geometry", "the", "a", "an", "index", "it", "them", "each", "both", "their", "its", "this", "that"}


def _stem_words(path: str) -> set[str]:
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
    return {stem} | {w for w in re.split(r"[_\-\s]+", stem) if len(w) >= 4}


def _named(text: str, inputs: list[str]) -> list[str]:
    """The inputs a step speaks of (by file name, stem or a word of the stem)."""
    words = set(re.findall(r"[a-z0-9_]+", text.lower()))
    return [p for p in inputs if _stem_words(p) & words or p.lower() in text.lower()]


def join_steps(descriptions: list[str]) -> list[tuple[int, str]]:
    """(step index, key) of the steps that merge or join on a named column, before any step that
    relates layers by location (from there on a key may come from the spatial join)."""
    found: list[tuple[int, str]] = []
    for i, text in enumerate(descriptions):
        if _BY_LOCATION.search(text):
            break
        m = _JOIN_ON.search(text)
        if m and m.group("key").lower() not in _NOT_A_KEY:
            found.append((i, m.group("key")))
    return found


def unshared_join_keys(descriptions: list[str], columns_by_input: dict[str, list[str]]) -> list[tuple[int, str]]:
    """(step index, why) for each of the ``join_steps`` whose key one of the layers it names has
    and another lacks."""
    layers = {path: set(columns) for path, columns in columns_by_input.items() if columns}
    found: list[tuple[int, str]] = []
    for i, key in join_steps(descriptions):
        named = _named(descriptions[i], list(layers))
        involved = named if len(named) >= 2 else (list(layers) if len(layers) == 2 else [])
        having = [p for p in involved if key in layers[p]]
        lacking = [p for p in involved if key not in layers[p]]
        if having and lacking:
            found.append((i, f"`{lacking[0]}` has no column `{key}` (only `{having[0]}` has it): layers that share "
                             "no column are related by location, with a spatial join (geopandas.sjoin, predicate "
                             "'within' or 'intersects'; sjoin_nearest for the nearest feature), not a merge"))
    return found


# Files a raster library reads; with none of them among the data, a step "using rasterio" is the
# planner reaching for the wrong library (seen: "Compute the length of each line using rasterio").
RASTER_FILES = re.compile(r"\.(tiff?|vrt|img|jp2|asc|nc|zarr|grib2?|hdf5?|h5)$", re.IGNORECASE)
_RASTER_TOOL = re.compile(r",?\s*\b(?:using|with|via|through)\s+(?:the\s+)?(?:`?(?:rasterio|rioxarray|xarray)`?)"
                          r"(?:\s+(?:library|package|module))?", re.IGNORECASE)


def raster_tools_without_rasters(descriptions: list[str], data_files: list[str], request: str) -> list[tuple[int, str]]:
    """(step index, the step without its "using rasterio") when no data file is a raster and the
    request names no raster library: the step is done with the vector tools the data needs."""
    if any(RASTER_FILES.search(path) for path in data_files) or re.search(r"rasterio|xarray|raster", request, re.I):
        return []
    found = []
    for i, text in enumerate(descriptions):
        stripped = _RASTER_TOOL.sub("", text).strip()
        if stripped != text and stripped:
            found.append((i, stripped))
    return found
