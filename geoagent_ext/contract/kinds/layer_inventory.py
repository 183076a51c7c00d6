"""A table that describes the layers of an input file, one row per layer (an inventory or a CRS
audit): each row's CRS, geometry type and feature count are those the named layer declares on disk
(pyogrio reads them without loading the features). Only the columns whose names say which of the
three they hold are compared: "crs"/"epsg"/"srid"; "geometry_type"/"geom_type"; "feature_count",
"n_features", "features", "count". An "encoding" (or "charset") column is compared too when the request
gives its two labels in backticks or quotes, one saying "mojibake" and one "utf-8": the layer's text
is mojibake when a non-ASCII value, encoded back to Latin-1 (or cp1252), is UTF-8 of other text (UTF-8
read as Latin-1), which legitimate Latin-1 or UTF-8 text never is."""

import posixpath
import re

from ._kind import VALUE_MENDS, Builder, Params, RequestView, RequirementKind
from ._mending import embedded


class LayerInventoryParams(Params):
    input: str  # the file of several layers
    layer_column: str  # the column naming each row's layer
    crs: str | None = None  # the column holding its CRS ("EPSG:NNNN" or the number)
    geometry_type: str | None = None
    feature_count: str | None = None
    encoding: str | None = None  # the column saying whether the layer's text is mojibake
    encoding_labels: list[str] | None = None  # [the request's label for mojibake, its label for clean UTF-8]


def _contract_text_garbled(table):
    """Whether a table's text is UTF-8 read as Latin-1: a non-ASCII value that, encoded back to cp1252
    (or Latin-1), is UTF-8 of other text; clean UTF-8 in any script, or real Latin-1, never is."""
    for value in (v for c in table.columns for v in table[c].tolist() if isinstance(v, str) and not v.isascii()):
        for codec in ("cp1252", "latin-1"):
            try:
                if value.encode(codec).decode("utf-8") != value:
                    return True
            except UnicodeError:
                continue
            break
    return False


def _kind_layer_inventory(params, data, sources):
    import re as _re

    import pyogrio

    path, column = params["input"], params["layer_column"]
    if column not in data.columns:
        return False, f"`{column}` is not in the file"
    declared = {str(name): str(kind) for name, kind in pyogrio.list_layers(path)}
    wrong = []
    encoding = params.get("encoding") if params.get("encoding_labels") else None
    if encoding and encoding not in data.columns:
        wrong.append(f"`{encoding}` is not in the file")
        encoding = None
    for i in range(len(data)):
        layer = str(data[column].iloc[i]).strip()
        if layer not in declared:
            wrong.append(f"{layer!r} is not a layer of `{path}`")
            continue
        info = pyogrio.read_info(path, layer=layer)
        if params.get("crs"):
            said = str(data[params["crs"]].iloc[i])
            code = str(info.get("crs") or "").split(":")[-1]
            if _re.sub(r"\D", "", said) != code:
                wrong.append(f"{layer}: {params['crs']} {said!r}, the layer declares {info.get('crs')}")
        if params.get("geometry_type"):
            said = str(data[params["geometry_type"]].iloc[i]).strip()
            if said.lower().replace("3d ", "") != str(info.get("geometry_type")).lower().replace("3d ", ""):
                wrong.append(
                    f"{layer}: {params['geometry_type']} {said[:40]!r}, the layer is {info.get('geometry_type')}"
                )
        if params.get("feature_count"):
            said = str(data[params["feature_count"]].iloc[i]).strip()
            if said.replace(".0", "") != str(info.get("features")):
                wrong.append(f"{layer}: {params['feature_count']} {said[:20]!r}, the layer has {info.get('features')}")
        if encoding:
            garbled = _contract_text_garbled(pyogrio.read_dataframe(path, layer=layer, read_geometry=False))
            label = params["encoding_labels"][0 if garbled else 1]
            said = str(data[params["encoding"]].iloc[i]).strip()
            if said.lower() != label.lower():
                state = "UTF-8 read as Latin-1 (mojibake)" if garbled else "clean"
                wrong.append(f"{layer}: {params['encoding']} {said[:30]!r}, the layer's text is {state}: {label!r}")
    return not wrong, "; ".join(wrong[:4]) if wrong else "every row describes its layer as the file declares it"


def _declared(p, site):
    """Each row's described columns as its layer declares them on disk (``pyogrio.read_info``): the
    feature count, the geometry type, and the CRS as `EPSG:NNNN` (its number in a column named for
    the number: `epsg`, `srid`) when the layer has such a code. A row that names no layer of the file
    is left."""
    path, column = str(p["input"]), str(p["layer_column"])
    lines = [
        "import pyogrio",
        f"_layers = {{str(n) for n, _ in pyogrio.list_layers({path!r})}}",
        f"_infos = [pyogrio.read_info({path!r}, layer=l) if l in _layers else None "
        f"for l in _mend[{column!r}].astype(str).str.strip()]",
    ]
    if p.get("feature_count"):
        name = str(p["feature_count"])
        lines.append(f"_mend[{name!r}] = [int(i['features']) if i else v for i, v in zip(_infos, _mend[{name!r}])]")
    if p.get("geometry_type"):
        name = str(p["geometry_type"])
        lines.append(
            f"_mend[{name!r}] = [str(i['geometry_type']) if i and i.get('geometry_type') else v "
            f"for i, v in zip(_infos, _mend[{name!r}])]"
        )
    if p.get("crs"):
        name = str(p["crs"])
        code = "int(c)" if _NUMBER_COLUMN.search(name) else "'EPSG:' + c"
        lines += [
            "_codes = [str((i or {}).get('crs') or '').partition('EPSG:')[2] for i in _infos]",
            f"_mend[{name!r}] = [{code} if c.isdigit() else v for c, v in zip(_codes, _mend[{name!r}])]",
        ]
    if p.get("encoding") and p.get("encoding_labels"):
        name, (garbled, clean) = str(p["encoding"]), list(p["encoding_labels"])
        lines += [
            *embedded(_contract_text_garbled),
            f"_texts = [pyogrio.read_dataframe({path!r}, layer=l, read_geometry=False) if i else None "
            f"for l, i in zip(_mend[{column!r}].astype(str).str.strip(), _infos)]",
            f"_mend[{name!r}] = [({garbled!r} if _contract_text_garbled(t) else {clean!r}) if t is not None else v "
            f"for t, v in zip(_texts, _mend[{name!r}] if {name!r} in _mend.columns else [''] * len(_mend))]",
        ]
    return lines


