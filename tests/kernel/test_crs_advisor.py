"""The CRS advisor of the in-kernel helper (issue 17), on real pyproj and the EPSG database.

Small layers around eight places, some in lon/lat and some in their own projected CRS, ask for
a CRS for areas, distances, a web map and the official grid. The checks are independent of the
advisor's code: containment and units come from pyproj's CRS, the family from the method name.
"""

from __future__ import annotations

import json

import geopandas as gpd
import pytest
from pyproj import CRS
from shapely.geometry import box

from geoagent_ext.kernel.inkernel import load
from tests.kernel.crs_regions import REGIONS, region_layer

helper = load()

OFFICIAL = {
    "paris": {2154},
    "london": {27700},
    "tokyo": set(range(6669, 6688)),  # JGD2011 / Japan Plane Rectangular CS I..XIX
    "cape_town": set(range(2046, 2056)),  # Hartebeesthoek94 / Lo15..Lo33
    "new_york": {2263, 32118},  # NAD83 / New York Long Island (ftUS, m)
    "fiji": {3460},
}

EQUAL_AREA = ("Equal Area", "Equal Earth", "Mollweide", "Sinusoidal")
CONFORMAL = ("Transverse Mercator", "Lambert Conic Conformal", "Stereographic", "Oblique Mercator", "Krovak")


@pytest.fixture(scope="module", autouse=True)
def layers():
    """The layers live in the namespace the helper reads (``__main__`` outside IPython)."""
    ns = helper._ns()
    names = []
    for name in REGIONS:
        ns[f"layer_{name}"] = region_layer(name)
        names.append(f"layer_{name}")
    ns["layer_nocrs"] = gpd.GeoDataFrame(geometry=[box(2, 48, 3, 49)])
    ns["layer_empty"] = gpd.GeoDataFrame(geometry=[], crs="EPSG:4326")
    ns["not_a_layer"] = [1, 2, 3]
    names += ["layer_nocrs", "layer_empty", "not_a_layer"]
    yield
    for n in names:
        ns.pop(n, None)


def contains(aou, data):
    """Does an area of use [w, s, e, n] contain the data box (both may cross the antimeridian)?"""
    aw, as_, ae, an = aou
    dw, ds, de, dn = data
    if ae < aw:
        ae += 360.0
    if de < dw:
        de += 360.0
    if not (as_ <= ds and dn <= an):
        return False
    return ae - aw >= 359.9 or any(aw <= dw + k and de + k <= ae for k in (-360.0, 0.0, 360.0))


def check_hemisphere(entry, data):
    """Never a CRS centred on the other hemisphere: its latitudes of origin share the data's sign."""
    lat = (data[1] + data[3]) / 2
    crs = CRS.from_epsg(entry["epsg"])
    for p in crs.coordinate_operation.params:
        if p.name.startswith("Latitude of") and abs(p.value) >= 45 and abs(lat) >= 20:
            assert (p.value > 0) == (lat > 0), (entry["why"], p.name, p.value)
    s, n = entry["area_of_use"]["bounds"][1], entry["area_of_use"]["bounds"][3]
    assert s <= lat <= n, entry["why"]


@pytest.mark.parametrize("name", list(REGIONS))
@pytest.mark.parametrize("purpose", ["area", "distance"])
def test_first_answer_fits_the_data(name, purpose):
    data = REGIONS[name][0]
    answer = helper.advise_layer(f"layer_{name}", purpose)
    assert isinstance(answer, list) and answer, answer
    for entry in answer:
        assert set(entry) >= {"epsg", "name", "area_of_use", "method", "units", "why"}
        assert isinstance(entry["epsg"], int) and entry["why"].startswith(f"EPSG:{entry['epsg']} ")
        assert "\n" not in entry["why"]
        check_hemisphere(entry, data)
    first = answer[0]
    crs = CRS.from_epsg(first["epsg"])
    assert crs.is_projected and not crs.is_deprecated
    assert contains(crs.area_of_use.bounds, data), (name, first["why"], crs.area_of_use.bounds)
    assert all(a.unit_name == "metre" for a in crs.axis_info), first["why"]
    assert first["method"] == crs.coordinate_operation.method_name
    w, s, e, n = crs.area_of_use.bounds
    local = ((e - w) % 360 or 360) <= 15 and n - s <= 15
    if purpose == "area":
        assert any(k in first["method"] for k in EQUAL_AREA) or local, first["why"]
        assert "Spherical" not in first["method"]
    else:
        assert any(k in first["method"] for k in CONFORMAL), first["why"]


@pytest.mark.parametrize("name", sorted(OFFICIAL))
def test_official_grid_in_top_three(name):
    answer = helper.advise_layer(f"layer_{name}", "official")
    codes = [e["epsg"] for e in answer]
    assert OFFICIAL[name] & set(codes), (name, codes)
    assert "official" in answer[0]["why"]


