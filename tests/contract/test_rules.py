"""The contract's rules read requirements from the request's own words, and only those."""

from __future__ import annotations

from geoagent_ext.contract import derive_contract


def kinds(contract, output=None):
    return {
        (
            r.kind,
            tuple(sorted(r.params.get("names") or r.params.get("allowed") or []))
            if r.kind in ("columns", "layers", "geometry_types", "values_in")
            else r.params.get("name") or r.params.get("epsg") or r.params.get("input"),
        )
        for r in contract.requirements
        if output is None or r.output == output
    }


def test_columns_keys_and_what_their_names_say():
    c = derive_contract("Write `stats.json` with keys `count`, `bbox_wgs84` and `area_km2`.", ["stats.json"])
    got = kinds(c)
    assert ("columns", ("area_km2", "bbox_wgs84", "count")) in got
    assert ("integer", "count") in got and ("lonlat", "bbox_wgs84") in got and ("bbox", "bbox_wgs84") in got
    assert ("non_negative", "area_km2") in got
    assert c.requirements[0].kind == "exists"


def test_plain_words_count_as_columns_only_in_a_list_of_input_columns():
    inputs = {"admin.geojson": {"rows": 5, "columns": ["id", "name", "kind"]}}
    c = derive_contract(
        "Write the result to `areas.csv`, with one row per feature containing its id, name, and "
        "area_km2. The kind of feature does not matter.",
        ["areas.csv"],
        inputs,
    )
    cols = next(r for r in c.requirements if r.kind == "columns")
    assert cols.params["names"] == ["id", "name", "area_km2"]


def test_crs_phrases():
    one = derive_contract("Convert it to `a.geoparquet`: Point geometry in EPSG:4326.", ["a.geoparquet"])
    assert ("crs_epsg", 4326) in kinds(one) and ("geometry_types", ("Point",)) in kinds(one)
    grid = derive_contract("Reproject the lines to the country's national grid and write `b.geojson`.", ["b.geojson"])
    assert any(r.kind == "crs_projected_metres" for r in grid.requirements)
    # A CSV has no CRS to check; an EPSG code naming the input is no requirement of the output.
    csv = derive_contract(
        "Read `in.geojson` (EPSG:3857) and write `c.csv` with columns `a`, `b`.",
        ["c.csv"],
        {"in.geojson": {"rows": 3, "columns": ["a"]}},
    )
    assert not any(r.kind.startswith("crs") for r in csv.requirements)


def test_negated_geometry_types_and_single_part():
    c = derive_contract(
        "Give me each transect as one MultiLineString feature in `t.geojson`. Every feature must be a "
        "MultiLineString, so do not leave any as plain LineString.",
        ["t.geojson"],
    )
    geo = [r for r in c.requirements if r.kind == "geometry_types"]
    assert len(geo) == 1 and geo[0].params["allowed"] == ["MultiLineString"]
    single = derive_contract(
        "Write `h.gpkg` with layers named `points`, `lines`, and `polygons`; every feature has to "
        "be single-part, keeping the `site_id` on every feature.",
        ["h.gpkg"],
        {"sites.geojson": {"rows": 9, "columns": ["site_id"]}},
    )
    got = kinds(single)
    assert ("layers", ("lines", "points", "polygons")) in got
    assert ("columns", ("site_id",)) in got and ("values_from_input", "site_id") in got
    assert "MultiPolygon" not in next(r for r in single.requirements if r.kind == "geometry_types").params["allowed"]


def test_rows_keys_sorting_and_allowed_values():
    inputs = {
        "addresses.parquet": {"rows": 120, "columns": ["address_id", "street"]},
        "hospitals.parquet": {"rows": 9, "columns": ["name"]},
    }
    c = derive_contract(
        "For every address in `addresses.parquet`, find the nearest hospital from `hospitals.parquet`. "
        "Keep the original `address_id`, and make sure `nearest_name` comes through as a non-empty string. "
        "Write `out.gpkg` with one feature per input address.",
        ["out.gpkg"],
        inputs,
    )
    got = kinds(c)
    assert ("rows_as_input", "addresses.parquet") in got
    assert ("non_empty", "nearest_name") in got and ("values_from_input", "address_id") in got
    rows = next(r for r in c.requirements if r.kind == "rows_as_input")
    assert rows.params["rows"] == 120
    s = derive_contract("Write `d.csv` with `code` (integer) and `label`. Sort rows by `code` descending.", ["d.csv"])
    assert ("sorted", "code") in kinds(s) and ("integer", "code") in kinds(s)
    assert next(r for r in s.requirements if r.kind == "sorted").params["descending"] is True
    v = derive_contract(
        "Write `p.geojson` with a `source` attribute whose value is exactly one of `a`, `b`, or `both`.", ["p.geojson"]
    )
    assert ("values_in", ("a", "b", "both")) in kinds(v)
    assert ("columns", ("source",)) in kinds(v)


def test_nothing_the_request_did_not_say():
    c = derive_contract(
        "Fix the encoding of `x.geojson` and write `y.geojson`.",
        ["y.geojson"],
        {"x.geojson": {"rows": 4, "columns": ["name"]}},
    )
    # What mending a file means, and no more: the same file, its columns still there.
    assert [(r.kind, r.params.get("names")) for r in c.requirements] == [("exists", None), ("columns", ["name"])]


def test_sentences_naming_only_inputs_bind_no_output():
    c = derive_contract(
        "The lines in `in.geojson` are in EPSG:4326. Write `out.geojson`.",
        ["out.geojson"],
        {"in.geojson": {"rows": 2, "columns": []}},
    )
    assert not any(r.kind == "crs_epsg" for r in c.requirements)


