"""The registry of certain fixes: each rule's guard reports what it saw as data, its rewrite reads
that data (not the guard's words), and the strategy names the events carry come from the rules."""

from __future__ import annotations

import asyncio
import io
from contextlib import redirect_stdout
from typing import get_args

import pytest

from geoagent_ext.agent import fixes, repair
from geoagent_ext.agent.events import Repaired
from geoagent_ext.agent.fixes.keep_geometry import KeepGeometry, column_selections, with_geometry_selected


class _Probes:
    """A kernel that answers the guards' probes from a table."""

    def __init__(self, answers: dict):
        self.answers = answers

    async def probe(self, function: str, *args, probe_timeout=None):
        return self.answers[function]


def _tripped(rule: fixes.Rule, code: str, namespace: dict, answers: dict, facts: fixes.TrialFacts):
    """Run ``code`` with ``rule``'s guard here, as a trial would: (the error it raised, what it reported)."""
    suffix = asyncio.run(rule.guard(_Probes(answers), code, facts))
    printed = io.StringIO()
    with redirect_stdout(printed), pytest.raises(Exception) as raised:
        exec(code + suffix, namespace)
    return raised.value, fixes.tripped_guard(printed.getvalue())


def _points():
    import geopandas as gpd
    from shapely.geometry import Point

    return gpd.GeoDataFrame({"name": ["a", "b"]}, geometry=[Point(0, 0), Point(1, 1)], crs=4326)


def test_every_rules_strategy_is_one_the_repaired_event_carries():
    carried = set(get_args(Repaired.model_fields["strategy"].annotation))
    assert fixes.strategy_names() and set(fixes.strategy_names()) <= carried


def test_a_selection_that_leaves_out_the_geometry_is_tripped_and_gets_the_column_back():
    """A spatial output written from `gdf = gdf[['name']]` has no geometry (seven repairs of such a
    GeoParquet before the guard): the trial fails it and the column joins the selection."""
    code = "pts = pts[['name']]"
    answers = {"geometry_names": {"pts": "geometry"}}
    error, seen = _tripped(KeepGeometry(), code, {"pts": _points()}, answers, fixes.TrialFacts(spatial_output=True))
    assert isinstance(error, TypeError) and "left out its geometry column 'geometry'" in str(error)
    assert seen == {"rule": "KeepGeometry", "name": "pts", "geometry": "geometry"}
    d = repair.classify(code, "TypeError", str(error), str(error), 1, tripped=seen)
    assert (d.strategy, d.fixed_code) == ("keep_geometry", "pts = pts[['name', 'geometry']]")
    assert d.fix_said == "kept `pts`'s geometry column `geometry` in its column selection"
    # the guard's words alone are not read: the rewrite follows the data it reported
    assert repair.classify(code, "TypeError", str(error), str(error), 1).strategy != "keep_geometry"
    # no spatial output: no guard
    assert asyncio.run(KeepGeometry().guard(_Probes(answers), code, fixes.TrialFacts())) == ""


def test_a_selection_that_rebinds_its_frame_gets_the_geometry_column_added():
    code = "gdf = gdf[['a', 'b']]\nother = gdf[['a']]\ngdf = gdf[['a', 'geometry']]"
    assert column_selections(code) == ["gdf"]  # `other` is a new frame: its own choice
    assert with_geometry_selected(code, "gdf", "geometry").splitlines() == [
        "gdf = gdf[['a', 'b', 'geometry']]",
        "other = gdf[['a']]",
        "gdf = gdf[['a', 'geometry']]",
    ]
    assert with_geometry_selected("gdf = gdf[['a', 'geom']]", "gdf", "geom") is None
