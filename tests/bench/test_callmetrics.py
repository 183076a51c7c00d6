"""Function-call metrics: static call names and set metrics, with their edge cases."""

from __future__ import annotations

import pytest

from geoagent_ext.bench.callmetrics import call_differences, call_metrics, called_functions


def test_calls_are_named_by_their_final_attribute():
    code = """
import geopandas as gpd
import pandas as pd
from geopandas import sjoin

def helper(frame):
    return frame.to_crs(3857)

gdf = gpd.read_file("a.geojson")
gdf["geometry"] = gdf.geometry.buffer(400)
joined = sjoin(helper(gdf), gdf)
print(len(joined))
pd.DataFrame(joined).to_csv("out.csv", index=False)
"""
    assert called_functions(code) == {"read_file", "buffer", "sjoin", "to_crs", "DataFrame", "to_csv"}


def test_magics_and_a_broken_chunk_do_not_hide_other_calls():
    code = (
        "%matplotlib inline\n!pip install x\nimport geopandas as gpd\ng = gpd.read_file('a')\n\n"
        "this is ( not python\n\ng.plot()\n"
    )
    assert called_functions(code) == {"read_file", "plot"}
    assert called_functions("") == set()


def test_metrics():
    m = call_metrics({"read_file", "to_crs", "area"}, {"read_file", "to_crs", "to_csv", "buffer"})
    assert m["precision"] == pytest.approx(2 / 3)
    assert m["recall"] == pytest.approx(2 / 4)
    assert m["f1"] == pytest.approx(2 * (2 / 3) * (1 / 2) / (2 / 3 + 1 / 2))
    assert m["hamming_loss"] == pytest.approx(3 / 5)  # {area, to_csv, buffer} of 5 functions in the union
    assert call_differences({"a", "b"}, {"b", "c"}) == {"common": ["b"], "missed": ["c"], "extra": ["a"]}


def test_metrics_on_empty_sets_do_not_divide_by_zero():
    assert call_metrics(set(), set()) == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "hamming_loss": 0.0}
    assert call_metrics(set(), {"read_file"}) == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "hamming_loss": 1.0}
    assert call_metrics({"read_file"}, set()) == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "hamming_loss": 1.0}
    identical = call_metrics({"a", "b"}, {"a", "b"})
    assert identical == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "hamming_loss": 0.0}
