"""Geometry written as WKT text in CSV files: an output's WKT column is read as its geometry (so
where it lies, its CRS words and its label points are checked), and a CSV input's lon/lat WKT
gives the input's place (so a deliverable made from it must lie there)."""

from __future__ import annotations

import geopandas as gpd
import pandas as pd
from shapely.geometry import Point, box

from geoagent_ext.contract import check_payload, derive_contract

from .test_checks import HELPER, PROBES, in_folder


def input_facts(folder, names):
    return in_folder(folder, PROBES["input_facts"], sorted(names))


def results(contract, folder):
    """{requirement kind: (passed, observed)} of the contract's checkable requirements on ``folder``."""
    answer = in_folder(folder, HELPER.check_contract, check_payload(contract))
    kind = {r.id: r.kind for r in contract.requirements}
    return {kind[r["id"]]: (r["passed"], r["observed"]) for r in answer}


def _districts() -> gpd.GeoDataFrame:
    """Two districts near Vienna, one shaped like an L (its centroid falls outside it) and a square."""
    ell = box(16.30, 48.20, 16.32, 48.30).union(box(16.30, 48.20, 16.40, 48.22))
    square = box(16.45, 48.20, 16.50, 48.25)
    kinds = ["district", "district", "city"]
    return gpd.GeoDataFrame(
        {"code": ["d1", "d2", "c1"], "label": ["Ell", "Square", "City"], "kind": kinds},
        geometry=[ell, square, box(16.2, 48.1, 16.6, 48.4)],
        crs=4326,
    )


LABELS = (
    "A label point for every district in districts.geojson (kind district) that surely falls inside "
    "the district — not its centroid. labels.csv with code, label and wkt (the point as WKT, in "
    "longitude/latitude)."
)


def _write_labels(folder, points, crs=None):
    d = _districts()
    d = d[d.kind == "district"]
    geoms = gpd.GeoSeries(points, crs=4326)
    if crs:
        geoms = geoms.to_crs(crs)
    pd.DataFrame({"code": d.code, "label": d.label, "wkt": geoms.to_wkt().values}).to_csv(
        folder / "labels.csv", index=False
    )


def test_label_points_written_as_lonlat_wkt_are_checked_inside_their_input_polygons(tmp_path):
    _districts().to_file(tmp_path / "districts.geojson")
    contract = derive_contract(LABELS, ["labels.csv"], input_facts(tmp_path, ["districts.geojson"]))
    kinds = {r.kind: r for r in contract.requirements if r.checkable}
    assert kinds["points_inside"].params == {"polygons": "districts.geojson", "by_key": True}
    assert kinds["wkt_geometry"].params == {"name": "wkt", "types": ["Point", "MultiPoint"], "lonlat": True}
    assert "located" in kinds

    districts = _districts().iloc[:2]
    _write_labels(tmp_path, districts.representative_point().values)
    assert all(passed for passed, _ in results(contract, tmp_path).values()), results(contract, tmp_path)

    _write_labels(tmp_path, districts.to_crs(31256).centroid.to_crs(4326).values)  # outside the L
    got = results(contract, tmp_path)
    assert not got["points_inside"][0] and "1 of 2 points" in got["points_inside"][1]
    assert got["wkt_geometry"][0] and got["located"][0]

    # Inside a polygon, but the other district's: the key column ties each point to its own.
    _write_labels(tmp_path, districts.representative_point().values[::-1])
    assert not results(contract, tmp_path)["points_inside"][0]

    _write_labels(tmp_path, districts.representative_point().values, crs=31256)  # a projected grid
    got = results(contract, tmp_path)
    assert not got["wkt_geometry"][0] and "not lon/lat" in got["wkt_geometry"][1]
    assert not got["located"][0] and not got["points_inside"][0]


def test_an_exported_layer_as_lonlat_wkt_in_a_named_column(tmp_path):
    parks = gpd.GeoDataFrame(
        {"park_id": ["a", "b"], "park_class": ["x", "y"]},
        geometry=[box(-74.0, 40.70, -73.99, 40.71), box(-73.95, 40.75, -73.94, 40.76)],
        crs=4326,
    ).to_crs(2263)  # US feet
    parks.to_file(tmp_path / "parks.gpkg", layer="parks")
    request = (
        "Export parks.gpkg to parks_wkt.csv: park_id, park_class and the outline as WKT in a column "
        "called wkt, converted to WGS84 lon/lat."
    )
    contract = derive_contract(request, ["parks_wkt.csv"], input_facts(tmp_path, ["parks.gpkg"]))
    kinds = {r.kind: r for r in contract.requirements if r.checkable}
    assert kinds["wkt_geometry"].params == {"name": "wkt", "lonlat": True}

    def written(frame, column="wkt"):
        out = pd.DataFrame({"park_id": frame.park_id, "park_class": frame.park_class})
        out[column] = frame.geometry.to_wkt()
        out.to_csv(tmp_path / "parks_wkt.csv", index=False)
        return results(contract, tmp_path)

    assert all(passed for passed, _ in written(parks.to_crs(4326)).values())
    in_feet = written(parks)
    assert not in_feet["wkt_geometry"][0] and not in_feet["located"][0]
    missing = written(parks.to_crs(4326), column="geometry")
    assert not missing["wkt_geometry"][0] and "`wkt` is not in the file" in missing["wkt_geometry"][1]


