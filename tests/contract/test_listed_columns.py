"""A CSV or spatial file whose request lists every column in a closed list has no column the request does not name
(the leftovers of a join): checked on real files, and mended by dropping them. An open list
("including", "plus the name") or a short one leaves extra columns alone."""

from __future__ import annotations

import pandas as pd
import pytest

from geoagent_ext.contract import derive_contract
from geoagent_ext.contract.mend import mend_code

from .test_checks import check, in_folder

CLOSED = (
    "Count the stations in each district and write `summary.csv` with district_code, district_name, "
    "area_km2 and station_count, sorted by district_code."
)


def _columns_requirement(contract):
    return next(r for r in contract.requirements if r.kind == "columns")


def _summary(folder, **extra):
    table = pd.DataFrame(
        {"district_code": [1, 2], "district_name": ["A", "B"], "area_km2": [3.5, 4.0], "station_count": [2, 0]}
    )
    for name, values in extra.items():
        table[name] = values
    table.to_csv(folder / "summary.csv", index=False)


def test_a_join_leftover_beside_a_closed_list_of_columns_fails_and_the_exact_columns_pass(tmp_path):
    contract = derive_contract(CLOSED, ["summary.csv"], {})
    columns = _columns_requirement(contract)
    _summary(tmp_path, station_id=["s1", "s9"], distance=[10.0, 99.0])
    passed, observed = check(contract, tmp_path)[columns.text]
    assert not passed and "station_id" in observed and "distance" in observed, observed
    _summary(tmp_path)
    assert check(contract, tmp_path)[columns.text][0]


def test_an_extra_column_that_is_a_word_of_the_request_is_allowed(tmp_path):
    contract = derive_contract(CLOSED, ["summary.csv"], {})
    _summary(tmp_path, stations=[2, 0])  # "stations" is a word of the request
    assert check(contract, tmp_path)[_columns_requirement(contract).text][0]


@pytest.mark.parametrize(
    "request_text",
    [
        "Write `summary.csv` with columns including district_code, district_name, area_km2 and station_count.",
        "Write `summary.csv` with district_code, district_name, area_km2 and station_count, plus the mayor.",
        "Write `summary.csv` with district_code, area_km2 and station_count and keep the other attributes.",
        "Write `summary.csv` with district_code and station_count.",
    ],
)
def test_an_open_or_short_list_leaves_other_columns_alone(request_text, tmp_path):
    contract = derive_contract(request_text, ["summary.csv"], {})
    columns = _columns_requirement(contract)
    assert not columns.params.get("said_words"), columns.text
    _summary(tmp_path, mayor_name=["x", "y"])
    assert check(contract, tmp_path)[columns.text][0]


def test_the_mend_drops_the_leftovers_and_keeps_the_listed_columns_in_order(tmp_path):
    contract = derive_contract(CLOSED, ["summary.csv"], {})
    columns = _columns_requirement(contract)
    _summary(tmp_path, index_right=[0, 1], name=["s1", "s9"])
    found = mend_code(contract, "summary.csv", [columns])
    assert found is not None
    in_folder(tmp_path, exec, found[0], {})
    assert list(pd.read_csv(tmp_path / "summary.csv").columns) == [
        "district_code",
        "district_name",
        "area_km2",
        "station_count",
    ]
    assert check(contract, tmp_path)[columns.text][0]


def test_columns_a_user_types_or_the_model_reads_are_asked_for_not_the_only_ones():
    from geoagent_ext.contract import user_requirement
    from geoagent_ext.contract.reading import RequestReading, accept_reading

    typed = next(
        r
        for r in user_requirement("summary.csv", "has the columns district_code, area_km2 and station_count")
        if r.kind == "columns"
    )
    assert not typed.params.get("said_words") and "does not name" not in typed.text
    # of several requirements each keeps its own text: without "beside them", no word of stray columns
    several = user_requirement("summary.csv", "has the columns district_code and area_km2, sorted by district_code")
    [columns] = [r for r in several if r.kind == "columns"]
    assert len(several) > 1 and not columns.params.get("no_stray") and "beside them" not in columns.text
    request = (
        "For each district: n_stations = its stations, area_km2 its area, stations_per_km2 = n_stations per "
        "km2. Write `summary.csv`, one row per district."
    )
    derived = derive_contract(request, ["summary.csv"], {})
    contract = derived.model_copy(update={"requirements": [r for r in derived.requirements if r.kind == "exists"]})
    blank = {"crs": None, "geometry_type": None, "columns_kept": [], "one_row_per": None, "sort_by": None}
    new = ["n_stations", "area_km2", "stations_per_km2"]
    model = RequestReading.model_validate(
        {"outputs": [{"path": "summary.csv", **blank, "sort_order": None, "columns_new": new}]}
    )
    added, _ = accept_reading(model, request, contract, {})
    read = [r for r in added if r.kind == "columns"]
    assert read and len(read[0].params["names"]) == 3 and not any(r.params.get("said_words") for r in read), [
        r.params for r in added
    ]


SPATIAL_CLOSED = (
    "For every address find the nearest clinic and the straight-line distance. Write `nearest.gpkg` with "
    "address_id, clinic_name, distance_m and the address points."
)


def _nearest(folder, **extra):
    import geopandas as gpd
    from shapely.geometry import Point

    layer = gpd.GeoDataFrame(
        {"address_id": [1, 2], "clinic_name": ["A", "B"], "distance_m": [47.0, 812.5], **extra},
        geometry=[Point(18.42, -33.92), Point(18.43, -33.93)],
        crs="EPSG:4326",
    )
    layer.to_file(folder / "nearest.gpkg", driver="GPKG")


def test_a_spatial_file_with_a_closed_list_has_no_join_leftovers_and_keeps_its_geometry(tmp_path):
    """A join's index and the other layer's columns beside a closed list fail in a GeoPackage too;
    the geometry column is the file's own and passes; the mend drops the leftovers and keeps it."""
    import geopandas as gpd

    contract = derive_contract(SPATIAL_CLOSED, ["nearest.gpkg"], {})
    columns = _columns_requirement(contract)
    assert columns.params.get("said_words") and not columns.params.get("no_stray"), columns.params
    _nearest(tmp_path)
    assert check(contract, tmp_path)[columns.text][0]
    _nearest(tmp_path, index_right=[0, 3], clinic_id=["c1", "c4"])
    passed, observed = check(contract, tmp_path)[columns.text]
    assert not passed and "index_right" in observed and "clinic_id" in observed, observed
    found = mend_code(contract, "nearest.gpkg", [columns])
    assert found is not None
    in_folder(tmp_path, exec, found[0], {})
    mended = gpd.read_file(tmp_path / "nearest.gpkg")
    assert list(mended.columns) == ["address_id", "clinic_name", "distance_m", "geometry"]
    assert mended.crs.to_epsg() == 4326 and len(mended) == 2
    assert check(contract, tmp_path)[columns.text][0]


def test_an_open_list_for_a_spatial_file_leaves_other_columns_alone(tmp_path):
    request = SPATIAL_CLOSED.replace("and the address points", "plus the address points")
    contract = derive_contract(request, ["nearest.gpkg"], {})
    columns = _columns_requirement(contract)
    assert not columns.params.get("said_words"), columns.text
    _nearest(tmp_path, clinic_id=["c1", "c4"])
    assert check(contract, tmp_path)[columns.text][0]