def test_provenance_says_which_columns_are_carried_joined_or_computed():
    inputs = {
        "addresses.parquet": {"rows": 3, "columns": ["address_id"]},
        "hospitals.parquet": {"rows": 2, "columns": ["name", "beds"]},
    }
    c = derive_contract(
        "Write `near.csv` with columns `address_id`, `hospital_name`, `distance_m` and `bbox_minx`.",
        ["near.csv"],
        inputs,
    )
    cols = next(r for r in c.requirements if r.kind == "columns")
    source = cols.params["provenance"]
    assert source["address_id"] == "from `addresses.parquet`"
    assert "`name` column of `hospitals.parquet`" in source["hospital_name"]
    assert "distance in a metric CRS" in source["distance_m"] and "geometry.bounds" in source["bbox_minx"]
    assert "geometry.bounds" in cols.text  # the planner and the coder read it


def test_only_measures_must_be_non_negative():
    c = derive_contract("Write `p.csv` with columns `length_m`, `area_ha` and `elevation_m`.", ["p.csv"])
    assert {r.params["name"] for r in c.requirements if r.kind == "non_negative"} == {"length_m", "area_ha"}


def test_a_list_after_with_names_the_columns():
    inputs = {"data/districts.geojson": {"rows": 23, "columns": ["district_code", "name"]}}
    c = derive_contract(
        "Count the stations per district and write `outputs/summary.csv` with district_code, "
        "district_name, area_km2 and station_count, sorted by district_code.",
        ["outputs/summary.csv"],
        inputs,
    )
    cols = next(r for r in c.requirements if r.kind == "columns")
    assert cols.params["names"] == ["district_code", "district_name", "area_km2", "station_count"]
    assert any(r.kind == "sorted" and r.params["name"] == "district_code" for r in c.requirements)


def test_a_user_requirement_in_plural_words_is_still_checked():
    from geoagent_ext.contract import user_requirement

    [req] = user_requirement("p.csv", "`area_ha` holds integers")
    assert req.kind == "integer" and req.params["name"] == "area_ha" and req.origin == "user"


def test_defects_found_in_the_input_data_become_requirements_of_spatial_outputs():
    """Not from the request's words: a defect the input's geometries have must not reach a
    deliverable. Antimeridian jumps bind every spatial output (lon/lat only outside GeoJSON);
    RFC 7946 winding binds GeoJSON only; a table and a clean input get neither."""
    facts = {"lines.geojson": {"rows": 5, "columns": ["id"], "defects": {"antimeridian": 2, "winding": 3}}}
    c = derive_contract(
        "Fix `lines.geojson` and write `a.geojson`, `b.gpkg` and `c.csv`.", ["a.geojson", "b.gpkg", "c.csv"], facts
    )
    got = {(r.output, r.kind): r for r in c.requirements if r.kind in ("antimeridian_cut", "rfc7946_winding")}
    assert set(got) == {
        ("a.geojson", "antimeridian_cut"),
        ("b.gpkg", "antimeridian_cut"),
        ("a.geojson", "rfc7946_winding"),
    }
    assert got["a.geojson", "antimeridian_cut"].params == {"lonlat_only": False}
    assert got["b.gpkg", "antimeridian_cut"].params == {"lonlat_only": True}
    assert "2 in `lines.geojson`" in got["a.geojson", "antimeridian_cut"].text
    clean = derive_contract(
        "Fix `lines.geojson` and write `a.geojson`.",
        ["a.geojson"],
        {"lines.geojson": {"rows": 5, "columns": ["id"], "defects": {}}},
    )
    assert {r.kind for r in clean.requirements} == {"exists", "columns"}  # no defect: only the mended copy's columns


def test_geometry_hygiene_templates_one_per_noun_and_either():
    facts = {
        "parcels.geojson": {"rows": 9, "columns": ["parcel_id", "seq"], "layers": 1},
        "delivery.gpkg": {"rows": None, "columns": [], "layers": 3},
    }
    c = derive_contract(
        "Clean `parcels.geojson` so there is one canonical record per parcel, and write `clean.geojson`. "
        "There should be no null or empty geometries, no invalid geometries and no duplicate geometries.",
        ["clean.geojson"],
        facts,
    )
    got = kinds(c)
    # valid: the invalid input features repaired, each parcel_id kept (not dropped); unique: one copy
    # of each set of the input's features sharing a geometry kept
    assert {
        ("unique", "parcel_id"),
        ("geometries_present", None),
        ("geometries_valid", "parcels.geojson"),
        ("geometries_unique", "parcels.geojson"),
    } <= got
    c = derive_contract(
        "Walk every layer of `delivery.gpkg` and write one row per layer to `audit.csv` with columns layer_name, "
        "declared_crs (formatted as `EPSG:NNNN`), day (given as `YYYY-MM-DD`) and encoding_detected. For "
        "encoding_detected, look at the text and report either `latin1-mojibake` or `utf-8`.",
        ["audit.csv"],
        facts,
    )
    by_kind = {r.kind: r.params for r in c.requirements if r.kind in ("rows_as_input", "pattern", "values_in")}
    assert by_kind["rows_as_input"] == {"input": "delivery.gpkg", "rows": 3}
    assert by_kind["values_in"] == {"name": "encoding_detected", "allowed": ["latin1-mojibake", "utf-8"]}
    patterns = {r.params["name"]: r.params["regex"] for r in c.requirements if r.kind == "pattern"}
    assert patterns == {"declared_crs": r"EPSG:\d+", "day": r"\d{4}\-\d{2}\-\d{2}"}
    # Said without negation, or about something else: nothing.
    c = derive_contract(
        "Find the invalid geometries in `parcels.geojson` and write them to `bad.geojson`.", ["bad.geojson"], facts
    )
    assert "geometries_valid" not in {r.kind for r in c.requirements}