def _labelled_by_mend(p):
    """The column the coder may leave out: the encoding label, which the mend writes from each
    layer's text by the check's own test (a small model's own test for mojibake rarely is one). The
    declared CRS, type and count stay the coder's to write; the mend corrects them."""
    return [str(p["encoding"])] if p.get("encoding") and p.get("encoding_labels") else []


# A CRS column whose name says it holds the code's number ("epsg", "srid"), not the CRS's name
_NUMBER_COLUMN = re.compile(r"(?:^|_)(?:epsg|srid)(?:$|_)", re.IGNORECASE)


_CRS_COLUMN = re.compile(r"(?:^|_)(?:crs|epsg|srid)(?:$|_)", re.IGNORECASE)
_TYPE_COLUMN = re.compile(r"^(?:geometry|geom)_?type$", re.IGNORECASE)
_COUNT_COLUMN = re.compile(r"^(?:feature_count|n_features|features|count|feature_n|num_features)$", re.IGNORECASE)
_ENCODING_COLUMN = re.compile(r"(?:^|_)(?:encoding|charset)(?:$|_)", re.IGNORECASE)
_LABEL = re.compile(r"`([^`\n]{1,40})`|'([^'\n]{1,40})'|\"([^\"\n]{1,40})\"")
_LAYER_COLUMN = re.compile(r"^(?:layer|layer_name|layername|name_of_layer)$", re.IGNORECASE)
_PER_LAYER = re.compile(
    r"\b(?:(?:one|a(?:\s+single)?|a\s+separate)\s+row\s+(?:per|for\s+each|for\s+every))\s+layer\b"
    r"|\b(?:every|each)\s+layer\b(?:[^.;]|\.(?=\w)){0,60}?\bone\s+row\s+(?:each|apiece)\b",  # a file's dot is no stop
    re.I,
)


def read_layer_inventory(request: RequestView, b: Builder) -> None:
    """One row per layer of the one multi-layer input the request names, with a layer-name column
    and columns that say they hold its CRS, geometry type or feature count."""
    named = {posixpath.basename(f) for f in request.files(request.text)}
    layered = [p for p, f in request.inputs.items() if (f.get("layers") or 0) > 1 and posixpath.basename(p) in named]
    if len(layered) != 1 or not _PER_LAYER.search(request.text):
        return
    for out in request.outputs:
        columns = b.columns_of(out)
        layer = [c for c in columns if _LAYER_COLUMN.match(c)]
        found = {
            "crs": [c for c in columns if _CRS_COLUMN.search(c)],
            "geometry_type": [c for c in columns if _TYPE_COLUMN.match(c)],
            "feature_count": [c for c in columns if _COUNT_COLUMN.match(c)],
        }
        described = {k: v[0] for k, v in found.items() if len(v) == 1}
        if len(layer) != 1 or not described:
            continue
        labels = _encoding_labels(request.text)
        encoding = [c for c in columns if _ENCODING_COLUMN.search(c)]
        extra: dict[str, object] = {}
        labelled = ""
        if labels and len(encoding) == 1:
            extra = {"encoding": encoding[0], "encoding_labels": labels}
            labelled = f"; `{encoding[0]}` is {labels[0]!r} where its text is mojibake, else {labels[1]!r}"
        sentence = next((s for s, outs, _ in request.sentences if out in outs and _PER_LAYER.search(s)), request.text)
        b.reading(sentence, True)
        b.add(
            out,
            "layer_inventory",
            f"each row's {', '.join(described.values())} are those its layer of `{layered[0]}` declares" + labelled,
            input=layered[0],
            layer_column=layer[0],
            **described,
            **extra,
        )


def _encoding_labels(text: str) -> list[str] | None:
    """[the label for mojibake, the label for clean UTF-8] when the request quotes one of each."""
    quoted = [next(g for g in m.groups() if g) for m in _LABEL.finditer(text)]
    garbled = [q for q in quoted if "mojibake" in q.lower()]
    clean = [q for q in quoted if re.fullmatch(r"utf-?8", q.strip(), re.IGNORECASE)]
    return [garbled[0], clean[0]] if len(set(garbled)) == 1 and len(set(clean)) == 1 else None


LAYER_INVENTORY = RequirementKind(
    helpers=(_contract_text_garbled,),
    name="layer_inventory",
    params=LayerInventoryParams,
    check=_kind_layer_inventory,
    mend=_declared,
    mend_order=VALUE_MENDS + 5,
    mended_columns=_labelled_by_mend,
    advice=(
        "describe each layer as it is on disk, one scalar per cell: for name, kind in pyogrio.list_layers(path): "
        "info = pyogrio.read_info(path, layer=name) -> info['crs'], info['geometry_type'], info['features']; "
        "a layer's text is mojibake when a non-ASCII value v has v.encode('latin-1').decode('utf-8') != v"
    ),
    read=read_layer_inventory,
)