def test_the_official_grid_is_also_first_for_distance_where_it_fits():
    assert helper.advise_layer("layer_paris", "distance")[0]["epsg"] == 2154
    assert helper.advise_layer("layer_london", "distance")[0]["epsg"] == 27700
    assert helper.advise_layer("layer_tokyo", "distance")[0]["epsg"] == 6677  # zone IX: Tokyo-to
    assert helper.advise_layer("layer_cape_town", "distance")[0]["epsg"] == 2048  # Lo19
    assert helper.advise_layer("layer_new_york", "distance")[0]["epsg"] == 32118  # metres before ftUS


def test_london_is_not_given_the_french_grid():
    """France's area of use is a box that reaches 51.56 N: London sits on its rim."""
    codes = [e["epsg"] for e in helper.advise_layer("layer_london", "official")]
    assert 2154 not in codes


def test_polar_data_gets_its_own_hemisphere():
    north = helper.advise_layer("layer_svalbard", "area")
    assert north[0]["epsg"] in {3571, 3572, 3573, 3574, 3575, 3576, 6931}, north[0]["why"]
    south = helper.advise_layer("layer_antarctica", "area", limit=5)
    assert south[0]["epsg"] in {6932, 3031, 3976}, south[0]["why"]
    for entry in helper.advise_layer("layer_antarctica", "distance", limit=10):
        assert entry["area_of_use"]["bounds"][1] < 0, entry["why"]


@pytest.mark.parametrize(
    "bounds",
    [
        [177.0, -18.5, -179.5, -16.0],  # west > east
        [177.0, -18.5, 180.5, -16.0],  # 0..360 longitudes
    ],
)
def test_antimeridian_lonlat_boxes(bounds):
    answer = helper.advise_crs(bounds, "EPSG:4326", "distance")
    assert answer[0]["epsg"] == 3460, answer[0]["why"]
    area = helper.advise_crs(bounds, 4326, "area")
    assert contains(CRS.from_epsg(area[0]["epsg"]).area_of_use.bounds, REGIONS["fiji"][0])


def test_antimeridian_layer_split_in_two_parts_is_narrow():
    """The Fiji layer in lon/lat has total bounds -180..180; its vertices say it is 3.5 degrees wide."""
    assert list(helper._ns()["layer_fiji"].total_bounds[[0, 2]]) == [-180.0, 180.0]
    assert helper.advise_layer("layer_fiji", "official")[0]["epsg"] == 3460
    projected = helper._ns()["layer_fiji"].to_crs(3460)
    assert helper.advise_layer(projected, "distance")[0]["epsg"] == 3460


def test_display_and_same():
    display = helper.advise_layer("layer_tokyo", "display")
    assert [e["epsg"] for e in display] == [3857, 4326]
    same = helper.advise_layer("layer_new_york", "same")
    assert same[0]["epsg"] == 2263 and "own CRS" in same[0]["why"] and "not metres" in same[0]["why"]
    same_ll = helper.advise_layer("layer_tokyo", "same")
    assert same_ll[0]["epsg"] == 4326 and "not to measure" in same_ll[0]["why"]
    assert same_ll[1]["units"] == "metre"


def test_synonyms_and_limit():
    assert helper.advise_layer("layer_paris", "buffer", limit=1)[0]["epsg"] == 2154
    assert len(helper.advise_layer("layer_paris", "nearest", limit=5)) == 5


def test_geojson_and_geoparquet_paths(tmp_path):
    frame = region_layer("paris").to_crs(4326)
    gj, pq = tmp_path / "paris.geojson", tmp_path / "paris.parquet"
    frame.to_file(gj)
    frame.to_parquet(pq)
    for path in (gj, pq):
        answer = helper.advise_layer(str(path), "distance")
        assert answer[0]["epsg"] == 2154, answer
        area = helper.advise_layer(str(path), "area")
        assert contains(CRS.from_epsg(area[0]["epsg"]).area_of_use.bounds, REGIONS["paris"][0])
    region_layer("fiji").to_file(tmp_path / "fiji.gpkg")
    assert helper.advise_layer(str(tmp_path / "fiji.gpkg"), "distance")[0]["epsg"] == 3460


def test_advise_all_reads_once_and_answers_every_purpose():
    out = helper.advise_all("layer_cape_town")
    assert set(out) == {"area", "distance", "display", "official"}
    assert out["official"][0]["epsg"] == 2048
    bad = helper.advise_all("layer_nocrs", ["area", "distance"])
    assert set(bad) == {"area", "distance"} and all(isinstance(v, str) for v in bad.values())
    raw = helper.advise_all({"bounds": [2.25, 48.8, 2.42, 48.9], "crs": "EPSG:4326"}, ["official"])
    assert raw["official"][0]["epsg"] == 2154


