"""Plan steps the data already refutes, found before any code runs.

A small planner often relates two layers by ``merge ... on `key``` although only one of them
has that column (points and the polygons they fall in share no key: they are related by
location). Every attempt then fails with another ``KeyError`` and the step is skipped, leaving
the later steps without their input. The input files' columns say so up front, so the step is
reworded (``Planner.rewrite``) before it runs. Likewise a step that names a raster library
(rasterio, xarray) when no data file is a raster loses that phrase: the coder follows the
step's words and opens vector files with rasterio on every attempt. And a step the deliverable
contract forbids (``contract_conflicts``) — reprojecting a layer whose geometry must stay as it is,
filtering rows out of a file that must keep every row — is dropped or told the limit: the small
planner adds such steps from habit or from an example in the request, and the run then spends its
repairs undoing them. Steps with nothing to do (``idle_steps``) go too: "Verify that the output file
meets the requirements" when the contract checks the real files after every step anyway, "Close
the GeoDataFrame" when nothing in pandas or geopandas is open, a second "Read `x.geojson`" that
would throw away what the steps between did to it. A loop spread over steps ("Iterate over each
layer." then "For each layer, ...") becomes one step (``loop_bodies``): each step runs once. A
rename the wrong way round ("rename `district_name` to `name`" when the requested `district_name` is
the joined `name`) is turned (``reversed_renames``): it would fail on every attempt. A
reworded join loses its key (``without_join_key``): the planner's new wording tends to keep "on
the `key` column".
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from ..contract.advice import MENDED_VALUES, mended_values
from ..contract.mend import mend_code
from ..contract.model import Contract
from ..contract.provenance import carried_from
from ..contract.rules import SPATIAL, file_format

# Any character of one sentence but its end, for the patterns below: a dot inside a word is a file name's,
# not the sentence's end ("convert `hex_id` in `grid.geojson` to numbers", "merge `a.geojson` on ...").
_IN_SENTENCE = r"(?:[^.;]|\.(?=\w))"
_JOIN_ON = re.compile(
    rf"\b(?:merg\w*|join\w*)\b{_IN_SENTENCE}*?\bon\s+(?:the\s+)?(?:common\s+|shared\s+)?"
    r"(?:column\s+|key\s+|field\s+)?`?(?P<key>[A-Za-z_]\w*)`?",
    re.IGNORECASE,
)
# A step that relates layers by location (this one or an earlier one): keys may come from it.
_BY_LOCATION = re.compile(
    r"\b(sjoin\w*|spatial(?:ly)?|within|contain\w*|intersect\w*|nearest|overlay|"
    r"clip\w*|location|falls?\s+in)\b",
    re.IGNORECASE,
)
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
    relates layers by location (from there on a key may come from the spatial join). A step that
    merges on a key first and names a location word after it ("merge … on `id` to get the nearest
    hospital") is still a merge on that key: the word says what the merge is for."""
    found: list[tuple[int, str]] = []
    for i, text in enumerate(descriptions):
        m = _JOIN_ON.search(text)
        located = _BY_LOCATION.search(text)
        if located and (m is None or located.start() < m.start()):
            break
        if m and m.group("key").lower() not in _NOT_A_KEY:
            found.append((i, m.group("key")))
        if located:
            break
    return found


def unshared_join_keys(descriptions: list[str], columns_by_input: dict[str, list[str]]) -> list[tuple[int, str, str]]:
    """(step index, key, why) for each of the ``join_steps`` whose key one of the layers it names has
    and another lacks."""
    layers = {path: set(columns) for path, columns in columns_by_input.items() if columns}
    found: list[tuple[int, str, str]] = []
    for i, key in join_steps(descriptions):
        named = _named(descriptions[i], list(layers))
        involved = named if len(named) >= 2 else (list(layers) if len(layers) == 2 else [])
        having = [p for p in involved if key in layers[p]]
        lacking = [p for p in involved if key not in layers[p]]
        if having and lacking:
            found.append(
                (
                    i,
                    key,
                    f"`{lacking[0]}` has no column `{key}` (only `{having[0]}` has it): layers that share "
                    "no column are related by location, with a spatial join (geopandas.sjoin, predicate "
                    "'within' or 'intersects'; sjoin_nearest for the nearest feature), not a merge",
                )
            )
    return found


