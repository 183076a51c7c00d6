"""The model's reading of a request: its answer parsed into the typed spec, each field kept only when
the request writes its names and the words that ask for it, repeats of the rules' requirements
skipped, contradictions dropped; asked under the spec's JSON schema (a real llama.cpp grammar)."""

from __future__ import annotations

import asyncio
import json
from typing import ClassVar

import pytest

from geoagent_ext.agent.planner import Planner
from geoagent_ext.contract import derive_contract
from geoagent_ext.contract.reading import RequestReading, accept_reading, parse_reading, reading_schema
from geoagent_ext.llm.client import LLMClient, json_schema_kwargs
from geoagent_ext.llm.scripted import ScriptedChatModel

REQUEST = (
    "Count the stations of `stations.geojson` per district of `districts.geojson` and write `counts.csv` "
    "with one row per `district` and its `n_stations`, busiest at the top. The districts come from the "
    "national grid; save `districts.gpkg` in WGS84, lines only."
)
OUTPUTS = ["counts.csv", "districts.gpkg"]
INPUTS = {
    "stations.geojson": {"rows": 9, "columns": ["sid", "kind"]},
    "districts.geojson": {"rows": 3, "columns": ["district", "name"]},
}


def out(path: str, **fields) -> dict:
    blank = {
        "crs": None,
        "geometry_type": None,
        "columns_kept": [],
        "columns_new": [],
        "one_row_per": None,
        "sort_by": None,
        "sort_order": None,
    }
    return {"path": path, **blank, **fields}


def reading(*outputs: dict) -> RequestReading:
    return RequestReading.model_validate({"outputs": list(outputs)})


def test_the_answer_is_read_as_the_spec_or_not_at_all():
    answer = {"outputs": [out("counts.csv", sort_by="n_stations", sort_order="descending")]}
    parsed = parse_reading("Sure:\n" + json.dumps(answer) + "\nDone.")
    assert parsed is not None and parsed.outputs[0].sort_by == "n_stations"
    assert parse_reading('{"outputs": [{"path": "a.csv"') is None  # cut off
    assert parse_reading('{"outputs": [{"path": "a.csv", "crs": 3857}]}') is None  # not the spec's shape
    assert parse_reading("the file must be sorted") is None


def test_the_schema_asks_for_every_field_in_a_fixed_order():
    schema = reading_schema()
    fields = schema["$defs"]["OutputReading"]
    assert fields["required"] == list(fields["properties"])
    assert "sort_order" in fields["properties"] and schema["required"] == ["outputs"]


def test_the_grammar_is_built_from_the_schema_with_llama_cpp():
    pytest.importorskip("llama_cpp")
    from geoagent_ext.llm.llama_engine import json_grammar

    grammar = json_grammar(json.dumps(reading_schema()))
    assert "root ::=" in grammar._grammar and "sort-order" in grammar._grammar
    assert json_grammar(json.dumps(reading_schema())) is grammar  # built once per schema


def test_grounded_fields_become_requirements_with_the_requests_words():
    contract = derive_contract(REQUEST, OUTPUTS, INPUTS)
    model = reading(
        out("counts.csv", columns_kept=["district"], columns_new=["n_stations"], one_row_per="district"),
        out("districts.gpkg", geometry_type="LineString"),
    )
    rules_only = contract.model_copy(update={"requirements": [r for r in contract.requirements if r.kind == "exists"]})
    added, _ = accept_reading(model, REQUEST, rules_only, INPUTS)
    by_kind = {r.kind: r for r in added}
    assert set(by_kind) == {"columns", "unique", "geometry_types"}
    assert by_kind["columns"].params["names"] == ["district", "n_stations"]
    assert by_kind["unique"].params["name"] == "district" and "one row per" in by_kind["unique"].said
    assert by_kind["geometry_types"].params["allowed"] == ["LineString", "MultiLineString"]
    assert all(r.origin == "model" and r.sure and r.id.startswith("m") for r in added)
    unsure, _ = accept_reading(model, REQUEST, rules_only, INPUTS, sure=False)
    assert unsure and not any(r.checkable for r in unsure)


def test_what_the_request_does_not_write_is_dropped_with_why():
    contract = derive_contract(REQUEST, OUTPUTS, INPUTS)
    model = reading(
        out("counts.csv", columns_new=["area_km2", "name"], one_row_per="sid", sort_by="n_stations"),
        out("districts.gpkg", crs="the national grid", geometry_type="Polygon"),
        out("summary.json", crs="WGS84"),
    )
    added, dropped = accept_reading(model, REQUEST, contract, INPUTS)
    why = dict(dropped)
    assert why["counts.csv: column area_km2"] == "the request does not write it as a name"
    assert why["counts.csv: one row per sid"] == "the request does not say so"  # sid is an input column, unsaid
    assert why["districts.gpkg: crs the national grid"] == "the request does not ask for it"  # the source CRS
    assert why["districts.gpkg: geometry Polygon"] == "the request does not write it"
    assert why["summary.json: is in WGS84"] == "summary.json is not an output of this request"
    # "name" is an input column but the request writes it nowhere; the ascending sort contradicts "busiest at the top"
    assert not any(r.kind == "sorted" for r in added) and not any("name" in r.params.get("names", []) for r in added)


