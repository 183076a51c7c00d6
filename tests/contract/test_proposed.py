"""The model's proposed requirements: parsed from its answer, kept only when the rules can
check them and the request writes what they name; repeats are skipped, contradictions and
what the input data decides are dropped with the reason."""

from __future__ import annotations

from geoagent_ext.contract import derive_contract
from geoagent_ext.contract.proposed import accept_proposals, parse_proposals

REQUEST = (
    "Count the stations of `stations.geojson` per district of `districts.geojson`, write `counts.csv` with "
    "`district` and `n_stations`, busiest at the top, and `districts.gpkg` in EPSG:3035 with the Polygon outlines."
)
OUTPUTS = ["counts.csv", "districts.gpkg"]
INPUTS = {
    "stations.geojson": {"rows": 9, "columns": ["sid"]},
    "districts.geojson": {"rows": 3, "columns": ["district"]},
}


def test_answers_are_read_in_the_shapes_small_models_write():
    text = (
        "Here are the requirements:\n1. `counts.csv`: sorted by `n_stations` descending\n"
        "- districts.gpkg - every feature is a Polygon\n* `other.txt`: whatever\n```\nNONE\n```"
    )
    assert parse_proposals(text, OUTPUTS) == [
        ("counts.csv", "sorted by `n_stations` descending"),
        ("districts.gpkg", "every feature is a Polygon"),
        ("other.txt", "whatever"),
    ]
    assert parse_proposals("- has the column `n_stations`\nNONE", ["counts.csv"]) == [
        ("counts.csv", "has the column `n_stations`")
    ]
    assert parse_proposals("NONE", OUTPUTS) == [] and parse_proposals("- a bare line", OUTPUTS) == []


def test_only_checkable_grounded_new_and_consistent_proposals_are_kept():
    contract = derive_contract(REQUEST, OUTPUTS, INPUTS)
    proposals = [
        ("counts.csv", "sorted by `n_stations` descending"),  # kept: "busiest ... at the top" said it
        ("districts.gpkg", "every feature is a Polygon"),  # geometry types: the rules' (output sentence)
        ("counts.csv", "has the columns `district`, `n_stations`"),  # already required: skipped silently
        ("districts.gpkg", "is in EPSG:3035"),  # already required: skipped
        ("districts.gpkg", "is in EPSG:4326"),  # not in the request
        ("counts.csv", "has the column `area_km2`"),  # a column the request does not name
        ("counts.csv", "only districts with more than 2 stations"),  # an invented filter: no rule reads it
        ("counts.csv", "one row per input district"),  # what the input data decides
        ("summary.json", "has the key `total`"),  # not an output
    ]
    kept, dropped = accept_proposals(proposals, REQUEST, contract, INPUTS)
    assert [(r.id, r.output, r.kind, r.origin) for r in kept] == [("m1", "counts.csv", "sorted", "model")]
    assert kept[0].params == {"name": "n_stations", "descending": True}
    why = dict(dropped)
    assert why["districts.gpkg: is in EPSG:4326"] == "the request does not say 4326"
    assert why["counts.csv: has the column `area_km2`"] == "the request does not say area_km2"
    assert why["counts.csv: only districts with more than 2 stations"] == "not checkable"
    assert why["counts.csv: one row per input district"] == "rows_as_input is decided by the rules, not proposed"
    assert why["districts.gpkg: every feature is a Polygon"] == "geometry_types is decided by the rules, not proposed"
    assert why["summary.json: has the key `total`"] == "summary.json is not an output of this request"
    assert not any("district`, `n_stations`" in said or "EPSG:3035" in said for said, _ in dropped)


def test_a_proposal_contradicting_a_derived_requirement_is_dropped():
    request = "Write `out.csv` sorted by `score` ascending; `score` is the sum, highest first in the report."
    contract = derive_contract(request, ["out.csv"])
    assert [r.params for r in contract.requirements if r.kind == "sorted"] == [{"name": "score", "descending": False}]
    kept, dropped = accept_proposals([("out.csv", "sorted by `score` descending")], request, contract)
    assert kept == [] and dropped == [
        ("out.csv: sorted by `score` descending", "contradicts “rows are sorted by `score` ascending”")
    ]


def test_new_columns_beside_required_ones_are_kept_alone():
    request = "Write `out.csv` with `a`; also list `b` and `c` for each row."
    contract = derive_contract(request, ["out.csv"])
    kept, _ = accept_proposals([("out.csv", "has the columns `a`, `b`, `c`")], request, contract)
    [columns] = [r for r in kept if r.kind == "columns"]
    assert columns.params["names"] == ["b", "c"] and columns.origin == "model"


def test_echoes_sorts_without_a_cue_and_values_read_as_columns_add_nothing():
    """What small models answer: the rules' requirements copied out, a sort of any column the
    request names, the allowed values of a column listed as if they were columns."""
    request = (
        "Write `parks.geojson` with `park_id` and a `source` attribute whose value is one of `osm`, `city` "
        "or `both`; the largest `area_m2` first."
    )
    facts = {"osm.geojson": {"rows": 4, "columns": ["park_id"], "defects": {"antimeridian": 1}}}
    contract = derive_contract(request, ["parks.geojson"], facts)
    echoed = [("parks.geojson", r.text) for r in contract.requirements]
    kept, dropped = accept_proposals(echoed, request, contract, facts)
    assert kept == [] and dropped == []  # the defect rule is not re-derived from every sentence either
    kept, dropped = accept_proposals(
        [
            ("parks.geojson", "sorted by `park_id` descending"),
            ("parks.geojson", "sorted by `area_m2` ascending"),
            ("parks.geojson", "sorted by `area_m2` descending"),
            ("parks.geojson", "has the columns `osm`, `city`, `both`"),
        ],
        request,
        contract,
        facts,
    )
    assert [(r.kind, r.params) for r in kept] == [("sorted", {"name": "area_m2", "descending": True})]
    assert dict(dropped) == {
        "parks.geojson: sorted by `park_id` descending": "the request does not say sorted of `park_id`",
        "parks.geojson: sorted by `area_m2` ascending": "the request does not say `area_m2` ascending",
        "parks.geojson: has the columns `osm`, `city`, `both`": "both, city: values the request allows, not columns",
    }  # (`osm` names an input)