def test_the_coder_is_told_up_front_how_to_meet_a_data_defect_requirement():
    from geoagent_ext.contract.advice import coder_view

    facts = {"lines.geojson": {"rows": 3, "columns": ["id"], "defects": {"antimeridian": 2}}}
    c = derive_contract("Fix `lines.geojson` and write `a.geojson` keeping the `id`.", ["a.geojson"], facts)
    view = coder_view(c)
    cut = next(line for line in view.splitlines() if "antimeridian" in line)
    assert "RFC7946='YES'" in cut  # the how, before any failed check
    assert "How:" not in c.text() and view.count("How:") == 1  # the user's and planner's view stay short
    wkt = {"t.csv": {"rows": 3, "columns": ["id", "wkt"], "defects": {"wkt_text": ["wkt"]}}}
    view = coder_view(derive_contract("Turn `t.csv` into `a.gpkg`.", ["a.gpkg"], wkt))
    assert "gdf.drop(columns=['wkt'])" in next(line for line in view.splitlines() if "WKT text" in line)


def test_a_measure_with_its_unit_in_the_name_is_checked_against_the_geometry():
    polygons = {"parcels.geojson": {"rows": 3, "columns": ["pid"], "geometry_type": "MultiPolygon,Polygon"}}
    request = "Write `a.csv` with `pid`, `area_km2`, `area_ha`, `length_km2` and `distance_m` from `parcels.geojson`."
    measured = {
        r.params["name"]: r
        for r in derive_contract(request, ["a.csv"], polygons).requirements
        if r.kind == "measure_units"
    }
    assert sorted(measured) == ["area_ha", "area_km2"]  # a length in km² is no unit; a distance needs another layer
    assert measured["area_km2"].params == {
        "name": "area_km2",
        "measure": "area",
        "unit": "km2",
        "input": "parcels.geojson",
    }
    assert "area in km²" in measured["area_km2"].text
    # Points have no area to check against; of two polygon layers it is open which one is measured.
    points = {"parcels.geojson": {"rows": 3, "columns": ["pid"], "geometry_type": "Point"}}
    assert "measure_units" not in {r.kind for r in derive_contract(request, ["a.csv"], points).requirements}
    two = {**polygons, "zones.geojson": {"rows": 2, "columns": [], "geometry_type": "Polygon"}}
    assert "measure_units" not in {r.kind for r in derive_contract(request, ["a.csv"], two).requirements}
    # Stations beside the districts: the districts are the one layer with areas.
    beside = {**polygons, "stations.geojson": {"rows": 9, "columns": [], "geometry_type": "Point"}}
    assert {
        r.params["input"] for r in derive_contract(request, ["a.csv"], beside).requirements if r.kind == "measure_units"
    } == {"parcels.geojson"}


def test_a_bbox_of_the_whole_layer_and_a_value_per_group_are_read_from_the_names_and_words():
    facts = {
        "sites.csv": {
            "rows": 4,
            "columns": ["site_id", "area_name", "wkt_geom"],
            "defects": {"wkt_text": ["wkt_geom"]},
        },
        "zones.geojson": {"rows": 3, "columns": ["zone", "label"], "geometry_type": "Polygon"},
    }
    c = derive_contract(
        "From `sites.csv` write `s.json` with `bbox` (the overall bounding box), `count_per_area` and `n_by_zone`.",
        ["s.json"],
        facts,
    )
    by_kind = {r.kind: r.params for r in c.requirements if r.kind in ("bbox", "group_keys")}
    assert by_kind["bbox"] == {"name": "bbox", "input": "sites.csv", "wkt": "wkt_geom"}  # the mend reads it
    groups = [r.params for r in c.requirements if r.kind == "group_keys"]
    assert {"name": "count_per_area", "column": "area_name", "input": "sites.csv", "counts": True} in groups
    assert {"name": "n_by_zone", "column": "zone", "input": "zones.geojson", "counts": True} in groups
    # No "overall", or two layers named: a bbox is only [minx, miny, maxx, maxy]; a CSV's column
    # named "count_per_area" is a column, not an object.
    plain = derive_contract("From `sites.csv` write `s.json` with `bbox` and `count_per_area`.", ["s.json"], facts)
    assert [r.params for r in plain.requirements if r.kind == "bbox"] == [{"name": "bbox"}]
    both = derive_contract(
        "From `sites.csv` and `zones.geojson` write `s.json` with the overall `bbox`.", ["s.json"], facts
    )
    assert [r.params for r in both.requirements if r.kind == "bbox"] == [{"name": "bbox"}]
    table = derive_contract("From `sites.csv` write `s.csv` with `count_per_area`.", ["s.csv"], facts)
    assert not [r for r in table.requirements if r.kind == "group_keys"]


def test_a_sentence_naming_two_outputs_gives_each_its_own_columns():
    """ "Write `clean.gpkg` with no empty geometries, and `audit.csv` with declared_crs": the
    column is the CSV's; the GeoPackage was required to have it too before. Outputs joined by "and"
    before one list share it."""

    def columns(request, outputs):
        return {
            r.output: r.params["names"] for r in derive_contract(request, outputs).requirements if r.kind == "columns"
        }

    assert columns(
        "Write `clean.gpkg` with no empty geometries, and `audit.csv` with `declared_crs`.", ["clean.gpkg", "audit.csv"]
    ) == {"audit.csv": ["declared_crs"]}
    assert columns("Write `a.csv` with `code` and `b.csv` with `name`.", ["a.csv", "b.csv"]) == {
        "a.csv": ["code"],
        "b.csv": ["name"],
    }
    assert columns("Write `a.csv` and `b.csv` with columns `code` and `name`.", ["a.csv", "b.csv"]) == {
        "a.csv": ["code", "name"],
        "b.csv": ["code", "name"],
    }


def _gating(contract, output=None):
    return {
        (
            r.kind,
            r.params.get("epsg")
            or r.params.get("name")
            or tuple(r.params.get("names") or r.params.get("allowed") or ()),
        )
        for r in contract.requirements
        if r.checkable and (output is None or r.output == output)
    }


