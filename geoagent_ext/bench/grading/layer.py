"""The checklist of one table/layer: planned from the reference alone, then run on the deliverable.

The plan (which subchecks exist) never depends on the deliverable, so every agent is scored
against the same denominator; a check that cannot run (file missing, no geometry column)
fails with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import numpy as np
import shapely

from . import tabular, vector
from . import tolerances as tol
from .models import Subcheck
from .readers import Table
from .task import ExpectedOutput, TaskSpec

Result = tuple[bool, str]
# A deliverable in the wrong CRS or without the required columns is not usable: score 0.
GATES = frozenset({"crs", "columns"})


class LayerCheck:
    def __init__(
        self, spec: TaskSpec, output: ExpectedOutput, ref: Table, got: Table | None, prefix: str, reason: str = ""
    ):
        self.spec, self.output, self.ref, self.got, self.prefix = spec, output, ref, got, prefix
        self.reason = reason
        self.required, self.optional = tabular.split_columns(ref, spec)
        self.key = tabular.detect_key(ref, self.required, spec)

    # --- plan -------------------------------------------------------------------------

    def plan(self) -> list[tuple[str, Callable[[], Result]]]:
        ref, items = self.ref, []
        if ref.spatial:
            items += [("crs", self.check_crs), ("geometry_type", self.check_geometry_type)]
            problems = vector.problems(ref.geometry)
            if not any(problems.values()):
                items.append(("geometry_valid", self.check_valid))
        if self.required:
            items += [("columns", self.check_columns), ("dtypes", self.check_dtypes)]
        items.append(("row_count", self.check_row_count))
        if self.key:
            items.append(("id_set", self.check_ids))
        if ref.spatial:
            items.append(("geometry", self.check_geometry))
            if np.isin(shapely.get_type_id(ref.geometry), vector.POLYGONAL + vector.LINEAL).any():
                items.append(("geometry_structure", self.check_structure))
            if self.output.format == "geojson" and vector.follows_rfc7946(ref.geometry):
                items.append(("ring_orientation", self.check_orientation))
        if [c for c in self.required if c != self.key]:
            items.append(("attributes", self.check_attributes))
        if self.spec.sort_requested:
            items.append(("sort_order", self.check_order))
        return items

    def run(self) -> list[Subcheck]:
        out = []
        for name, check in self.plan():
            full = f"{self.prefix}:{name}"
            if self.got is None:
                out.append(Subcheck(name=full, passed=False, detail=f"not checked: {self.reason}", gate=name in GATES))
                continue
            try:
                passed, detail = check()
            except Exception as exc:  # a malformed deliverable must fail the check, not the grader
                passed, detail = False, f"could not compare: {type(exc).__name__}: {str(exc)[:200]}"
            out.append(Subcheck(name=full, passed=bool(passed), detail=detail, gate=name in GATES))
        return out

    # --- shared state -----------------------------------------------------------------

    @cached_property
    def got_geometry(self) -> np.ndarray | None:
        """Deliverable geometries in the reference CRS."""
        if self.got is None or not self.got.spatial:
            return None
        return vector.to_reference_crs(self.got.geometry, self.got.crs, self.ref.crs)

    @cached_property
    def pairing(self) -> tuple[list[tuple[int, int]], str]:
        """(pairs of ref row -> got row, how): by id, else by order or geometry (whichever pairs more)."""
        ref, got = self.ref, self.got
        if self.key and self.key in got.frame.columns:
            pairs = tabular.key_pairs(ref, got, self.key)[0]
            if pairs or not ref.spatial:  # no shared id at all: values can still be paired by geometry
                return pairs, f"by {self.key}"
        order = [(i, i) for i in range(min(len(ref), len(got)))]
        if not (ref.spatial and self.got_geometry is not None and tol.GEOMETRIC_MATCH_FALLBACK):
            return order, "by order"
        if order:
            ok = vector.within_tolerance(
                ref.geometry[[i for i, _ in order]], self.got_geometry[[j for _, j in order]], ref.crs
            )[0]
            if ok.all() and len(order) == len(ref):
                return order, "by order"
            order_score = int(ok.sum())
        else:
            order_score = 0
        geo = vector.geometric_pairs(ref.geometry, self.got_geometry)
        if geo:
            ok = vector.within_tolerance(
                ref.geometry[[i for i, _ in geo]], self.got_geometry[[j for _, j in geo]], ref.crs
            )[0]
            if int(ok.sum()) > order_score:
                return geo, "by nearest geometry"
        return order, "by order"

    def label(self, ref_row: int) -> str:
        if self.key:
            return f"{self.key}={tabular.short(self.ref.frame[self.key].iloc[ref_row])}"
        return f"row {ref_row + 1}"

    # --- checks -----------------------------------------------------------------------

    def check_crs(self) -> Result:
        got_crs = self.got.crs if self.got.spatial else None
        if not self.got.spatial:
            return False, "no geometry column"
        expected = self.output.crs
        if expected is None and tol.CRS_FALLBACK_TO_REFERENCE:
            expected = self.ref.crs
        if expected is not None:
            if vector.crs_equal(expected, got_crs):
                return True, vector.crs_label(got_crs)
            return False, f"expected {vector.crs_label(expected)}, got {vector.crs_label(got_crs)}"
        if got_crs is None:
            return False, "no CRS declared"
        return True, (
            f"{vector.crs_label(got_crs)} (task states no CRS; reference uses "
            f"{vector.crs_label(self.ref.crs)}, geometries compared after reprojection)"
        )

    def check_geometry_type(self) -> Result:
        if not self.got.spatial:
            return False, "no geometry column"
        ref_types = set(vector.type_counts(self.ref.geometry))
        allowed = vector.allowed_types(ref_types, self.output.geometry_type, self.spec.allows_single_multi)
        got_types = vector.type_counts(self.got.geometry)
        wrong = {t: n for t, n in got_types.items() if t not in allowed and t != "null"}
        text = ", ".join(f"{t} x{n}" for t, n in sorted(got_types.items()))
        if wrong:
            return False, f"expected {'/'.join(sorted(allowed))}, got {text}"
        return True, text

    def check_valid(self) -> Result:
        if not self.got.spatial:
            return False, "no geometry column"
        problems = {k: v for k, v in vector.problems(self.got.geometry).items() if v}
        if problems:
            return False, ", ".join(f"{v} {k}" for k, v in problems.items()) + " geometries"
        return True, "all geometries non-null, non-empty and valid"

    def check_columns(self) -> Result:
        got_cols = set(self.got.frame.columns)
        missing = [c for c in self.required if c not in got_cols]
        extra = sorted(got_cols - set(self.ref.frame.columns))
        note = f"; extra columns {extra[:5]}" if extra else ""
        if missing:
            return False, f"missing {missing}" + note
        absent_optional = [c for c in self.optional if c not in got_cols]
        if absent_optional:
            note += f"; reference also has {absent_optional} (not required)"
        return True, f"{len(self.required)} required columns present" + note

    def check_dtypes(self) -> Result:
        problems, compared = [], 0
        for col in self.required:
            if col in self.got.frame.columns:
                compared += 1
                problem = tabular.dtype_problem(col, self.ref.types[col], self.got.types.get(col, "object"), self.spec)
                if problem:
                    problems.append(problem)
        if problems:
            return False, "; ".join(problems[:4]) + (f" (+{len(problems) - 4} more)" if len(problems) > 4 else "")
        if not compared:
            return False, "none of the required columns present"
        return True, f"{compared} column types match"

    def check_row_count(self) -> Result:
        expected, got = len(self.ref), len(self.got)
        noun = "features" if self.ref.spatial else "rows"
        return expected == got, f"expected {expected} {noun}, got {got}"

    def check_ids(self) -> Result:
        if self.key not in self.got.frame.columns:
            return False, f"id column {self.key!r} missing"
        _, info = tabular.key_pairs(self.ref, self.got, self.key)
        ok = not (info["missing"] or info["extra"] or info["duplicated"] or info["null"])
        return ok, tabular.describe_ids(info, self.key)

    def check_geometry(self) -> Result:
        if self.got_geometry is None:
            return False, "no geometry column"
        pairs, how = self.pairing
        if not pairs:
            return False, "no features to compare"
        ref_rows = [i for i, _ in pairs]
        ok, error, limit = vector.within_tolerance(
            self.ref.geometry[ref_rows], self.got_geometry[[j for _, j in pairs]], self.ref.crs
        )
        text = f"{int(ok.sum())}/{len(pairs)} features within tolerance ({how})"
        if ok.all():
            return True, text
        worst = int(np.argmax(np.where(ok, -np.inf, error / limit)))
        polygon = np.isin(shapely.get_type_id(self.ref.geometry[ref_rows[worst]]), vector.POLYGONAL)
        measure = "area(xor)/area(union)" if polygon else "distance"
        return False, f"{text}; worst {self.label(ref_rows[worst])}: {measure} {error[worst]:.3g} > {limit[worst]:.3g}"

    def check_structure(self) -> Result:
        if self.got_geometry is None:
            return False, "no geometry column"
        pairs, how = self.pairing
        if not pairs:
            return False, "no features to compare"
        ref_parts, ref_holes = vector.parts_and_holes(self.ref.geometry[[i for i, _ in pairs]])
        got_parts, got_holes = vector.parts_and_holes(self.got.geometry[[j for _, j in pairs]])
        bad = np.flatnonzero((ref_parts != got_parts) | (ref_holes != got_holes))
        text = f"{len(pairs) - len(bad)}/{len(pairs)} features with the reference's parts and holes ({how})"
        if len(bad) == 0:
            return True, text
        k = int(bad[0])
        return False, (
            f"{text}; {self.label(pairs[k][0])}: expected {ref_parts[k]} part(s), {ref_holes[k]} hole(s), "
            f"got {got_parts[k]}, {got_holes[k]}"
        )

    def check_orientation(self) -> Result:
        if not self.got.spatial:
            return False, "no geometry column"
        bad, total = vector.orientation_faults(self.got.geometry)
        if bad:
            return False, f"{bad}/{total} rings break the RFC 7946 right-hand rule (exterior CCW, holes CW)"
        return True, f"{total} rings follow RFC 7946"

    def check_attributes(self) -> Result:
        pairs, how = self.pairing
        columns = [c for c in self.required if c in self.got.frame.columns and how != f"by {c}"]
        if not columns:
            return False, "none of the required attribute columns present"
        if not pairs:
            return False, "no rows to compare"
        ref_rows, got_rows = [i for i, _ in pairs], [j for _, j in pairs]
        problems = []
        for col in columns:
            ref_values, got_values = self.ref.frame[col].iloc[ref_rows], self.got.frame[col].iloc[got_rows]
            basis = tabular.rank_basis(self.ref, col, self.required)
            if basis is not None:
                eq = tabular.rank_equal(ref_values, got_values, self.ref.frame[basis].iloc[ref_rows])
            else:
                eq = tabular.equal_values(ref_values, got_values, self.ref.types[col])
            if not eq.all():
                k = int(np.flatnonzero(~eq)[0])
                problems.append(
                    f"{col}: {int((~eq).sum())}/{len(eq)} differ ({self.label(ref_rows[k])}: expected "
                    f"{tabular.short(self.ref.frame[col].iloc[ref_rows[k]])}, "
                    f"got {tabular.short(self.got.frame[col].iloc[got_rows[k]])})"
                )
        text = f"{len(columns)} columns x {len(pairs)} rows compared ({how})"
        if problems:
            more = f" (+{len(problems) - 3} more columns)" if len(problems) > 3 else ""
            return False, "; ".join(problems[:3]) + more
        return True, text

    def check_order(self) -> Result:
        pairs, how = self.pairing
        by_identity = how != "by order"
        columns = [c for c in self.required if c in self.ref.frame.columns]
        problem = tabular.order_problem(self.ref, self.got, pairs if by_identity else None, columns, self.label)
        if problem:
            return False, problem
        return True, f"rows in the reference's order ({how})"
