"""The CRS advisor's answers for a run's layers, as the lines the planner, the coder and the
repairs read (the advisor itself runs in the kernel: ``kernel/inkernel/_60_crs_advisor.py``).

A small model does not know which projection is official for a country or which one measures area
honestly at 78°N; pyproj's database does. One line per layer goes into the data overview, the
step that measures or reprojects gets the answer for its purpose, and a measurement made in
degrees is repaired towards a named CRS instead of "a projected CRS".
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from ..contract.model import Contract

PURPOSES = ("same", "area", "distance", "official")
SPATIAL_EXT = {".geojson", ".gpkg", ".shp", ".fgb", ".kml", ".gml", ".parquet", ".geoparquet", ".tif", ".tiff"}
MAX_LAYERS = 6
# What a subtask does -> the purpose whose answer its coder gets (first match wins): the region's
# grid when named, else what the step measures ("the area ... using the projected CRS" is an area
# step), else a bare reprojection gets the official grid.
SUBTASK_PURPOSES = (
    (re.compile(r"\b(official|national|grid)\b", re.I), "official"),
    (re.compile(r"\b(area|areas|km²|km2|hectare|ha\b|m²|m2|equal[- ]area)", re.I), "area"),
    (re.compile(r"\b(distance|buffer|nearest|length|within|radius|metres|meters|km\b)", re.I), "distance"),
    (
        re.compile(r"\b(reproject|to_crs|project|convert .* crs|crs|metric projection|projected crs)\b", re.I),
        "official",
    ),
)

# A request also names a distance or an area by a number and its unit ("400 m around each stop").
_REQUEST_PURPOSES = SUBTASK_PURPOSES + (
    (re.compile(r"\d\s*(?:m|km|mi|ft|miles?|metres?|meters?)\b", re.I), "distance"),
    (re.compile(r"\d\s*(?:ha|acres?|sq\s*km|square\s+\w+)\b", re.I), "area"),
)


def _first(answer: Any) -> dict | None:
    return answer[0] if isinstance(answer, list) and answer and isinstance(answer[0], dict) else None


def _label(choice: dict) -> str:
    return f"EPSG:{choice['epsg']} ({choice['name']})" if choice.get("name") else f"EPSG:{choice['epsg']}"


@dataclass
class CrsAdvice:
    """path -> {purpose -> ranked choices or a sentence}, for the data files found at the start."""

    layers: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The CRS the contract fixes for what is written (a bare reprojection's answer, see ``within``):
    # {"epsg" (absent when the advisor did not read a kept layer's CRS), "name", "why"}; None: free.
    written: dict[str, Any] | None = None

    @classmethod
    async def gather(cls, kernel, files: list[str], named: list[str]) -> CrsAdvice:
        wanted = {posixpath.basename(n) for n in named}
        spatial = [f for f in files if posixpath.splitext(f)[1].lower() in SPATIAL_EXT]
        spatial.sort(key=lambda f: posixpath.basename(f) not in wanted)  # the request's own layers first
        advice = cls()
        for path in spatial[:MAX_LAYERS]:
            try:
                answer = await kernel.advise_crs(path, list(PURPOSES))
            except Exception:  # advice helps; it never stops a run
                continue
            if isinstance(answer, dict):
                advice.layers[path] = answer
        return advice

    def overview_lines(self, request: str = "") -> str:
        """One line per layer: its own CRS and units, then where to measure area and distance, and the
        official grid — each only when ``request`` speaks of it (all without a request): advice the
        request never asked for reads as an instruction, and a request that leaves the geometry alone
        would get a planned reprojection to the CRS named."""
        asked = (
            {purpose for pattern, purpose in _REQUEST_PURPOSES if pattern.search(request)} if request else set(PURPOSES)
        )
        lines = []
        for path, answers in self.layers.items():
            parts = []
            own = _first(answers.get("same"))
            if own:
                units = (
                    "degrees (x = longitude, y = latitude)"
                    if "degree" in str(own.get("units", ""))
                    else own.get("units", "")
                )
                parts.append(f"its CRS EPSG:{own['epsg']} is in {units}")
            for purpose, words in (
                ("area", "measure areas in"),
                ("distance", "distances and buffers in"),
                ("official", "official grid"),
            ):
                choice = _first(answers.get(purpose)) if purpose in asked else None
                if choice:
                    parts.append(f"{words} {_label(choice)}")
            if parts:
                lines.append(f"- CRS advice for {path}: " + "; ".join(parts))
        return "\n".join(lines)

    def within(self, contract: Contract | None) -> CrsAdvice:
        """This advice under a contract that decides the CRS of what is written: an exact EPSG
        (``crs_epsg``), or an input's own CRS (``geometry_unchanged``). A step that reprojects or
        names "the CRS" is then told that CRS, not the region's official grid, so a layer that must
        stay as it is is not written in another CRS. Measuring (area, distance) keeps the advisor's
        answer: it works on a copy."""
        pins: list[dict[str, Any]] = []
        for req in contract.requirements if contract else []:
            if req.kind == "crs_epsg" and req.params.get("epsg"):
                code = int(req.params["epsg"])
                pins.append(
                    {
                        "epsg": code,
                        "name": "",
                        "why": f"`{req.output}` must be in EPSG:{code} (the "
                        f"contract): reproject the layer written with gdf.to_crs(epsg={code})",
                    }
                )
            elif req.kind == "geometry_unchanged":
                kept = posixpath.basename(str(req.params.get("input")))
                own = (
                    next(
                        (_first(a.get("same")) for path, a in self.layers.items() if posixpath.basename(path) == kept),
                        None,
                    )
                    or {}
                )
                where = f" EPSG:{own['epsg']}" if own.get("epsg") else ""
                pins.append(
                    {
                        **own,
                        "why": f"`{req.output}` keeps the geometries of `{req.params.get('input')}` in "
                        f"their own CRS{where}: never reproject the layer written or pass crs= when writing",
                    }
                )
        agreed = len({p.get("epsg") for p in pins}) == 1  # none, or outputs that disagree: the advisor's grid
        return CrsAdvice(self.layers, pins[0] if agreed else None)

    def pin_line(self) -> str:
        """The overview's line for a contract that fixes the CRS of what is written, or ''."""
        return f"- CRS of what is written: {self.written['why']}" if self.written and self.written.get("why") else ""

    def _choice(self, purpose: str) -> dict | None:
        """The first answer for ``purpose`` of the first layer (the request's own first) that has one;
        for a bare reprojection, the CRS the contract fixes when it does."""
        if purpose == "official" and self.written is not None:
            return self.written
        return next((c for c in (_first(a.get(purpose)) for a in self.layers.values()) if c), None)

    def label_for(self, purpose: str) -> str:
        """'EPSG:3460 (Fiji 1986 / Fiji Map Grid)', or ''."""
        choice = self._choice(purpose)
        return _label(choice) if choice and choice.get("epsg") else ""

    def for_purpose(self, purpose: str) -> str:
        """The answer for ``purpose`` with its reason, or ''."""
        choice = self._choice(purpose)
        return (choice.get("why") or _label(choice)) if choice else ""

    def for_subtask(self, description: str) -> str:
        """The advice a subtask's coder gets: the purpose its words name, else nothing. A step worded
        "Set the CRS ... to" a CRS the data is not in is told to convert: ``set_crs`` only relabels,
        so degrees labelled as a projected CRS put every feature near the grid's origin."""
        purpose = _purpose_of(description)
        why = self.for_purpose(purpose) if purpose else ""
        if not purpose or not why:
            return ""
        own = next((c for c in (_first(a.get("same")) for a in self.layers.values()) if c), None) or {}
        target = (self._choice(purpose) or {}).get("epsg")
        if _SETS_CRS.search(description) and own.get("epsg") and target and own["epsg"] != target:
            why += (
                f" The data's coordinates are in EPSG:{own['epsg']} now: convert them with "
                f"gdf.to_crs(epsg={target}); set_crs only relabels coordinates, it does not move them."
            )
        return f"CRS for this step ({purpose}): {why}"

    def step_label(self, description: str) -> str:
        """What the plan shows beside a step: "areas in EPSG:3035 (ETRS89-extended / LAEA Europe)", or ''."""
        purpose = _purpose_of(description)
        label = self.label_for(purpose) if purpose else ""
        words = "written in" if purpose == "official" and self.written is not None else _STEP_WORDS.get(purpose or "")
        return f"{words} {label}" if label else ""


_SETS_CRS = re.compile(
    r"\bset(?:s|ting)?\s+(?:the\s+)?(?:crs|coordinate reference system|projection)\b|\bset_crs\b", re.I
)
_STEP_WORDS = {"area": "areas in", "distance": "distances in", "official": "official grid"}


def _purpose_of(description: str) -> str | None:
    """The purpose a step's words name (``SUBTASK_PURPOSES``, first match), or None."""
    return next((purpose for pattern, purpose in SUBTASK_PURPOSES if pattern.search(description)), None)
