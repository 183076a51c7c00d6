"""Known analyst pitfalls of the dev tasks cost exactly the subchecks they should, and honest
alternatives the instruction allows (another metric CRS, another output CRS when none is
asked for) cost nothing."""

from __future__ import annotations

import shutil

import geopandas as gpd
import pandas as pd
import pytest
from shapely.geometry import MultiLineString

from geoagent_ext.bench.grading import grade_generic

from .helpers import SUITE, task_ids

pytestmark = pytest.mark.skipif(not task_ids(), reason=f"dev suite not found at {SUITE}")


def failed(task: str, workdir) -> set[str]:
    report = grade_generic(SUITE / task, workdir)
    return {s.name.rsplit(":", 1)[1] for s in report.subchecks if not s.passed}


def inputs(task: str, workdir):
    for path in (SUITE / task / "inputs").iterdir():
        shutil.copy(path, workdir / path.name)
    return workdir


def test_ring_orientation_round_trip_fails_only_orientation(tmp_path):
    task = "dc-l1-tokyo-ring-orientation"
    gpd.read_file(SUITE / task / "inputs" / "tokyo_buildings_legacy.geojson").to_file(
        tmp_path / "tokyo_buildings_fixed.geojson"
    )
    assert failed(task, tmp_path) == {"ring_orientation"}


def test_numbers_left_as_strings_fail_only_dtypes(tmp_path):
    task = "dc-l1-bangkok-attribute-coercion"
    stations = gpd.read_file(SUITE / task / "inputs" / "bangkok_aq_stations.geojson")
    stations.to_file(tmp_path / "bangkok_aq_typed.geojson")
    assert failed(task, tmp_path) == {"dtypes"}


def test_antimeridian_not_split_fails_only_structure(tmp_path):
    task = "crs-l2-fiji-antimeridian"
    lines = gpd.read_file(SUITE / task / "inputs" / "fiji_transects_wgs84.geojson").to_crs(3460)
    lines["geometry"] = [MultiLineString([line]) for line in lines.geometry]
    lines["length_m"] = lines.length
    lines.to_file(tmp_path / "fiji_transects_fmg.geojson")
    assert failed(task, tmp_path) == {"geometry_structure"}


def test_pandas_default_arrow_types_fail_only_dtypes(tmp_path):
    task = "fio-l1-nyc-csvwkt-addresses"
    raw = pd.read_csv(SUITE / task / "inputs" / "nyc_addresses.csv", dtype=str, keep_default_na=False)
    out = gpd.GeoDataFrame(
        raw.drop(columns="geometry_wkt"), geometry=gpd.GeoSeries.from_wkt(raw["geometry_wkt"]), crs=4326
    )
    out["recorded_at"] = pd.to_datetime(out["recorded_at"]).dt.tz_localize(None).astype("datetime64[ns]")
    out["unit_count"] = out["unit_count"].astype("int64")
    out.to_parquet(tmp_path / "addresses.geoparquet")
    assert failed(task, tmp_path) == {"dtypes"}


@pytest.mark.parametrize("epsg,expected", [(32654, set()), (3857, {"geometry"})])
def test_buffer_crs_choice(tmp_path, epsg, expected):
    """UTM 54N is an honest metric CRS for Tokyo; Web Mercator shrinks 400 m to ~330 m."""
    task = "geo-l1-tokyo-busstop-buffer"
    points = gpd.read_file(SUITE / task / "inputs" / "tokyo_connectors.geojson").to_crs(epsg)
    points["geometry"] = points.buffer(400)
    points.to_parquet(tmp_path / "tokyo_stop_catchments.geoparquet")
    assert failed(task, tmp_path) == expected


@pytest.mark.filterwarnings("ignore:Geometry is in a geographic CRS")
@pytest.mark.parametrize("epsg,expected", [(32630, set()), (None, {"attributes"})])
def test_area_crs_choice(tmp_path, epsg, expected):
    task = "crs-l1-london-laea-areas"
    admin = gpd.read_file(SUITE / task / "inputs" / "london_admin.geojson")
    admin["area_km2"] = (admin.to_crs(epsg).area / 1e6) if epsg else admin.area  # degrees2 when unprojected
    admin[["id", "name", "area_km2"]].to_csv(tmp_path / "borough_areas.csv", index=False)
    assert failed(task, tmp_path) == expected


def test_output_crs_is_free_when_the_task_states_none(tmp_path):
    """'Keep the original address geometry': WGS84 output is as right as the reference's UTM."""
    task = "spa-l1-capetown-hospital-nn"
    addresses = gpd.read_parquet(SUITE / task / "inputs" / "addresses.parquet")
    hospitals = gpd.read_parquet(SUITE / task / "inputs" / "hospitals.parquet")
    near = gpd.sjoin_nearest(addresses.to_crs(32734), hospitals.to_crs(32734), distance_col="distance_m")
    near = near.rename(columns={"name": "nearest_hospital_name"}).to_crs(4326)
    near[["address_id", "nearest_hospital_name", "distance_m", "geometry"]].to_file(tmp_path / "nearest_hospital.gpkg")
    assert failed(task, tmp_path) == set()


def test_missing_zero_count_rows(tmp_path):
    task = "spa-l1-vienna-pip-count"
    truth = pd.read_csv(SUITE / task / "reference" / "outputs" / "stations_per_district.csv")
    truth[truth.station_count > 0].to_csv(tmp_path / "stations_per_district.csv", index=False)
    assert failed(task, tmp_path) == {"row_count", "id_set"}