def without_join_key(text: str, key: str) -> str:
    """``text`` without its "on the `key` column": a spatial join has no key, and a reworded step
    that keeps one is coded as ``sjoin(..., on=key)`` (seen: five TypeErrors in a row)."""
    return re.sub(
        rf"\s+on\s+(?:the\s+)?(?:common\s+|shared\s+)?(?:(?:column|key|field)\s+)?`?{re.escape(key)}`?"
        rf"(?:\s+(?:column|key|field)s?)?",
        "",
        text,
        flags=re.IGNORECASE,
    )


def reworded_join(text: str, key: str, columns_by_input: dict[str, list[str]]) -> str:
    """A new wording ``text`` of a step that merged on ``key``, one layer lacking it: ``text`` without
    that key, or "" when it merges on another key a layer it names lacks (the model's new wording
    trades one missing key for another; such a step fails every attempt as the first one would)."""
    text = without_join_key(text, key)
    return "" if unshared_join_keys([text], columns_by_input) else text


# Files a raster library reads; with none of them among the data, a step "using rasterio" is the
# planner reaching for the wrong library (seen: "Compute the length of each line using rasterio").
RASTER_FILES = re.compile(r"\.(tiff?|vrt|img|jp2|asc|nc|zarr|grib2?|hdf5?|h5)$", re.IGNORECASE)
_RASTER_TOOL = re.compile(
    r",?\s*\b(?:using|with|via|through)\s+(?:the\s+)?(?:`?(?:rasterio|rioxarray|xarray)`?)"
    r"(?:\s+(?:library|package|module))?",
    re.IGNORECASE,
)


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


# A step that changes the CRS of a layer ("set the CRS" declares one and is not a reprojection).
# "Ensure the CRS of the layer is in a projected (metric) CRS" asks for one too.
# (Converting "the geometry column" too: "Convert the geometry column to a numeric type" can be written
# as `to_crs(...)`, and the file loses its input's CRS.)
_REPROJECTS = re.compile(
    r"\b(?:re-?project\w*|to_crs|(?:convert\w*|transform\w*|change\w*)\s+(?:the\s+)?"
    r"(?:crs|coordinate reference system|projection|coordinates|geometr(?:y|ies)(?:\s+column)?)\b|"
    rf"(?:ensure|make\s+sure)\b{_IN_SENTENCE}*?\b(?:crs|projection)\b{_IN_SENTENCE}*?"
    r"\b(?:projected|metric|utm|epsg)\b)",
    re.IGNORECASE,
)
# A step that measures: it may reproject a copy to measure in metres.
_MEASURES = re.compile(
    r"\b(?:area\w*|length\w*|distance\w*|buffer\w*|nearest|perimeter\w*|km|metres?|meters?|"
    r"hectares?)\b|km²|m²",
    re.IGNORECASE,
)
# A step that leaves rows out.
_FILTERS = re.compile(
    r"\b(?:filter\w*|subset\w*|(?:select\w*|keep\w*|retain\w*)\s+only|only\s+(?:the\s+)?rows|"
    r"(?:drop\w*|remove\w*|exclud\w*|discard\w*)\s+(?:the\s+|any\s+|all\s+)?rows)\b",
    re.IGNORECASE,
)
# A step that sums or averages over rows ("Compute the sum of `unit_count` for each feature", read
# from a request that says what the user will query later).
_AGGREGATES = re.compile(
    r"\b(?:sum|total|mean|average|median)\s+(?:of|over)\b|\b(?:aggregat\w*|group\w*\s+by)\b", re.IGNORECASE
)
# A step that also writes a file: it cannot be dropped, only told the limit ("written" is a state, not an act).
_WRITES = re.compile(r"\b(?:writes?|writing|sav(?:e|es|ing)|export\w*|to_file|to_parquet|to_csv)\b", re.IGNORECASE)


def _retypes(column: str) -> re.Pattern:
    """A step that converts ``column`` to numbers or dates ("Convert the `address_id` column to a numeric
    type"), which loses ids like 'A0001' or '007'; to text is left alone (it keeps what it reads)."""
    return re.compile(
        rf"\b(?:convert\w*|cast\w*|chang\w*|coerc\w*)\b{_IN_SENTENCE}*?`?\b{re.escape(column)}\b`?{_IN_SENTENCE}*?"
        rf"\b(?:to|as|into)\b{_IN_SENTENCE}*?\b(?:numeric|numbers?|int\w*|float\w*|date\w*|timestamp\w*)\b",
        re.IGNORECASE,
    )