LAYER = {
    "in.geojson": {
        "rows": 4,
        "columns": ["site_id", "kind"],
        "geometry_type": "Polygon",
        "epsg": 4326,
        "bounds_wgs84": [31.2, 30.0, 31.3, 30.1],
        "values": ["park", "yard"],
    }
}


def test_every_requirement_carries_the_words_it_is_read_from():
    c = derive_contract("Reproject `in.geojson`.\nWrite `out.gpkg` in EPSG:22992 with `site_id`.", ["out.gpkg"], LAYER)
    said = {r.kind: r.said for r in c.requirements}
    assert said["crs_epsg"] == said["columns"] == "Write `out.gpkg` in EPSG:22992 with `site_id`."
    assert all(r.said for r in c.requirements)


def test_a_hand_wrapped_sentence_keeps_its_list_and_a_sentence_of_several_outputs_is_unsure_before_any_is_named():
    c = derive_contract("Write `a.csv` with site_id and\nkind_count for each kind.", ["a.csv"], LAYER)
    assert ("columns", ("site_id", "kind_count")) in _gating(c)
    two = derive_contract("Every feature is a MultiPolygon. Write `a.gpkg` and `b.gpkg`.", ["a.gpkg", "b.gpkg"], LAYER)
    types = [r for r in two.requirements if r.kind == "geometry_types"]
    assert types and not any(r.checkable for r in types)  # which output? not said: shown, never gating


def test_a_type_refused_in_its_own_clause_is_not_asked_for():
    c = derive_contract(
        "Write `t.geojson` with one MultiLineString feature per transect; plain LineString is not acceptable.",
        ["t.geojson"],
        LAYER,
    )
    [types] = [r for r in c.requirements if r.kind == "geometry_types"]
    assert types.params["allowed"] == ["MultiLineString"]
    refused = derive_contract(
        "Write `t.geojson`; a LineString is not acceptable for any feature.", ["t.geojson"], LAYER
    )
    [types] = [r for r in refused.requirements if r.kind == "geometry_types"]
    assert "LineString" not in types.params["allowed"] and "MultiLineString" in types.params["allowed"]


def test_words_that_are_values_types_or_descriptions_are_not_columns():
    c = derive_contract(
        "Write `k.csv` with `site_id` and `kind_total` (its `kind` values, joined), for both "
        "`park` and `yard` features, `site_id` as `int32`.",
        ["k.csv"],
        LAYER,
    )
    [cols] = [r for r in c.requirements if r.kind == "columns"]
    assert cols.params["names"] == ["site_id", "kind_total"]


def test_every_spatial_output_declares_a_crs_and_lies_where_its_inputs_lie():
    c = derive_contract(
        "Write `in.geojson`'s sites to `out.gpkg` and `out.geojson`.", ["out.gpkg", "out.geojson"], LAYER
    )
    assert {"crs_present", "located"} <= {k for k, _ in _gating(c, "out.gpkg")}
    assert {k for k, _ in _gating(c, "out.geojson")} >= {"located"} and ("crs_present", ()) not in _gating(
        c, "out.geojson"
    )
    assert [r.params["bounds"] for r in c.requirements if r.kind == "located"][0] == [31.2, 30.0, 31.3, 30.1]


def test_crs_words_in_the_clauses_that_negate_nothing():
    def crs(sentence):
        c = derive_contract(
            f"From `in.geojson` write `o.gpkg`, {sentence}.",
            ["o.gpkg"],
            {**LAYER, "in.geojson": {**LAYER["in.geojson"], "epsg": 22992}},
        )
        return {
            (r.kind, r.params.get("epsg") or r.params.get("name_has"))
            for r in c.requirements
            if r.kind.startswith("crs_") and r.kind != "crs_present"
        }

    assert crs("in Web Mercator") == {("crs_epsg", 3857)}
    assert crs("in UTM") == {("crs_projected_metres", "UTM")}
    assert crs("kept in the file's own grid (not lat/lon)") == {("crs_epsg", 22992)}
    assert crs("in plain lat/lon") == {("crs_epsg", 4326)}


def test_attributes_kept_whole_and_every_feature_kept():
    kept = derive_contract(
        "Add a `size` column to `in.geojson`, keep every feature with all their attributes, and write `o.gpkg`.",
        ["o.gpkg"],
        LAYER,
    )
    assert ("columns", ("size", "site_id", "kind")) in _gating(kept) and ("rows_as_input", ()) in {
        (k, ()) for k, _ in _gating(kept)
    }
    listed = derive_contract("From `in.geojson` write `o.csv` with columns site_id and n_parts.", ["o.csv"], LAYER)
    assert ("columns", ("site_id", "n_parts")) in _gating(listed)  # "with columns": these, not every input column


def test_geometry_left_alone_but_reprojected_is_an_unsure_reading():
    c = derive_contract("Write `o.gpkg` from `in.geojson` in EPSG:3857; leave the geometry alone.", ["o.gpkg"], LAYER)
    [unchanged] = [r for r in c.requirements if r.kind == "geometry_unchanged"]
    assert not unchanged.checkable
    alone = derive_contract("Write `o.gpkg` from `in.geojson`; don't touch the geometry.", ["o.gpkg"], LAYER)
    assert any(r.kind == "geometry_unchanged" and r.checkable for r in alone.requirements)


