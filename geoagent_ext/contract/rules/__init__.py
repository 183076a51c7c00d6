"""Derive the deliverable contract from the request's own words (no task knowledge).

Explicit things are parsed by rules: the output files and their formats; the columns or
keys listed after "columns"/"keys"/"containing"... (backticked or snake_case names, and
plain words that are columns of an input, in a list) with where each comes from
(``provenance``); layer names; EPSG codes, "national grid"/"metric projection", "in WGS84";
geometry type names (not those after a negation) and "single-part"; what a name says
(lon/lat, bbox, counts, measures); "integer", "non-empty", "non-negative", "unique",
"sorted by", "one row per input ...", "whose value is one of ..."; and the key columns the
user says to keep or carry unchanged. A requirement is attached to the outputs its sentence
names; a sentence that names no file speaks of the outputs of the sentence before (or all);
one that names only inputs speaks of none. Anything the request did not say is not a
requirement.

The readings are modules by concern, each below the derivation that runs them in order
(``derive``): the shared words (``words``) and the builder (``builder``) at the bottom, the names a
sentence lists (``column_names``), then one module per family of requirements (``crs``,
``geometry``, ``values``, ``layout``, ``rows``, ``selection``, ``columns``, ``names``,
``measures``, ``counts``, ``distances``, ``defects``) and ``consistency``, which weighs them against
each other.
"""

from ..formats import SPATIAL, file_format
from .columns import STRAY_COLUMNS, UNSAID_CLAUSE
from .derive import WHOLE_REQUEST_KINDS, apply_edits, derive_contract, user_requirement
from .geometry import GEOMETRY_TYPES
from .values import TYPED_FORMATS

__all__ = [
    "GEOMETRY_TYPES",
    "SPATIAL",
    "STRAY_COLUMNS",
    "TYPED_FORMATS",
    "UNSAID_CLAUSE",
    "WHOLE_REQUEST_KINDS",
    "apply_edits",
    "derive_contract",
    "file_format",
    "user_requirement",
]
