"""The deliverable contract: what each output file must satisfy, as data.

A requirement is a short sentence a person reads plus, when code can check it, a typed
``kind`` with ``params`` that the in-kernel checker (``kernel/inkernel/_50_contract.py``)
verifies on the file read back from disk. Requirements no code can check are
``kind="note"``: shown, never counted as passed ("not verified").
"""

from __future__ import annotations

from typing import Any, Callable, Literal

from pydantic import BaseModel, Field

# params.if_present: the requirement binds only an output that has the column (a defect rule's).
Kind = Literal[
    "exists",  # the file exists and opens as its format
    "columns",  # params.names: columns (tables/layers) or top-level keys (JSON); params.no_stray: the geometry/index column names not allowed beside them
    "layers",  # params.names: layers of a GeoPackage
    "json_shape",  # params.shape: list | object, the JSON document's top level
    "crs_present",  # the file declares a CRS
    "located",  # params.bounds: the data lies where its inputs lie ([w, s, e, n] in lon/lat, grown)
    "crs_epsg",  # params.epsg: the declared CRS is this EPSG code
    "crs_projected_metres",  # a projected CRS in metres whose area of use contains the data (params.advised_epsg:
    # the CRS advisor's official grid, the mend's choice; params.name_has: "UTM")
    "geometry_types",  # params.allowed: OGC type names every feature must have
    "lonlat",  # params.name: values (or a bbox) within lon/lat ranges
    "bbox",  # params.name: [minx, miny, maxx, maxy], min <= max; params.input: the bounds of that
    # input's whole layer (in its CRS, in lon/lat, or in params.epsg; params.wkt: a table's WKT column)
    "group_keys",  # params.name, column, input: a JSON object with one key per value of that input column
    "buffer_distance",  # params.input, distance_m: the polygons cover what that input buffered by the distance
    # (in true metres) covers
    "point_counts",  # params.name, points, polygons: each row's value is the number of those points inside its
    # polygon (the file's own, or the polygons input's of the same key); every polygon has a row
    "density",  # params.name, count, measure, factor: each row's value is count / measure * factor
    "integer",  # params.name: integer-valued numbers (a dict's values too)
    "numeric",  # params.name: numbers, not text
    "dtype",  # params.name + params.dtype: the column's stored type; or params.dtype + params.others
    # (the other attribute columns, params.others = the typed names left out)
    "non_negative",  # params.name: finite numbers >= 0
    "measure_units",  # params.name, measure (area|length|perimeter), unit, input: each value is the feature's
    # geodesic measure in that unit (its own geometry, or its input feature's by a key)
    "nearest_distance",  # params.name, unit (m|km), input, to: each value is the straight-line distance from the row's
    # feature (its own geometry, or its input feature's by a key) to the nearest feature of `to`
    "nearest_attribute",  # params.name, column, input, to: each value is `column` of the row's feature's nearest feature of
    # `to` (or of one tied with it)
    "non_empty",  # params.name: no null or empty value
    "unique",  # params.name: no duplicate value (params.keep_by, keep: min|max — the row the request keeps;
    # keep: as_requested — a rule only the model can follow, no mend)
    "sorted",  # params.name, params.descending
    "rows_as_input",  # params.input: as many rows as that input file has features
    "values_from_input",  # params.name, params.input: every value occurs in that input's column (params.as_type:
    # converted to that type: the same instants or numbers, none lost)
    "values_in",  # params.name, params.allowed: every value is one of these
    "pattern",  # params.name, params.regex: every value is written this way ("EPSG:NNNN")
    "geometries_present",  # no null or empty geometry
    "geometries_valid",  # every geometry is valid (params.input, key: each invalid feature of that input kept by its key, repaired)
    "geometries_unique",  # no two features share a geometry (params.keep_by, keep as for unique)
    "geometry_unchanged",  # params.input: same CRS; every geometry is one of that input's (ring order aside)
    "min_area",  # params.m2, said: every polygonal feature's area on the ellipsoid is at least m2 square metres
    "shapes_kept",  # params.input: every feature's shape, back in that input's CRS, is one of its features' or
    # of their parts' (within 1 m; reprojection and explode allowed, reshaping not)
    "antimeridian_cut",  # no line/ring jumps over +-180 in one segment (params.lonlat_only: projected files pass)
    "geometry_once",  # no attribute column repeats the geometry as WKT text
    "rfc7946_winding",  # GeoJSON polygons: exterior counter-clockwise, holes clockwise
    "note",  # not checkable by code
]
CHECKABLE: frozenset[str] = frozenset(k for k in Kind.__args__ if k != "note")  # type: ignore[attr-defined]


class Requirement(BaseModel):
    id: str
    output: str = Field(description="the output file (path as the request names it)")
    text: str = Field(description="one sentence a person reads")
    kind: Kind = "note"
    params: dict[str, Any] = Field(default_factory=dict)
    origin: Literal["request", "user", "model"] = "request"  # "model": proposed by the model, kept by the rules
    said: str = Field(default="", description="the request's words it is read from (the user's, for their own)")
    sure: bool = Field(default=True, description="read with certainty; an unsure reading is shown, never gates")

    @property
    def checkable(self) -> bool:
        """Checked on the file and gating ``succeeded``: a kind code checks, read with certainty. An
        unsure reading is shown and reported "not verified" like a note — a wrong requirement pushes
        repairs away from a right answer, which costs more than a missing one."""
        return self.kind in CHECKABLE and self.sure


class OutputSpec(BaseModel):
    path: str
    format: str


class Contract(BaseModel):
    outputs: list[OutputSpec] = Field(default_factory=list)
    requirements: list[Requirement] = Field(default_factory=list)

    def for_output(self, path: str) -> list[Requirement]:
        return [r for r in self.requirements if r.output == path]

    def checkable(self) -> list[Requirement]:
        return [r for r in self.requirements if r.checkable]

    def keeps_invalid(self) -> bool:
        """Whether an output must keep the input's invalid features, repaired (``rules._invalid_repaired``)."""
        return any(r.kind == "geometries_valid" and r.params.get("key") for r in self.requirements)

    def text(self, suffix: Callable[["Requirement"], str] | None = None) -> str:
        """The contract as the planner and the coder read it (``suffix``: more words per requirement)."""
        lines = []
        for out in self.outputs:
            lines.append(f"`{out.path}` ({out.format}):")
            lines += [f"  - {r.text}{suffix(r) if suffix else ''}" for r in self.for_output(out.path)]
        return "\n".join(lines)


class RequirementResult(BaseModel):
    """One requirement checked on the real file: passed or not, and what was seen."""

    id: str
    passed: bool
    observed: str = ""


class RequirementEdit(BaseModel):
    """One requirement as the user left it: an unchanged one keeps its ``id``; new or reworded
    text (``id`` empty or text changed) is read again by the rules."""

    id: str = ""
    output: str = Field(min_length=1, max_length=1000)
    text: str = Field(min_length=1, max_length=2000)