def test_repeats_are_skipped_and_contradictions_dropped():
    contract = derive_contract(REQUEST, OUTPUTS, INPUTS)
    assert any(r.kind == "crs_epsg" and r.params["epsg"] == 4326 for r in contract.requirements)
    model = reading(out("districts.gpkg", crs="WGS84"), out("counts.csv", columns_kept=["district"]))
    added, dropped = accept_reading(model, REQUEST, contract, INPUTS)
    assert added == [] and dropped == []  # both already required by the rules
    other = "Write `zones.gpkg` in EPSG:3857 keeping `zone_id`. Web Mercator for tiles, or UTM if easier."
    ruled = derive_contract(other, ["zones.gpkg"], {"zones.shp": {"rows": 2, "columns": ["zone_id"]}})
    added, dropped = accept_reading(reading(out("zones.gpkg", crs="UTM")), other, ruled, {})
    assert added == [] and "contradicts" in dropped[0][1]


def test_nothing_from_no_answer():
    contract = derive_contract(REQUEST, OUTPUTS, INPUTS)
    assert accept_reading(None, REQUEST, contract, INPUTS) == ([], [])


class GrammarModel(ScriptedChatModel):
    accepts_json_schema: ClassVar[bool] = True


def test_the_planner_asks_under_the_schema_at_temperature_zero():
    answer = json.dumps({"outputs": [out("counts.csv", sort_by="n_stations", sort_order="descending")]})
    model = GrammarModel(replies=[answer, "no JSON at all"])
    planner = Planner(LLMClient(model, retries=0))
    got = asyncio.run(planner.read_request(REQUEST, OUTPUTS))
    assert got is not None and got.outputs[0].sort_order == "descending"
    sent = model.call_kwargs[0]
    assert json.loads(sent["json_schema"]) == reading_schema() and sent["temperature"] == 0.0
    assert "counts.csv" in model.prompt_texts[0]
    assert asyncio.run(planner.read_request(REQUEST, OUTPUTS)) is None


def test_structured_output_by_provider():
    schema = reading_schema()
    assert json_schema_kwargs(ScriptedChatModel(), schema, "r") == {}
    assert json_schema_kwargs(GrammarModel(), schema, "r") == {"json_schema": json.dumps(schema)}
    langchain_openai = pytest.importorskip("langchain_openai")
    model = langchain_openai.ChatOpenAI(model="m", api_key="k", base_url="http://127.0.0.1:9/v1")
    sent = json_schema_kwargs(model, schema, "r")["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"] == {"name": "r", "schema": schema}


def test_the_audits_wrong_readings_stay_out():
    """Each a requirement the correct deliverable failed when the reading was first audited."""
    inputs = {"parcels.geojson": {"rows": 5, "columns": ["parcel_id", "district"], "epsg": 4326}}

    def added(request: str, outputs: list[str], *fields: dict) -> list[tuple[str, dict]]:
        contract = derive_contract(request, outputs, inputs)
        exists = contract.model_copy(update={"requirements": [r for r in contract.requirements if r.kind == "exists"]})
        return [(r.kind, r.params) for r in accept_reading(reading(*fields), request, exists, inputs)[0]]

    # "one row per address and rank": no key; "busiest vessel first" sorts by no column it names
    request = "Write near.csv, one row per address and rank, with `address_id` and `last_survey`, busiest vessel first."
    assert added(request, ["near.csv"], out("near.csv", one_row_per="address_id", sort_by="last_survey")) == []
    # a JSON object's nested keys are no columns; a layer's quoted name is no column
    request = "Write extents.json as an object keyed by class, each a [`min_lon`, `max_lon`] array."
    assert added(request, ["extents.json"], out("extents.json", columns_new=["min_lon", "max_lon"])) == []
    request = 'Repair parcels.geojson into valid.gpkg, layer "parcels", keeping `parcel_id`.'
    got = added(request, ["valid.gpkg"], out("valid.gpkg", columns_kept=["parcels", "parcel_id"]))
    assert [p["names"] for k, p in got if k == "columns"] == [["parcel_id"]]
    assert all("no_stray" not in p for _, p in got)  # the model's names say nothing of a WKT column beside them
    # of a field's plain sentence only its own kind: not the input's CRS the rules add to any sentence
    assert all(k == "columns" for k, _ in got)
    # a file the reading gives several geometry types (a GeoPackage of layers) gets none
    request = "Split parcels.geojson into mixed.gpkg with only the points, only the lines and only the polygons."
    fields = [out("mixed.gpkg", geometry_type=t) for t in ("Point", "LineString", "Polygon")]
    assert added(request, ["mixed.gpkg"], *fields) == []