def test_orders_said_in_words_sort_by_the_column_they_are_about():
    c = derive_contract(
        "Write `s.csv` with district_code, district_name and area_km2, largest district first.", ["s.csv"], LAYER
    )
    assert ("sorted", "area_km2") in _gating(c)
    assert [r.params["descending"] for r in c.requirements if r.kind == "sorted"] == [True]
    most = derive_contract(
        "`p.csv` with park_class, parks (how many) and hectares, most hectares first.", ["p.csv"], LAYER
    )
    assert {("sorted", "hectares"), ("integer", "parks")} <= _gating(most)
    vague = derive_contract(
        "Write `v.csv` with vessel, transects and last_survey, busiest vessel first.", ["v.csv"], LAYER
    )
    assert not any(r.kind == "sorted" and r.params["name"] == "vessel" for r in vague.requirements)


def test_plain_lists_bullets_and_json_templates_name_columns():
    listed = derive_contract("`landuse.csv`: class, polygons, area_km2.", ["landuse.csv"], LAYER)
    assert ("columns", ("class", "polygons", "area_km2")) in _gating(listed)
    prose = derive_contract("Write `d.csv` with districts and stations.", ["d.csv"], LAYER)
    assert not any(r.kind == "columns" and r.checkable for r in prose.requirements)  # two plain words: maybe prose
    bullets = derive_contract(
        "Summary in `s.json`:\n- buildings: number of buildings\n- total_m2: total area\n- Target: a label",
        ["s.json"],
        LAYER,
    )
    assert ("columns", ("buildings", "total_m2")) in _gating(bullets)
    drawn = derive_contract('Write `h.json` as [{"hospital_id": "...", "name": "..."}, ...].', ["h.json"], LAYER)
    assert ("columns", ("hospital_id", "name")) in _gating(drawn)


def test_a_summary_value_is_not_a_per_feature_measure():
    c = derive_contract("Write `s.json` with keys `total_area_km2` and `area_km2`.", ["s.json"], LAYER)
    measured = {r.params["name"]: r.checkable for r in c.requirements if r.kind == "measure_units"}
    assert "total_area_km2" not in measured and measured.get("area_km2") is False  # JSON: maybe one summary value


def test_a_cleanup_that_speaks_of_no_coordinates_keeps_the_input_crs():
    facts = {"p.geojson": {**LAYER["in.geojson"], "epsg": 22992}}
    clean = derive_contract("Deduplicate `p.geojson` into `clean.gpkg`.", ["clean.gpkg"], facts)
    assert ("crs_epsg", 22992) in _gating(clean)
    measured = derive_contract("Add area_m2 to `p.geojson` into `m.gpkg`.", ["m.gpkg"], facts)
    assert ("crs_epsg", 22992) in _gating(measured)  # already in metres: measured where it is
    in_degrees = {"p.geojson": {**LAYER["in.geojson"], "epsg": 4326}}
    measured = derive_contract("Add area_m2 to `p.geojson` into `m.gpkg`.", ["m.gpkg"], in_degrees)
    assert not any(r.kind == "crs_epsg" for r in measured.requirements)  # measuring may reproject: not decided


def test_attributes_that_must_be_untouched_are_every_input_column():
    c = derive_contract(
        "Fix the rings of `in.geojson`. Attributes must be untouched. Output to `o.geojson`.", ["o.geojson"], LAYER
    )
    assert ("columns", ("site_id", "kind")) in _gating(c)


def test_a_count_per_group_counts_the_rows_of_each_group():
    facts = {"c.csv": {"rows": 3, "columns": ["clinic", "subdistrict"]}}
    c = derive_contract("Write `i.json` with keys `count` and `count_per_subdistrict`.", ["i.json"], facts)
    [grouped] = [r for r in c.requirements if r.kind == "group_keys"]
    assert grouped.params == {
        "name": "count_per_subdistrict",
        "column": "subdistrict",
        "input": "c.csv",
        "counts": True,
    }


def test_every_feature_said_back_dates_as_text_and_no_geometry_wanted():
    facts = {
        "lagos_hex_grid.geojson": {"rows": 7, "columns": ["hex_id"], "geometry_type": "Polygon"},
        "landuse.geojson": {"rows": 9, "columns": ["class"], "geometry_type": "Polygon"},
    }
    c = derive_contract(
        "Count the clinics per hexagon. I want every hexagon back, zeros included, as `h.geojson` "
        "with hex_id and clinics (a whole number).",
        ["h.geojson"],
        facts,
    )
    assert [r.params["input"] for r in c.requirements if r.kind == "rows_as_input"] == ["lagos_hex_grid.geojson"]
    dated = derive_contract(
        "Write `v.json` with keys vessel, transects and last_survey (ISO date, YYYY-MM-DD).", ["v.json"], LAYER
    )
    assert [r.params["regex"] for r in dated.requirements if r.kind == "pattern"] == [r"\d{4}-\d{2}-\d{2}"]
    plain = derive_contract(
        "Write `t.csv` with id, name_th, lon and lat. A plain table: no geometry column, no WKT.", ["t.csv"], LAYER
    )
    assert any(r.kind == "columns" and r.params.get("no_stray") for r in plain.requirements)


def test_the_nearest_distance_of_each_feature_the_request_goes_through():
    facts = {
        "addresses.parquet": {"rows": 5, "columns": ["address_id"], "geometry_type": "Point"},
        "hospitals.parquet": {"rows": 3, "columns": ["hospital_id", "name"], "geometry_type": "Point"},
    }
    request = (
        "For every address in `addresses.parquet`, find the {} hospital in `hospitals.parquet`. Write `n.gpkg` "
        "with address_id, hospital_id and distance_m."
    )
    nearest = derive_contract(request.format("nearest"), ["n.gpkg"], facts)
    [distance] = [r for r in nearest.requirements if r.kind == "nearest_distance"]
    assert (distance.params["input"], distance.params["to"], distance.checkable) == (
        "addresses.parquet",
        "hospitals.parquet",
        True,
    )
    three = derive_contract(request.format("three closest"), ["n.gpkg"], facts)
    assert not any(r.kind == "nearest_distance" for r in three.requirements)  # the 2nd and 3rd are not the nearest


