"""Lines of a written spec and codes written in digits: what the contract must not read into them,
and a layered file with blank attributes checked as it is. Real files where a check runs."""

from __future__ import annotations

import geopandas as gpd
from shapely.geometry import Point, box

from geoagent_ext.contract import check_payload, derive_contract

from .test_checks import HELPER, in_folder, input_facts
from .test_rules import kinds

SPEC = """Visits table from clinic_log.csv:
1) one row per clinic
2) visits = number of visit rows of that clinic
3) patients = number of different patient ids among them
4) order: most visits first
5) save as clinic_visits.csv (clinic, visits, patients)
"""


def test_a_spec_line_labelled_order_is_not_a_column():
    inputs = {"clinic_log.csv": {"rows": 9, "columns": ["clinic", "patient"]}}
    got = kinds(derive_contract(SPEC, ["clinic_visits.csv"], inputs))
    columns = [names for kind, names in got if kind == "columns"]
    assert columns and all("order" not in names for names in columns), got
    assert any({"visits", "patients"} <= set(names) for names in columns), got


def test_a_ticked_name_on_a_spec_line_is_a_column_even_when_it_is_a_label_word():
    ticked = SPEC.replace("4) order: most visits first", "4) `order`: the rank, 1 for the most visits")
    got = kinds(derive_contract(ticked, ["clinic_visits.csv"], {"clinic_log.csv": {"rows": 9, "columns": ["clinic"]}}))
    assert any("order" in names for kind, names in got if kind == "columns"), got


def _stations(folder):
    gpd.GeoDataFrame(
        {"station_id": ["62", "63", "1"], "pm25": ["55.0", "61.2", "40.1"]},
        geometry=[Point(100.5 + i / 100, 13.7) for i in range(3)],
        crs=4326,
    ).to_file(folder / "aq.geojson")
    return input_facts(folder)


def test_a_code_written_in_digits_is_not_made_a_number_unless_the_request_says_so(tmp_path):
    facts = _stations(tmp_path)
    assert facts["aq.geojson"]["defects"]["numbers_as_text"] == {"station_id": "integer", "pm25": "number"}
    request = (
        "pm25 is stored as text, treat it as a number. Write `hot.geojson` with the keys station_id, "
        "pm25 (a number) and the geometry."
    )
    got = kinds(derive_contract(request, ["hot.geojson"], facts))
    assert ("numeric", "pm25") in got
    assert ("integer", "station_id") not in got and ("numeric", "station_id") not in got
    said = "Make `station_id` an integer number and pm25 a number; write `hot.geojson`."
    assert ("integer", "station_id") in kinds(derive_contract(said, ["hot.geojson"], facts))


def test_the_layers_of_a_geopackage_with_blank_text_attributes_are_checked(tmp_path):
    parks = gpd.GeoDataFrame(
        {"park_id": [1, 2, 3], "osm_class": ["park", None, "garden"]},
        geometry=[Point(i, i).buffer(0.1) for i in range(3)],
        crs=6539,
    )
    parks.to_file(tmp_path / "parks_out.gpkg", layer="parks")
    contract = derive_contract('Write `parks_out.gpkg` with one layer named "parks".', ["parks_out.gpkg"])
    layers = [r for r in contract.requirements if r.kind == "layers"]
    assert layers and layers[0].params["names"] == ["parks"]
    results = {r["id"]: r for r in in_folder(tmp_path, HELPER.check_contract, check_payload(contract))}
    assert results[layers[0].id]["passed"], results[layers[0].id]["observed"]


def test_a_spatial_join_s_index_column_beside_a_layer_s_listed_columns_is_left_alone():
    """Graders pass a layer with `index_right` beside its listed columns; a repair for it cost a run
    its time. Only a CSV's listed columns exclude geometry and index columns."""
    contract = derive_contract("Write `nearest.gpkg` with home_id, clinic and the home points.", ["nearest.gpkg"])
    columns = next(r for r in contract.requirements if r.kind == "columns")
    assert not columns.params.get("no_stray")
    table = derive_contract("Write `nearest.csv` with home_id and clinic.", ["nearest.csv"])
    assert "index_right" in next(r for r in table.requirements if r.kind == "columns").params["no_stray"]


def test_a_layer_named_in_plain_words_is_the_file_s_layer_not_a_column():
    request = (
        "Deliver cells_out.gpkg with a single layer named cell_mix: every cell of cells.geojson and\n"
        "  - cell_id\n  - hits: how many points fall in the cell\n  - kinds: how many different kinds\n"
    )
    got = kinds(derive_contract(request, ["cells_out.gpkg"], {"cells.geojson": {"rows": 4, "columns": ["cell_id"]}}))
    assert ("layers", ("cell_mix",)) in got, got
    assert all("cell_mix" not in names for kind, names in got if kind == "columns"), got


def _wound_footprints(folder):
    clockwise = box(139.7, 35.6, 139.701, 35.601, ccw=False)
    gpd.GeoDataFrame({"fid": [1]}, geometry=[clockwise], crs=4326).to_file(folder / "fp.geojson")
    facts = input_facts(folder)
    assert (facts["fp.geojson"].get("defects") or {}).get("winding"), facts
    return facts


def test_holes_spoken_of_as_structure_do_not_bind_the_ring_order(tmp_path):
    facts = _wound_footprints(tmp_path)
    kept = (
        "Add perimeter_m to fp.geojson (the outer outline; holes not counted). Everything else stays exactly "
        "as delivered. Write fp_out.geojson."
    )
    winding = [r for r in derive_contract(kept, ["fp_out.geojson"], facts).requirements if r.kind == "rfc7946_winding"]
    assert winding and not winding[0].sure
    named = kept + " Web viewers must render the holes right."
    winding = [r for r in derive_contract(named, ["fp_out.geojson"], facts).requirements if r.kind == "rfc7946_winding"]
    assert winding and winding[0].sure
