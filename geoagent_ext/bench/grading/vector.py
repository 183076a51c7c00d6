"""Geometry comparisons: CRS, geometry types, validity, values, structure, ring orientation.

All functions take shapely arrays; values are compared in the reference CRS (the
deliverable is reprojected first) so a CRS mistake costs the CRS subcheck, not every one.
"""

from __future__ import annotations

import numpy as np
import shapely

from . import tolerances as tol

POLYGONAL = (3, 6)  # shapely type ids: Polygon, MultiPolygon
LINEAL = (1, 2, 5)  # LineString, LinearRing, MultiLineString
FAMILY = {
    "Point": "Point",
    "MultiPoint": "Point",
    "LineString": "LineString",
    "MultiLineString": "LineString",
    "Polygon": "Polygon",
    "MultiPolygon": "Polygon",
}


# --- CRS ----------------------------------------------------------------------------------


def crs_label(crs) -> str:
    if crs is None:
        return "no CRS"
    try:
        auth = crs.to_authority(min_confidence=90)
    except Exception:
        auth = None
    return ":".join(auth) if auth else (crs.name or "custom CRS")


def crs_equal(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    try:
        ea, eb = a.to_epsg(min_confidence=90), b.to_epsg(min_confidence=90)
        if ea is not None and eb is not None:
            return ea == eb
        return a.equals(b, ignore_axis_order=True)
    except Exception:
        return False


def to_reference_crs(geoms: np.ndarray, got_crs, ref_crs) -> np.ndarray:
    """Deliverable geometries in the reference CRS (unchanged when either CRS is unknown)."""
    if got_crs is None or ref_crs is None or crs_equal(got_crs, ref_crs):
        return geoms
    import geopandas as gpd

    return gpd.GeoSeries(geoms, crs=got_crs).to_crs(ref_crs).to_numpy()


# --- types and validity -------------------------------------------------------------------


def type_counts(geoms: np.ndarray) -> dict[str, int]:
    names = shapely.get_type_id(geoms)
    labels = {
        -1: "null",
        0: "Point",
        1: "LineString",
        2: "LinearRing",
        3: "Polygon",
        4: "MultiPoint",
        5: "MultiLineString",
        6: "MultiPolygon",
        7: "GeometryCollection",
    }
    out: dict[str, int] = {}
    for tid in names:
        out[labels.get(int(tid), "other")] = out.get(labels.get(int(tid), "other"), 0) + 1
    return out


def allowed_types(ref_types: set[str], expected: str | None, relax) -> set[str]:
    """The reference's types (plus task.json's), widened to single<->multi where ``relax(family)``."""
    allowed = set(ref_types) - {"null"}
    if expected:
        allowed.add(expected)
    for name in list(allowed):
        family = FAMILY.get(name)
        if family and relax(family):
            allowed |= {family, f"Multi{family}"}
    return allowed


def problems(geoms: np.ndarray) -> dict[str, int]:
    """Counts of null, empty and invalid geometries."""
    null = shapely.is_missing(geoms)
    empty = ~null & shapely.is_empty(geoms)
    invalid = ~null & ~empty & ~shapely.is_valid(geoms)
    return {"null": int(null.sum()), "empty": int(empty.sum()), "invalid": int(invalid.sum())}


# --- value tolerance ---------------------------------------------------------------------


def point_tolerance(crs, geoms: np.ndarray) -> float:
    if crs is not None:
        if crs.is_geographic:
            return tol.POINT_TOL_DEGREES
        try:
            factor = crs.axis_info[0].unit_conversion_factor or 1.0
        except Exception:
            factor = 1.0
        return tol.POINT_TOL_METRES / factor
    bounds = shapely.total_bounds(geoms)
    looks_degrees = np.all(np.abs(bounds[[0, 2]]) <= 180) and np.all(np.abs(bounds[[1, 3]]) <= 90)
    return tol.POINT_TOL_DEGREES if looks_degrees else tol.POINT_TOL_METRES


def distance_tolerance(crs, ref: np.ndarray) -> np.ndarray:
    """Per reference feature: how far (Hausdorff) a non-polygonal deliverable may deviate.

    Points: the coordinate tolerance. Lines: also LINE_REL_TOL of the line's own length,
    since equally valid ways to split or densify a path place its vertices differently."""
    base = point_tolerance(crs, ref)
    lineal = np.isin(shapely.get_type_id(ref), LINEAL)
    lengths = np.where(lineal, shapely.length(ref), 0.0)
    return np.maximum(base, tol.LINE_REL_TOL * np.nan_to_num(lengths))


def _safe(func, *arrays):
    try:
        return func(*arrays)
    except shapely.errors.GEOSException:
        return func(*[shapely.make_valid(a) for a in arrays])


def pair_errors(ref: np.ndarray, got: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pair: (error, is_area_ratio). Polygon pairs -> area(xor)/area(union); else Hausdorff.

    A null deliverable geometry against a non-null reference one is an infinite error."""
    ref_poly = np.isin(shapely.get_type_id(ref), POLYGONAL)
    got_poly = np.isin(shapely.get_type_id(got), POLYGONAL)
    both = ref_poly & got_poly
    error = np.full(len(ref), np.inf)
    if both.any():
        a, b = ref[both], got[both]
        xor = shapely.area(_safe(shapely.symmetric_difference, a, b))
        union = shapely.area(_safe(shapely.union, a, b))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(union > 0, xor / union, np.where(xor > 0, np.inf, 0.0))
        error[both] = ratio
    other = ~both & ~shapely.is_missing(ref) & ~shapely.is_missing(got)
    if other.any():
        error[other] = shapely.hausdorff_distance(ref[other], got[other])
    both_empty = shapely.is_empty(ref) & shapely.is_empty(got)
    both_missing = shapely.is_missing(ref) & shapely.is_missing(got)
    error[both_empty | both_missing] = 0.0
    error[np.isnan(error)] = np.inf
    return error, both


def within_tolerance(ref: np.ndarray, got: np.ndarray, crs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ok, error, limit) per pair; ``crs`` is the reference CRS (both arrays are in it)."""
    error, is_ratio = pair_errors(ref, got)
    limit = np.where(is_ratio, tol.POLYGON_SYMDIFF_TOL, distance_tolerance(crs, ref))
    return error <= limit, error, limit


# --- structure ---------------------------------------------------------------------------


def parts_and_holes(geoms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    parts = shapely.get_num_geometries(geoms)
    flat, index = shapely.get_parts(geoms, return_index=True)
    holes_per_part = np.where(shapely.get_type_id(flat) == 3, shapely.get_num_interior_rings(flat), 0)
    holes = np.bincount(index, weights=holes_per_part, minlength=len(geoms)).astype(int)
    return parts, holes


def orientation_faults(geoms: np.ndarray) -> tuple[int, int]:
    """(rings breaking RFC 7946's right-hand rule, rings checked): exteriors CCW, holes CW."""
    flat = shapely.get_parts(geoms)
    bad = total = 0
    for poly in flat[shapely.get_type_id(flat) == 3]:
        total += 1
        bad += not shapely.is_ccw(poly.exterior)
        for ring in poly.interiors:
            total += 1
            bad += bool(shapely.is_ccw(ring))
    return bad, total


def follows_rfc7946(geoms: np.ndarray) -> bool:
    bad, total = orientation_faults(geoms)
    return total > 0 and bad == 0


# --- matching without ids ----------------------------------------------------------------


def geometric_pairs(ref: np.ndarray, got: np.ndarray) -> list[tuple[int, int]]:
    """One-to-one pairs (ref row, deliverable row), greedy by best overlap (polygons) or distance."""
    valid_got = ~shapely.is_missing(got) & ~shapely.is_empty(got)
    if not valid_got.any() or len(ref) == 0:
        return []
    got_idx = np.flatnonzero(valid_got)
    tree = shapely.STRtree(got[got_idx])
    ref_ok = np.flatnonzero(~shapely.is_missing(ref) & ~shapely.is_empty(ref))
    polygonal = np.isin(shapely.get_type_id(ref[ref_ok]), POLYGONAL).all() if len(ref_ok) else False
    candidates: list[tuple[float, int, int]] = []
    if polygonal:
        r, g = tree.query(ref[ref_ok], predicate="intersects")
        if len(r):
            a, b = ref[ref_ok][r], got[got_idx][g]
            inter = shapely.area(_safe(shapely.intersection, a, b))
            union = shapely.area(_safe(shapely.union, a, b))
            with np.errstate(divide="ignore", invalid="ignore"):
                iou = np.where(union > 0, inter / union, 0.0)
            candidates = [(-float(s), int(ref_ok[i]), int(got_idx[j])) for s, i, j in zip(iou, r, g)]
    else:
        (r, g), dist = tree.query_nearest(ref[ref_ok], return_distance=True, all_matches=True)
        candidates = [(float(d), int(ref_ok[i]), int(got_idx[j])) for d, i, j in zip(dist, r, g)]
    # prefer the same row position on ties, so an ordered output maps onto itself
    candidates.sort(key=lambda c: (c[0], c[1] != c[2], c[1], c[2]))
    used_ref: set[int] = set()
    used_got: set[int] = set()
    pairs = []
    for _, i, j in candidates:
        if i not in used_ref and j not in used_got:
            used_ref.add(i)
            used_got.add(j)
            pairs.append((i, j))
    return sorted(pairs)