def test_the_json_shape_quoted_layer_names_and_a_sentence_about_the_one_output():
    listed = derive_contract(
        "Export `in.geojson` as a plain JSON list of records, sorted by name. File name: `h.json`.", ["h.json"], LAYER
    )
    assert [r.params["shape"] for r in listed.requirements if r.kind == "json_shape" and r.checkable] == ["list"]
    single = derive_contract(
        "Write `s.json` as a single JSON object: buildings, named_buildings and total_m2.", ["s.json"], LAYER
    )
    assert [r.params["shape"] for r in single.requirements if r.kind == "json_shape"] == ["object"]
    layered = derive_contract(
        'Package `in.geojson` as `p.gpkg` with two layers named "parks" (the parks) and "yards".', ["p.gpkg"], LAYER
    )
    assert ("layers", ("parks", "yards")) in _gating(layered)
    described = derive_contract("`in.geojson` holds sites in degrees. Write `o.csv` with site_id.", ["o.csv"], LAYER)
    assert not any(r.kind == "crs_epsg" for r in described.requirements)  # a sentence describing an input binds nothing


def test_columns_said_to_be_kept_are_required_but_not_the_ones_that_pick_rows():
    inputs = {"cells.geojson": {"rows": 9, "columns": ["hex_id", "kind", "name"]}}
    kept = derive_contract(
        "Reproject cells.geojson to EPSG:3857. Keep hex_id. Write out.geojson.", ["out.geojson"], inputs
    )
    assert ("columns", ("hex_id",)) in kinds(kept)
    carried = derive_contract("Keep every cell with its `name`; write out.csv.", ["out.csv"], inputs)
    assert any(r.kind == "columns" and "name" in r.params["names"] for r in carried.requirements)
    for request in (
        "Keep only the cells whose kind is 'park' and write out.csv.",
        "Keep the cells without a name; write out.csv.",
        "Keep the rows where kind = 'park'; write out.csv.",
        "Keep cells with kind above 3; write out.csv.",
    ):
        picked = derive_contract(request, ["out.csv"], inputs)
        assert not any(
            r.kind == "columns" and {"kind", "name"} & set(r.params["names"]) for r in picked.requirements
        ), request


def test_a_column_described_as_a_number_of_things_holds_whole_counts():
    said = {
        (
            "For each class the number of polygons and their area. Write by_class.csv: class, polygons, area_km2."
        ): "polygons",
        "Count the localities in each county -> out.csv with `county`, `localities`.": "localities",
        'out.json, a JSON list of records [{"district": "...", "clinics": <int>}]': "clinics",
    }
    for request, name in said.items():
        out = "out.json" if "json" in request else ("by_class.csv" if "by_class" in request else "out.csv")
        assert ("integer", name) in kinds(derive_contract(request, [out])), request
    rate = derive_contract(
        "Write out.csv with district, clinics: the number of clinics per 10,000 people.", ["out.csv"]
    )
    assert ("integer", "clinics") not in kinds(rate)
    mean = derive_contract("Write out.csv with district, clinics: the average number of clinics.", ["out.csv"])
    assert ("integer", "clinics") not in kinds(mean)


def test_a_unit_named_column_is_each_features_area_only_when_its_sentence_says_so():
    inputs = {"b.geojson": {"rows": 4, "columns": ["fid"], "geometry_type": "Polygon"}}
    each = derive_contract(
        "Add to b.geojson the floor area of each outline in square metres, column footprint_m2, and save it as "
        "out.geojson.",
        ["out.geojson"],
        inputs,
    )
    assert ("measure_units", "footprint_m2") in kinds(each)
    part = derive_contract(
        "For each outline, the area covered by parks in square metres, column green_m2, saved as out.geojson.",
        ["out.geojson"],
        inputs,
    )
    assert ("measure_units", "green_m2") not in kinds(part)


def test_a_parquet_output_is_spatial_only_where_its_sentence_says_geoparquet():
    inputs = {"h.parquet": {"rows": 3, "columns": ["id"], "geometry_type": "Point"}}
    geo = derive_contract("Hospitals to UTM please, as GeoParquet, out.parquet.", ["out.parquet"], inputs)
    assert geo.outputs[0].format == "geoparquet"
    assert any(r.kind == "crs_projected_metres" for r in geo.requirements)
    plain = derive_contract(
        "`a.geoparquet` is a GeoParquet in UTM. `out.parquet` is a plain Parquet with no geometry, carrying `id`.",
        ["a.geoparquet", "out.parquet"],
        inputs,
    )
    assert plain.outputs[1].format == "parquet"
    assert not any(r.output == "out.parquet" and r.kind in ("crs_present", "located") for r in plain.requirements)


def test_a_list_of_names_after_a_colon_is_the_outputs_columns_only_when_it_looks_like_names():
    listed = derive_contract(
        "Output near.csv, one row per address and rank: address_id, rank (1 = closest), hospital_id, distance_m.",
        ["near.csv"],
    )
    assert ("columns", ("address_id", "distance_m", "hospital_id", "rank")) in kinds(listed)
    prose = derive_contract("Write near.csv. Three things matter: speed, cost and comfort.", ["near.csv"])
    assert not any(r.kind == "columns" for r in prose.requirements)


def test_an_order_binds_a_top_level_json_list_of_records_but_not_a_nested_one():
    top = derive_contract(
        'Write out.json, a JSON list of records [{"district": "...", "clinics": <int>}], most clinics first.',
        ["out.json"],
    )
    assert any(r.kind == "sorted" and r.sure for r in top.requirements)
    nested = derive_contract(
        'Write out.json, one object {"total": <int>, "districts": [{"district": "...", "clinics": <int>}]}, '
        "most clinics first.",
        ["out.json"],
    )
    assert not any(r.kind == "sorted" and r.sure for r in nested.requirements)