def test_wkt_of_another_crs_or_said_of_no_output_adds_no_lonlat_reading(tmp_path):
    _districts().to_file(tmp_path / "districts.geojson")
    facts = input_facts(tmp_path, ["districts.geojson"])
    grid = derive_contract(
        "districts.csv with code and the outline as WKT in a column called wkt, in EPSG:31256 (not lon/lat).",
        ["districts.csv"],
        facts,
    )
    said = [r for r in grid.requirements if r.kind == "wkt_geometry"]
    assert said and not said[0].params.get("lonlat")
    assert not any(r.kind == "located" for r in grid.requirements)
    plain = derive_contract(
        "districts.csv with code and label, in longitude/latitude order. A plain table: no WKT.",
        ["districts.csv"],
        facts,
    )
    assert not any(r.kind in ("wkt_geometry", "located", "points_inside") for r in plain.requirements)
    pd.DataFrame({"code": ["d1"], "wkt_geom": ["POINT (16.3 48.2)"]}).to_csv(tmp_path / "sites.csv", index=False)
    facts = input_facts(tmp_path, ["sites.csv"])
    for request in (
        "sites.csv keeps its geometry in WKT; write sites_lonlat.csv with code, lon and lat (WGS84).",
        "Copy sites.csv to sites_lonlat.csv and drop the WKT column, adding lon/lat columns instead.",
    ):
        contract = derive_contract(request, ["sites_lonlat.csv"], facts)
        assert not any(r.kind in ("wkt_geometry", "located") for r in contract.requirements), request


def test_a_csv_inputs_lonlat_wkt_gives_its_place(tmp_path):
    pd.DataFrame({"cid": [1, 2], "wkt_geom": ["POINT (18.4 -33.9)", "POINT (18.6 -34.0)"]}).to_csv(
        tmp_path / "clinics.csv", index=False
    )
    pd.DataFrame({"cid": [1], "wkt_geom": ["POINT (500000 6200000)"]}).to_csv(tmp_path / "utm.csv", index=False)
    facts = input_facts(tmp_path, ["clinics.csv", "utm.csv"])
    assert facts["clinics.csv"]["bounds_wgs84"] == [18.4, -34.0, 18.6, -33.9]
    assert "bounds_wgs84" not in facts["utm.csv"]  # WKT has no CRS: only lon/lat ranges say where it is

    contract = derive_contract(
        "Turn clinics.csv into clinics.geojson, one point per clinic built from the wkt_geom column (lon/lat).",
        ["clinics.geojson"],
        {"clinics.csv": facts["clinics.csv"]},
    )
    assert any(r.kind == "located" and r.checkable for r in contract.requirements)
    right = gpd.GeoDataFrame({"cid": [1, 2]}, geometry=[Point(18.4, -33.9), Point(18.6, -34.0)], crs=4326)
    right.to_file(tmp_path / "clinics.geojson")
    assert results(contract, tmp_path)["located"][0]
    swapped = right.set_geometry(right.geometry.map(lambda p: Point(p.y, p.x)), crs=4326)
    swapped.to_file(tmp_path / "clinics.geojson")
    assert not results(contract, tmp_path)["located"][0]


def test_the_checker_reads_one_wkt_column_as_the_tables_geometry():
    table = pd.DataFrame({"id": [1, 2, 3], "geometry": ["POINT (1 2)", None, "POINT (3 4)"]})
    view = HELPER._contract_wkt_view(table)
    assert view.crs.to_epsg() == 4326 and view.geometry.name == "geometry" and list(view.columns) == ["id", "geometry"]
    assert view.geometry.isna().tolist() == [False, True, False]
    assert HELPER._contract_wkt_view(table.assign(geometry=["POINT (1e6 2)", None, "POINT (3 4)"])).crs is None
    two = table.assign(other=["POINT (0 0)"] * 3)
    assert HELPER._contract_wkt_view(two) is two  # two WKT columns: which is the geometry is not known