# "Check for invalid geometries and remove them": the features are gone where they were to be repaired
_DROPS_INVALID = re.compile(
    rf"\b(?:remov|drop|filter|discard|delet|exclud)\w*\b{_IN_SENTENCE}*\binvalid\b|"
    rf"\binvalid\b{_IN_SENTENCE}*\b(?:remov|drop|filter|discard|delet|exclud)\w*",
    re.IGNORECASE,
)
_REPAIRS = re.compile(r"\b(?:repair|fix|make_valid|mak\w*\s+(?:them\s+|it\s+)?valid)", re.IGNORECASE)


def contract_conflicts(descriptions: list[str], contract: Contract | None) -> list[tuple[int, str | None, str]]:
    """(step index, the step's new wording or None to drop it, why) for the steps the contract
    forbids: a reprojection when an output must keep an input's geometry in its CRS
    (``geometry_unchanged``), a row filter or a sum over rows when an output must have one row per
    input feature (``rows_as_input``), dropping the invalid features an output keeps repaired
    (``geometries_valid`` with a key: the mend repairs them on the written file), a type conversion
    of a column that keeps the input's values as they are (``values_from_input`` without ``as_type``:
    with it, the conversion is asked for). A step that also measures or
    writes keeps its work, with the limit added. A step writing files named after the layers an
    output must have (``layers``: "save the layers as `points.gpkg`, `lines.gpkg`") is told they are
    layers of that output (it is never dropped: an input may have such a name)."""
    if contract is None:
        return []
    limits: list[tuple[re.Pattern, str, re.Pattern | None]] = []
    layer_files: list[tuple[re.Pattern, str]] = []
    for req in contract.requirements:
        if req.kind == "geometry_unchanged":
            limits.append(
                (
                    _REPROJECTS,
                    f"`{req.output}` keeps the geometries of `{req.params.get('input')}` in its "
                    "CRS: reproject only a copy to measure on, never the layer written",
                    _MEASURES,
                )
            )
        elif req.kind == "rows_as_input":
            limits.append(
                (
                    _FILTERS,
                    f"`{req.output}` keeps every row of `{req.params.get('input')}` "
                    f"({req.params.get('rows')}): no row is left out",
                    None,
                )
            )
            limits.append(
                (
                    _AGGREGATES,
                    f"`{req.output}` has one row per feature of `{req.params.get('input')}`: "
                    "nothing is summed, averaged or grouped over rows",
                    None,
                )
            )
        elif req.kind == "geometries_valid" and req.params.get("key"):
            limits.append(
                (
                    _DROPS_INVALID,
                    f"`{req.output}` keeps the features of `{req.params.get('input')}` whose "
                    "geometries are invalid, repaired with make_valid(), never dropped",
                    _REPAIRS,
                )
            )
        elif req.kind == "values_from_input" and req.params.get("name") and not req.params.get("as_type"):
            limits.append(
                (
                    _retypes(str(req.params["name"])),
                    f"`{req.params['name']}` keeps the original values of `{req.params.get('input')}`",
                    None,
                )
            )
        elif req.kind == "layers" and req.params.get("names"):
            names = [str(n) for n in req.params["names"]]
            layer_files.append(
                (
                    re.compile(
                        rf"\b(?:{'|'.join(map(re.escape, names))})\.(?:gpkg|geojson|shp|fgb|"
                        r"parquet|geoparquet)\b",
                        re.IGNORECASE,
                    ),
                    f"{', '.join(names)} are layers of `{req.output}`, not files: write each with "
                    f"gdf.to_file('{req.output}', layer=name)",
                )
            )
    found: list[tuple[int, str | None, str]] = []
    for i, text in enumerate(descriptions):
        hits = [(why, keeps) for pattern, why, keeps in limits if pattern.search(text)]
        if _WRITES.search(text):
            hits += [(why, None) for pattern, why in layer_files if pattern.search(text)]
        if not hits:
            continue
        why = "; ".join(w for w, _ in hits)
        if _WRITES.search(text) or any(keeps is not None and keeps.search(text) for _, keeps in hits):
            found.append((i, f"{text.rstrip()} ({why}.)", why))
        else:
            found.append((i, None, why))
    return found