def test_adding_a_column_to_the_one_input_is_about_the_one_output():
    inputs = {"b.geojson": {"rows": 4, "columns": ["fid"], "geometry_type": "Polygon"}}
    c = derive_contract(
        "Add a column to b.geojson: the floor area of each outline in square metres, column footprint_m2. "
        "Save it as out.geojson.",
        ["out.geojson"],
        inputs,
    )
    assert ("columns", ("footprint_m2",)) in kinds(c)
    assert ("measure_units", "footprint_m2") in kinds(c)


def test_bound_columns_said_in_degrees_hold_lon_lat():
    said = derive_contract(
        "bounds.csv: for every building its corners as four columns minx, miny, maxx, maxy, in degrees "
        "(longitude/latitude).",
        ["bounds.csv"],
    )
    assert {("lonlat", n) for n in ("minx", "miny", "maxx", "maxy")} <= kinds(said)
    metres = derive_contract(
        "bounds.csv: for every building its corners as four columns minx, miny, maxx, maxy, in metres, not degrees.",
        ["bounds.csv"],
    )
    assert not any(k == "lonlat" for k, _ in kinds(metres))


def test_features_the_request_says_not_to_drop_are_all_kept_unless_it_selects_rows():
    inputs = {"addresses.parquet": {"rows": 40, "columns": ["address_id"]}, "hospitals.parquet": {"rows": 5}}
    for request in (
        "Flag each address: is a hospital within 1.5 km? Write out.csv with `address_id`, `near`. "
        "Don't drop the addresses that have no hospital nearby.",
        "Write out.csv with `address_id` and `dist_m`. Addresses without a hospital nearby stay in the list.",
    ):
        rows = [r for r in derive_contract(request, ["out.csv"], inputs).requirements if r.kind == "rows_as_input"]
        assert [(r.params["input"], r.params["rows"]) for r in rows] == [("addresses.parquet", 40)], request
    selected = derive_contract(
        "Write out.csv with the 3 nearest hospitals per address. Don't drop the addresses without any.",
        ["out.csv"],
        inputs,
    )
    assert not any(r.kind == "rows_as_input" for r in selected.requirements)


def test_rows_selected_by_a_category_or_a_value_are_checked_where_the_output_carries_the_column():
    inputs = {
        "admin.geojson": {
            "rows": 9,
            "columns": ["id", "name", "subtype"],
            "categories": {"subtype": ["county", "locality", "region"]},
            "values": ["county", "locality", "region"],
        }
    }
    subset = derive_contract(
        "Export the counties from admin.geojson, not the localities, to counties.geojson. Keep every attribute.",
        ["counties.geojson"],
        inputs,
    )
    assert ("values_in", ("county",)) in kinds(subset)
    refused = derive_contract(
        "Write admin.geojson to out.geojson with all its attributes, without the localities.", ["out.geojson"], inputs
    )
    assert ("values_in", ("county", "region")) in kinds(refused)
    equals = derive_contract("List the rows (subtype = region) in out.csv with `id`, `subtype`.", ["out.csv"], inputs)
    assert ("values_in", ("region",)) in kinds(equals)
    not_carried = derive_contract("List the rows (subtype = region) in out.csv with `id`, `name`.", ["out.csv"], inputs)
    assert not any(k == "values_in" for k, _ in kinds(not_carried))
    named = derive_contract(
        "Keep the rows of admin.geojson whose name is not empty, with all their attributes, in out.geojson.",
        ["out.geojson"],
        inputs,
    )
    assert ("non_empty", "name") in kinds(named)


def test_a_name_given_in_parentheses_after_column_is_asked_for():
    inputs = {"d.geojson": {"rows": 3, "columns": ["code"], "geometry_type": "Polygon"}}
    c = derive_contract(
        "Add each district's area in hectares (column area_ha) and save as out.geojson.", ["out.geojson"], inputs
    )
    assert ("columns", ("area_ha",)) in kinds(c)
    assert ("measure_units", "area_ha") in kinds(c)
    described = derive_contract("Write out.csv with `code` (the district's code, e.g. d_01).", ["out.csv"], inputs)
    assert ("columns", ("code",)) in kinds(described)


def test_a_list_after_with_its_or_holding_their_is_the_outputs_columns():
    inputs = {"p.geojson": {"rows": 3, "columns": ["pid", "label"], "geometry_type": "Polygon"}}
    c = derive_contract("Write out.csv, one row per parcel, holding their pid, label and area_m2.", ["out.csv"], inputs)
    assert ("columns", ("area_m2", "label", "pid")) in kinds(c)


def test_a_unit_named_column_described_as_the_distance_to_the_nearest_is_that_distance():
    inputs = {
        "homes.geojson": {"rows": 4, "columns": ["home_id"], "geometry_type": "Point"},
        "shops.geojson": {"rows": 2, "columns": ["shop_id"], "geometry_type": "Point"},
    }
    for request in (
        "For every home in homes.geojson find the nearest shop (shops.geojson); write out.csv with `home_id`, "
        "`walk_m` (distance to the closest shop, metres).",
        "For every home in homes.geojson find the nearest shop (shops.geojson); write out.csv with `home_id`, "
        "`nearest_shop_km`.",
    ):
        assert any(r.kind == "nearest_distance" for r in derive_contract(request, ["out.csv"], inputs).requirements)
    other = derive_contract(
        "For every home in homes.geojson find the nearest shop (shops.geojson); write out.csv with `home_id`, "
        "`height_m` (roof height).",
        ["out.csv"],
        inputs,
    )
    assert not any(r.kind == "nearest_distance" for r in other.requirements)


