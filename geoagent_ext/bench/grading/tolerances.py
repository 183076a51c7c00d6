"""Tolerances and policy switches of the graders, in one place so they are easy to audit.

A tolerance must accept every honest way of producing a deliverable (another library, a
float re-rounded on write, a different but equally valid projection for a metric
computation) and still reject the classic mistakes (degrees instead of metres, Web
Mercator scale error, a lat/lon swap, a dropped ring).
"""

from __future__ import annotations

NUMERIC_RTOL = 1e-3
"""Relative tolerance for float attributes (areas, lengths, distances, densities).

Two valid metric CRSs for the same region disagree on lengths by ~1e-4 (UTM zone scale
factor vs a national grid); 1e-3 accepts that, while Web Mercator (x1.2 at 34 deg S),
degrees-for-metres or m2-for-km2 are off by far more."""

NUMERIC_ATOL = 1e-9
"""Absolute epsilon for float attributes, so that 0.0 vs 1e-12 still compares equal."""

DATETIME_TOL_SECONDS = 1e-3
"""Timestamps may differ by less than a millisecond (unit conversion ms/us/ns)."""

POINT_TOL_DEGREES = 1e-6
"""Point distance tolerance in a geographic CRS: 1e-6 deg is ~0.1 m on the ground, coarser
than any coordinate re-rounding a writer does (GeoJSON keeps 7+ decimals)."""

POINT_TOL_METRES = 0.1
"""The same ~0.1 m in projected CRSs (scaled by the CRS unit, e.g. US feet). It absorbs a
WGS84 round trip at 7 decimals (~1 cm) and nothing bigger."""

LINE_REL_TOL = 1e-3
"""Lines: the Hausdorff distance may also reach this fraction of the reference line's own
length. Equally valid ways to split or densify a path put its vertices differently: on the
dev suite, splitting a 300 km transect at the antimeridian by interpolating in lon/lat or
straight in the projected CRS differs by 160 m (5e-4); swapped axes or an unprojected
stamp are off by kilometres."""

POLYGON_SYMDIFF_TOL = 1e-2
"""Polygons: area(A xor B) / area(A or B) must not exceed this (IoU >= 0.99). Measured on the
dev suite, honest variants of one 400 m buffer differ by up to ~5e-3 (UTM instead of a
national grid: 6e-4; 8 or 32 segments per quarter circle instead of 16: 5e-3 and 1e-3),
while a 1% radius error is 2e-2, Web Mercator's scale error 0.34 and half a repaired bowtie
0.5. Dropped holes are caught by the structure subcheck, not by this tolerance."""

JSON_COORD_TOL_DEGREES = 1e-5
"""Numbers under GeoJSON-vocabulary keys (bbox, bounds, extent, coordinates, center,
centroid) are coordinates and compare absolutely: ~1 m in degrees. A summary may round to 5
decimals; a lat/lon swap or a projected bbox is off by degrees."""

JSON_COORD_TOL_METRES = 1.0
"""The same ~1 m for coordinate lists whose values are clearly not degrees (|v| > 360)."""

GEOMETRIC_MATCH_FALLBACK = True
"""Without an id column rows are matched by order; if matching each reference feature to
its nearest/most-overlapping deliverable feature pairs up more rows, that matching is used
instead, so an unsorted but correct output is not failed for its row order (the sort_order
subcheck judges order where the task asks for it)."""

CRS_FALLBACK_TO_REFERENCE = False
"""When task.json states no CRS for a spatial output: True = the deliverable must use the
reference file's CRS; False (default) = any declared CRS passes, and geometries are
compared after reprojecting to the reference CRS. The instruction is what the user asked
for: when it leaves the CRS open (e.g. 'UTM 54N or JGD2011 Plane IX'), the reference's
pick is one valid answer among several, not a requirement."""

EMPTY_STRING_IS_NULL = True
"""Text attributes: an empty (or blank) string equals a null. pandas' read_csv turns "" into
NaN by default and several drivers (Shapefile, some CSV paths) cannot tell them apart, so
the difference says more about the reader used than about the analysis."""