def test_bad_inputs_answer_in_words(tmp_path):
    empty_file = tmp_path / "empty.geojson"
    empty_file.write_text('{"type": "FeatureCollection", "features": []}')
    nocrs_file = tmp_path / "nocrs.shp"  # a shapefile without .prj (GeoJSON is lon/lat by definition)
    with pytest.warns(UserWarning, match="crs"):
        gpd.GeoDataFrame(geometry=[box(2, 48, 3, 49)]).to_file(nocrs_file)
    garbage = tmp_path / "garbage.geojson"
    garbage.write_text("not json at all")
    cases = {
        "layer_nocrs": "no CRS",
        "layer_empty": "empty",
        "not_a_layer": "not a GeoDataFrame",
        "no_such_thing": "neither a variable",
        str(tmp_path / "missing.shp"): "neither a variable",
        str(empty_file): "no features",
        str(garbage): "could not read",
    }
    for arg, words in cases.items():
        answer = helper.advise_layer(arg, "area")
        assert isinstance(answer, str) and words in answer, (arg, answer)
    nocrs = helper.advise_layer(str(nocrs_file), "area")
    assert isinstance(nocrs, str) and "no CRS" in nocrs and "EPSG:4326 is likely" in nocrs
    assert "no CRS" in helper.advise_crs([0, 0, 1, 1], None, "area")
    assert "empty" in helper.advise_crs([float("nan")] * 4, 4326, "area")
    assert "does not understand" in helper.advise_crs([2, 48, 3, 49], "EPSG:99999", "area")
    assert "unknown purpose" in helper.advise_crs([2, 48, 3, 49], 4326, "bogus")
    assert "probably wrong" in helper.advise_crs([600000, 6800000, 700000, 6900000], 4326, "area")
    assert "[minx, miny, maxx, maxy]" in helper.advise_crs("oops", 4326, "area")


def test_through_the_json_entry_point():
    payload = json.dumps({"path_or_name": "layer_london", "purpose": "official", "limit": 2})
    value = helper.call(helper.VERSION, "advise_layer", payload).value["v"]
    assert [e["epsg"] for e in value][0] == 27700 and len(value) == 2
    payload = json.dumps({"bounds": [139.6, 35.6, 139.85, 35.75], "crs": "EPSG:4326", "purpose": "area"})
    assert helper.call(helper.VERSION, "advise_crs", payload).value["v"][0]["units"] == "metre"


def test_a_utm_zone_in_all_but_name_and_a_newer_datum_first():
    """MGA zones are UTM zones on GDA (found from the CRS's parameters, not its name)."""
    sydney = helper.advise_crs([151.1, -33.95, 151.3, -33.8], "EPSG:4326", "distance")
    assert sydney[0]["epsg"] == 7856 and "UTM zone" in sydney[0]["why"]  # GDA2020 / MGA zone 56
    rio = helper.advise_crs([-43.3, -23.0, -43.1, -22.85], "EPSG:4326", "distance")
    assert rio[0]["epsg"] == 31983  # SIRGAS 2000 / UTM zone 23S before SIRGAS 1995 and SAD69


def test_a_wrong_crs_on_the_data_is_pointed_out():
    frame = gpd.GeoDataFrame(geometry=[box(2.25, 48.8, 2.42, 48.9)], crs="EPSG:4326").to_crs(2154)
    mislabelled = frame.set_crs(27700, allow_override=True)  # Lambert-93 numbers called British National Grid
    same = helper.advise_layer(mislabelled, "same")
    assert same[0]["epsg"] == 27700 and "may be wrong" in same[0]["why"]


def test_continental_extents_warn_that_no_projection_keeps_lengths():
    usa = helper.advise_crs([-125, 24, -66, 49.5], "EPSG:4326", "distance")
    assert "geodesics" in usa[0]["why"] and usa[0]["epsg"] != 3857
    world = helper.advise_crs([-180, -90, 180, 90], "EPSG:4326", "area")
    assert any(k in world[0]["method"] for k in EQUAL_AREA)


def test_an_official_grid_still_answers_when_offshore_data_spills_over_its_area_of_use():
    # Survey lines from 170.5E across the antimeridian: Fiji's grid is drawn around the islands (176.8E...).
    first = helper.advise_crs([170.5, -18.5, -178.5, -16.5], "EPSG:4326", "official")[0]
    assert first["epsg"] == 3460, first["why"]
    # Where an official grid holds the whole data, a neighbouring zone that only spills is not offered.
    cape = helper.advise_crs([18.3, -34.1, 18.6, -33.8], "EPSG:4326", "official", limit=3)
    assert 2047 not in [c["epsg"] for c in cape]