def test_the_same_order_as_the_input_is_checked_by_an_id_both_carry():
    inputs = {"st.geojson": {"rows": 3, "columns": ["station_id", "name"]}}
    c = derive_contract(
        "Reproject st.geojson to EPSG:31256 as out.geojson. Everything else as it is: the same stations, "
        "in the same order, with the same columns.",
        ["out.geojson"],
        inputs,
    )
    order = [r for r in c.requirements if r.kind == "input_order"]
    assert [(r.params["input"], r.params["key"]) for r in order] == [("st.geojson", "station_id")]
    unsaid = derive_contract(
        "Reproject st.geojson to EPSG:31256 as out.geojson, same columns.", ["out.geojson"], inputs
    )
    assert not any(r.kind == "input_order" for r in unsaid.requirements)


def test_a_mended_copy_keeps_every_column_of_its_input():
    inputs = {"in.geojson": {"rows": 4, "columns": ["id", "label", "value", "wkt"], "defects": {"wkt_text": ["wkt"]}}}
    mended = derive_contract(
        "The means from `in.geojson` come out as NaN. Fix whatever breaks the numbers and write `out.geojson`.",
        ["out.geojson"],
        inputs,
    )
    assert ("columns", ("id", "label", "value")) in kinds(mended)  # the WKT copy of the geometry may go
    # Fewer columns or other records said in words: no longer a copy.
    for request in (
        "Fix the numbers in `in.geojson` and write `out.geojson` without the label column.",
        "Clean `in.geojson` and write `out.geojson` with one row per label and the mean value.",
        "Fix `in.geojson`: write `out.geojson` with columns id and value.",
    ):
        assert not any("mended copy" in r.text for r in derive_contract(request, ["out.geojson"], inputs).requirements)


def test_attributes_left_untouched_keeps_every_column():
    c = derive_contract(
        "Fix the rings of `in.geojson` (attributes left untouched) and write `out.geojson`.",
        ["out.geojson"],
        {"in.geojson": {"rows": 4, "columns": ["id", "name"]}},
    )
    assert ("columns", ("id", "name")) in kinds(c)


def test_an_input_already_in_metres_stays_in_its_crs_when_the_request_speaks_of_measures_only():
    def crs_of(request, epsg):
        inputs = {"in.geojson": {"rows": 4, "columns": ["id"], "epsg": epsg}}
        return {
            r.params.get("epsg")
            for r in derive_contract(request, ["out.gpkg"], inputs).requirements
            if r.kind == "crs_epsg"
        }

    request = "Clean up `in.geojson`, drop parts under 1 m² and write `out.gpkg` with area_m2."
    assert crs_of(request, 32633) == {32633}  # measured where it is
    assert crs_of(request, 4326) == set()  # in degrees: a metric CRS to measure in may be kept
    assert crs_of("Clean up `in.geojson` and write `out.gpkg` in lon/lat.", 32633) != {32633}


def test_a_text_column_taken_from_one_input_holds_that_inputs_values():
    inputs = {
        "d.geojson": {"rows": 3, "columns": ["code", "name", "osm_id"], "text_columns": ["name"]},
        "p.geojson": {"rows": 9, "columns": ["pid"]},
    }
    request = "Count the points of `p.geojson` per district of `d.geojson`: `n.csv` with code, name and n_points."
    got = derive_contract(request, ["n.csv"], inputs)
    assert ("values_from_input", "name") in kinds(got)
    renamed = derive_contract(request + " Write the names in upper case.", ["n.csv"], inputs)
    assert ("values_from_input", "name") not in kinds(renamed)  # values the request changes are not the input's


def test_a_zone_around_features_is_a_buffer_and_of_a_selection_is_checked_against_the_chosen_ones():
    facts = {"s.geojson": {"rows": 5, "columns": ["kind"], "geometry_type": "Point"}}
    every = derive_contract(
        "Draw a 100 m protection zone around each site of `s.geojson` into `z.geojson`.", ["z.geojson"], facts
    )
    [zone] = [r for r in every.requirements if r.kind == "buffer_distance"]
    assert zone.sure and zone.params["distance_m"] == 100.0
    some = derive_contract(
        "Draw a 100 m zone around the sites of `s.geojson` whose kind is school, into `z.geojson`.",
        ["z.geojson"],
        facts,
    )
    chosen = next(r for r in some.requirements if r.kind == "buffer_distance")
    assert chosen.sure and chosen.params["selected"] and "selected" not in zone.params


def test_a_crs_asked_of_the_input_is_the_one_outputs():
    facts = {"s.geojson": {"rows": 3, "columns": ["id"], "epsg": 4326}}
    asked = derive_contract("Can I have `s.geojson` in EPSG:31256? `s_gk.geojson`.", ["s_gk.geojson"], facts)
    assert ("crs_epsg", 31256) in kinds(asked)
    told = derive_contract("Here is `s.geojson` in EPSG:4326. Write `s_gk.geojson`.", ["s_gk.geojson"], facts)
    assert ("crs_epsg", 4326) not in kinds(told)  # describing the input asks nothing of the output


def test_validity_asked_in_other_words():
    facts = {"p.geojson": {"rows": 3, "columns": ["id"]}}
    for request in (
        "Make every geometry valid and write `v.gpkg`.",
        "Repair the invalid outlines of `p.geojson` into `v.gpkg`.",
        "Write `v.gpkg` from `p.geojson`. If an outline is invalid, fix it on the way.",
    ):
        assert ("geometries_valid", None) in kinds(derive_contract(request, ["v.gpkg"], facts)), request


def test_geometry_types_left_alone_keep_each_type():
    facts = {"h.geojson": {"rows": 5, "columns": ["id"], "geometry_type": "Point,Polygon,MultiPolygon"}}
    c = derive_contract(
        "Reproject `h.geojson` to EPSG:32636 into `h.gpkg`; points stay points and polygons stay polygons.",
        ["h.gpkg"],
        facts,
    )
    assert ("geometry_types_kept", "h.geojson") in kinds(c)