_RENAMES = re.compile(r"\brenam\w*\b[^`]*`([^`]+)`[^`]*?\bto\b[^`]*`([^`]+)`", re.IGNORECASE)


def reversed_renames(descriptions: list[str], contract: Contract | None) -> list[tuple[int, str, str]]:
    """(step index, the step with the names swapped, why) for each "rename `new` to `old`" step whose
    direction the contract's provenance refutes: a requested column that no input has and that comes
    from a joined layer's column of another name (``district_name`` from the ``name`` of the
    districts) is made by renaming that column to it, never the reverse, which fails
    on every attempt because the requested name does not exist yet."""
    if contract is None:
        return []
    carried: dict[str, str] = {}
    for req in contract.requirements:
        for name, source in (req.params.get("provenance") or {}).items() if req.kind == "columns" else ():
            joined = carried_from(str(name), str(source))
            if joined is not None and joined[1] != name:
                carried[str(name)] = joined[1]
    found: list[tuple[int, str, str]] = []
    for i, text in enumerate(descriptions):
        rename = _RENAMES.search(text)
        if rename is None or carried.get(rename.group(1)) != rename.group(2):
            continue
        new, old = rename.group(1), rename.group(2)
        turned = text[: rename.start(1)] + old + text[rename.end(1) : rename.start(2)] + new + text[rename.end(2) :]
        found.append((i, turned, f"`{new}` is made by renaming the joined column `{old}` to it, not the reverse"))
    return found


# Requirements on one column's values that some step has to act on (keeping values needs no step).
_ACTED_ON = frozenset(
    {
        "integer",
        "numeric",
        "dtype",
        "non_negative",
        "measure_units",
        "group_keys",
        "non_empty",
        "unique",
        "sorted",
        "lonlat",
        "bbox",
        "values_in",
        "pattern",
    }
)
MAX_APPENDED = 4


def _writing_step(output: str, writers: list[int], texts: dict[int, str]) -> int | None:
    """The step that writes ``output``: the first writer that names it, else the last writer."""
    base = output.rsplit("/", 1)[-1].lower()
    return next((i for i in writers if base in texts[i].lower()), writers[-1] if writers else None)


def uncovered_requirements(descriptions: list[str | None], contract: Contract | None) -> list[tuple[int, str, str]]:
    """(step index, its new wording, why) for the step that writes an output, told the requirements
    on that output's columns (or layers) no step of the plan names: the planner reads the contract but a small
    model plans for some of its columns only (a requirement on a column no step converts then
    fails on every write). The
    writing step is the first that writes and names the output, else the last that writes; a plan
    that writes nothing gets the closing steps' requirements instead. ``None``: a dropped step."""
    if contract is None:
        return []
    texts = {i: t for i, t in enumerate(descriptions) if t}
    writers = [i for i, t in texts.items() if _WRITES.search(t)]
    told: dict[int, list[str]] = {}
    for req in contract.requirements:
        names = (
            [str(n) for n in req.params.get("names") or []]
            if req.kind == "layers"
            else [str(req.params.get("name") or "")]
        )
        if (
            (req.kind not in _ACTED_ON and req.kind != "layers")
            or not all(names)
            or not names
            or (req.kind == "dtype" and req.params.get("others"))
        ):
            continue
        if all(
            any(re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", t, re.IGNORECASE) for t in texts.values())
            for name in names
        ):
            continue
        index = _writing_step(req.output, writers, texts)
        said = f"where `{names[0]}` is kept, {req.text}" if req.params.get("if_present") else req.text
        said = f"`{req.output}` {said}" if req.kind == "layers" else said
        said = f"in `{req.output}`, {said}" if len(contract.outputs) > 1 else said
        if index is not None and said not in told.get(index, []):
            told.setdefault(index, []).append(said)
    computed = mended_values(contract)
    for req in contract.requirements:
        name = str(req.params.get("name") or "")
        if req.kind != "point_counts" or name not in computed:
            continue
        if any(re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", t, re.IGNORECASE) for t in texts.values()):
            continue
        index = _writing_step(req.output, writers, texts)
        if index is not None:  # first: what the step writes comes before how its columns look
            told.setdefault(index, []).insert(
                0,
                f"`{name}` is computed on the written file by its definition, so write one row per feature "
                f"of `{req.params['polygons']}` with the other columns",
            )
    return [
        (
            i,
            f"{texts[i].rstrip()} (Before writing, also: {'; '.join(said[:MAX_APPENDED])}.)",
            f"{len(said)} column or layer requirement(s) of the contract no step names",
        )
        for i, said in sorted(told.items())
    ]


# "Iterate over each layer in the dataset." then "For each layer, read ...", "Count the features":
# each step runs once, in its own cell, so a loop split over steps never loops (the coder of the
# opener writes an empty loop, the next ones work on whatever name the loop left behind).
_OPENS_LOOP = re.compile(r"^\s*(?:iterate|loop)\s+(?:over|through)\b", re.IGNORECASE)
_ENDS_LOOP = re.compile(r"^\s*(?:after|once|when|combine\w*|concat\w*|sort\w*|repeat\w*)\b", re.IGNORECASE)


def loop_bodies(descriptions: list[str]) -> list[tuple[int, str, list[int]]]:
    """(opener's index, the loop as one step, indexes of the steps folded into it) for each step
    that opens a loop: its body is the steps after it up to the one that writes or leaves the loop
    ("Sort the results", "After the loop ..."), and the one step collects a record per item."""
    found = []
    i = 0
    while i < len(descriptions):
        if not _OPENS_LOOP.match(descriptions[i]):
            i += 1
            continue
        body = []
        j = i + 1
        while j < len(descriptions) and not _WRITES.search(descriptions[j]) and not _ENDS_LOOP.match(descriptions[j]):
            body.append(j)
            j += 1
        if body:
            parts = [descriptions[i].rstrip(" .")] + [descriptions[k].strip().rstrip(" .") for k in body]
            text = (
                f"In one loop: {parts[0]}; inside it, for each item: "
                + "; ".join(p[:1].lower() + p[1:] for p in parts[1:])
                + ". Collect one record (a dict) per item in a list for the next step"
            )
            found.append((i, text, body))
        i = j
    return found


_LOADS = re.compile(r"\s*(?:load|read|open)\b", re.IGNORECASE)
# The words of a step that only loads files (anything else in it is work: "and reproject it").
_LOAD_WORDS = {
    "load",
    "loads",
    "read",
    "reads",
    "open",
    "the",
    "a",
    "an",
    "and",
    "both",
    "file",
    "files",
    "data",
    "dataset",
    "datasets",
    "into",
    "in",
    "as",
    "to",
    "using",
    "with",
    "from",
    "it",
    "them",
    "its",
    "their",
    "geopandas",
    "gpd",
    "pandas",
    "pd",
    "read_file",
    "read_parquet",
    "read_csv",
    "geodataframe",
    "geodataframes",
    "dataframe",
    "dataframes",
    "frame",
    "frames",
    "variable",
    "variables",
    "layer",
    "layers",
    "geojson",
    "geopackage",
    "gpkg",
    "csv",
    "parquet",
    "geoparquet",
    "shapefile",
    "again",
}
# "Load the necessary libraries", "Import geopandas and pandas": each step imports what it uses, and
# such a step only invites a long answer (a small model may write a thousand tokens of one import line).
_IMPORT_WORDS = {
    "import",
    "imports",
    "load",
    "the",
    "all",
    "necessary",
    "required",
    "needed",
    "relevant",
    "python",
    "geospatial",
    "libraries",
    "library",
    "modules",
    "module",
    "packages",
    "package",
    "and",
    "such",
    "as",
    "like",
    "including",
    "e.g",
    "for",
    "this",
    "task",
    "analysis",
    "geopandas",
    "gpd",
    "pandas",
    "pd",
    "numpy",
    "np",
    "shapely",
    "pyproj",
    "matplotlib",
    "rasterio",
    "scipy",
    "os",
    "json",
    "pyarrow",
    "pyogrio",
    "fiona",
}
# "Verify the output", "Open the GeoParquet file to verify that it meets the requirements": the contract
# checks the file; a step that reads it back can only fail on the reading, with the file written.
_VERIFIES = re.compile(
    r"^\s*(?:verify|double-check|confirm|validate)\b|"
    rf"^\s*(?:open|read|load|re-?open|re-?read|reload)\b{_IN_SENTENCE}*\bto\s+(?:verify|check|confirm|validate)\b",
    re.IGNORECASE,
)
# "Optionally, map the result": what the request did not ask for only risks the deliverable (such a
# step's repairs may rewrite a finished file).
_OPTIONAL = re.compile(r"^\s*(?:optionally|if (?:needed|desired|wanted|you (?:want|wish|like)))\b", re.IGNORECASE)
# "If the user asks for a map, display the result with geemap": a step conditional on the request,
# which the plan's reader has in full; it is work only when the request asks for a picture.
_IF_ASKED = re.compile(
    r"^\s*(?:if|when|in case)\s+(?:the\s+)?(?:user|request|analyst|client)\s+"
    r"(?:asks|wants|requests|requires|would\s+like|needs)\b|^\s*if\s+(?:requested|asked)\b",
    re.IGNORECASE,
)
_PICTURE = re.compile(r"\b(?:maps?|plot\w*|chart\w*|visuali[sz]\w*|figures?|png|html)\b", re.IGNORECASE)
_CLOSES = re.compile(r"^\s*close\b", re.IGNORECASE)
# "Convert the `data/stations.geojson` points to a GeoDataFrame", nothing else said: a layer is read as
# one already, and the step invites points_from_xy on columns a GeoJSON layer does not have.
_TO_GEODATAFRAME = re.compile(
    r"^\s*(?:convert|turn|make|cast|transform)\w*\s+(?:the\s+)?[^;]*?\s+(?:to|into|as)\s+"
    r"(?:an?\s+)?`?geo(?:pandas\s+)?data\s?frames?`?\s*[.;]?\s*$",
    re.IGNORECASE,
)
# "Convert the `geometry` column to a shapely geometry type": a layer read by geopandas holds shapely
# geometries already, and a model's conversion may leave a plain Series (every later step fails on
# `.to_crs` of it). Only when every data file is a spatial layer: a table's
# `geometry` column may be WKT text to parse.
_TO_SHAPELY = re.compile(
    r"^\s*(?:convert|cast|change|turn|transform|ensure)\w*\s+(?:the\s+)?`?geometr(?:y|ies)`?"
    rf"(?:\s+column)?(?:\s+(?:of|in)\s+{_IN_SENTENCE}*?)?\s+(?:to|into|is|are|as)\s+(?:an?\s+)?`?shapely\b{_IN_SENTENCE}*[.;]?\s*$",
    re.IGNORECASE,
)
_REPEATS = re.compile(r"^\s*repeat\s+(?:the\s+)?steps?\b", re.IGNORECASE)
# Steps that only do what the contract's mend does on the written file (``contract.mend``): convert the
# geometries to the multi-part type an output requires, drop the null/empty geometries it forbids. A small
# model may spend minutes on such a step (`x.multipolygon`); the mend is certain.
# (Repairing invalid or dropping duplicate geometries stays a step: later joins, overlays or sums
# need it done before them.)
_MENDED_STEPS = {
    "geometry_types": re.compile(
        rf"^\s*(?:convert|cast|change|transform|make|turn|ensure)\w*\b{_IN_SENTENCE}*\bmulti-?"
        rf"(?:polygon|linestring|line|point|part)s?\b{_IN_SENTENCE}*[.;]?\s*$",
        re.IGNORECASE,
    ),
    "geometries_present": re.compile(
        rf"^\s*(?:remove|drop|filter(?:\s+out)?|exclude|discard|delete)\b{_IN_SENTENCE}*"
        rf"\b(?:null|empty|missing)\b{_IN_SENTENCE}*\bgeometr{_IN_SENTENCE}*[.;]?\s*$",
        re.IGNORECASE,
    ),
}
_ASKS_TO_CHECK = re.compile(r"\b(?:verif\w*|validat\w*|check\w*|confirm\w*|audit\w*)\b", re.IGNORECASE)


def _words(text: str) -> list[str]:
    """A step's words in order, lower case, file names kept whole ("city_landuse.geojson")."""
    return [w for w in (w.strip(".-") for w in re.findall(r"[\w.\-]+", text.lower())) if w]


def _files_named(text: str, files: list[str]) -> set[str]:
    """The data files a step names by file name or full stem (``city_landuse``), not by a word of it."""
    words = set(_words(text))
    found = set()
    for path in files:
        name = path.rsplit("/", 1)[-1].lower()
        if name in words or name.rsplit(".", 1)[0] in words:
            found.add(path)
    return found


def _only_loads(text: str, files: set[str]) -> bool:
    """The step's words are loading words and the names of ``files`` (nothing else to do)."""
    names = {n for p in files for n in (p.rsplit("/", 1)[-1].lower(), p.rsplit("/", 1)[-1].lower().rsplit(".", 1)[0])}
    return bool(_LOADS.match(text)) and set(_words(text)) <= _LOAD_WORDS | names


def _only_imports(text: str) -> bool:
    """The step imports libraries and does nothing else."""
    words = _words(text)
    return (
        bool(words)
        and words[0] in ("import", "load")
        and set(words) <= _IMPORT_WORDS
        and len(words) > 1
        and words[1:] != ["all"]
    )


def _mend_does(contract: Contract, req) -> bool:
    """The mend meets ``req`` the way its ``_MENDED_STEPS`` step would: a geometry type by making the
    parts multi only when nothing but multi-part types is allowed (with "Polygon or MultiPolygon"
    it only takes polygons from another geometry column, and a step to MultiPolygon is work)."""
    allowed = [str(t) for t in req.params.get("allowed") or []]
    multi_only = req.kind != "geometry_types" or (allowed and all(t.startswith("Multi") for t in allowed))
    return bool(multi_only) and mend_code(contract, req.output, [req]) is not None


def idle_steps(
    descriptions: list[str], request: str, contract: Contract | None, data_files: Sequence[str] = ()
) -> list[tuple[int, str]]:
    """(step index, why) for steps with nothing to do: one that only verifies, when the contract has
    checks beyond the file's existence (they run on the real files after every step, stronger than
    the model's own check) and the request asks for no checking itself; one that only closes things
    (a GeoDataFrame has nothing to close, a ``with`` block closes its file); one that only imports
    libraries (each step imports what it uses); an optional one ("Optionally, map the result", or "If
    the user asks for a map, ..." when the request asks for no picture); one
    that only loads files an earlier step loaded
    (reading them again throws away what the steps between did to them); one that only does what the
    contract's mend does on the written file (``_MENDED_STEPS``). A step that also writes stays."""
    verified = contract is not None and any(r.checkable and r.kind != "exists" for r in contract.requirements)
    mended = {
        kind: pattern
        for kind, pattern in _MENDED_STEPS.items()
        if contract is not None and any(r.kind == kind and _mend_does(contract, r) for r in contract.requirements)
    }
    computed = mended_values(contract)
    layers_only = bool(data_files) and all(file_format(p) in SPATIAL for p in data_files)
    loaded: set[str] = set()
    found = []
    for i, text in enumerate(descriptions):
        named = _files_named(text, list(data_files))
        if _WRITES.search(text):
            pass
        elif _REPEATS.search(text):
            found.append((i, "each step runs once: a loop is written inside one step"))
        elif _CLOSES.search(text):
            found.append((i, "nothing in a pandas/geopandas session needs closing"))
        elif layers_only and _TO_SHAPELY.match(text):
            found.append((i, "a layer geopandas reads holds shapely geometries already"))
        elif layers_only and _TO_GEODATAFRAME.match(text):
            found.append((i, "a layer geopandas reads is a GeoDataFrame already"))
        elif _only_imports(text):
            found.append((i, "each step imports the libraries it uses"))
        elif _OPTIONAL.search(text) or (_IF_ASKED.search(text) and not _PICTURE.search(request)):
            found.append((i, "an optional step the request did not ask for"))
        elif _VERIFIES.search(text) and verified and not _ASKS_TO_CHECK.search(request):
            found.append((i, "the contract's checks verify the written files after every step"))
        elif named and named <= loaded and _only_loads(text, named):
            found.append((i, f"{', '.join(f'`{p}`' for p in sorted(named))} already loaded by an earlier step"))
        elif any(pattern.match(text) for pattern in mended.values()) and not _MEASURES.search(text):
            found.append((i, "the contract's mend does this on the written file, without the model"))
        elif computed and contract is not None and (value := _mended_value(text, contract, computed)):
            found.append((i, f"the contract's mend computes `{value}` on the written file, by its definition"))
        if _LOADS.match(text):
            loaded |= named
    return found


_MERGES = re.compile(r"^\s*(?:merge|join|combine|spatial(?:ly)?\s+join)\b", re.IGNORECASE)
_COUNTING = re.compile(r"\b(?:count\w*|number\s+of|tally)\b", re.IGNORECASE)


def _mended_value(text: str, contract: Contract, computed: set[str]) -> str | None:
    """The column a step only computes when the contract's mend computes it on the written file
    (a model's own count over a join's rows is easily wrong, and a rate over it with it): a count of
    points per polygon ("count the stations per district", no measure), a merge that relates the
    points file or a counted column to the polygons ("Merge the districts and the computed
    `stations_per_10km2` on `district_code`"), or a rate named with nothing but its operands. None
    otherwise.
    ``computed``: the columns the mend computes (``advice.mended_values``)."""
    columns = {str(n) for r in contract.requirements if r.kind == "columns" for n in r.params.get("names") or []}
    named = {c for c in columns if re.search(rf"(?<![\w]){re.escape(c)}(?![\w])", text)}
    mended_names = {str(r.params.get("name")) for r in contract.requirements if r.kind in MENDED_VALUES}
    for r in contract.requirements:
        name = str(r.params.get("name"))
        if r.kind not in MENDED_VALUES or name not in computed:
            continue
        operands = {name, r.params.get("count"), r.params.get("measure")}
        if r.kind == "density" and (name in named or _says_rate(text, name)) and named <= operands:
            return name
        if (
            r.kind == "point_counts"
            and _MERGES.search(text)
            and ((named & mended_names) or r.params.get("points", "") in text)
            and not _MEASURES.search(text)
        ):
            return name  # relating the points to the polygons serves only the count
        noun = re.sub(r"(^|_)(count|n|num|number)(_|$)", "_", name.lower()).strip("_").rstrip("s")
        if (
            r.kind == "point_counts"
            and named <= {name, r.params.get("key")}
            and _COUNTING.search(text)
            and noun
            and re.search(rf"\b{re.escape(noun)}", text, re.IGNORECASE)
            and not _MEASURES.search(text)
        ):
            return name
    return None


def _says_rate(text: str, name: str) -> bool:
    """The step names the rate in words: "the stations per 10 km²" for `stations_per_10km2`."""
    noun, _, per = name.lower().partition("_per_")
    if not (noun and per):
        return False
    scale = re.match(r"\d+(?:\.\d+)?", per)
    pattern = (
        r"\b"
        + re.escape(noun.rstrip("s"))
        + r"\w*\s+per\s+"
        + (re.escape(scale.group(0)) + r"\s*" if scale else "")
        + r"(?:sq\w*\s+)?(?:km|kilomet|m\b|m²|met|ha\b|hect)"
    )
    return bool(re.search(pattern, text, re.IGNORECASE))


# "Ensure that every geometry is valid", "Make sure the CSV is sorted", "Check the CRS": steps that
# only see to what the request asks of the files
_ASSURES = re.compile(r"^\s*(?:ensure|make\s+sure|check|verify|double-check|confirm|validate|assert)\b", re.IGNORECASE)


def assurance_steps(descriptions: list[str], request: str) -> list[int]:
    """The steps that only see to the outputs' requirements ("Ensure …", "Make sure …", "Check …"),
    for when every output is written and meets every requirement: then they have nothing to do.
    No step when the request itself asks for a check (its report is then work of its own)."""
    if _ASKS_TO_CHECK.search(request):
        return []
    return [i for i, text in enumerate(descriptions) if _ASSURES.search(text)]


def written_later(descriptions: list[str], index: int, output: str) -> bool:
    """Whether a step after ``index`` is there to write ``output`` (it names the file, or says it
    writes and step ``index`` neither names nor writes anything): then the contract's verdict on
    what step ``index`` wrote is not that step's to repair. The small model writes the whole pipeline,
    deliverable included, in its "Load the layers" step (repairing step 1 for a column a later step
    adds would spend the run's time on what that step does)."""
    here = descriptions[index]
    base = posixpath.basename(output)
    if base in here or _WRITES.search(here):
        return False
    later = descriptions[index + 1 :]
    return any(base in text for text in later) or any(_WRITES.search(text) for text in later)
