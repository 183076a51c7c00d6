"""Readings of what a request means across wordings, second set: a statistic of an input's attribute
per group, groups kept by how many features they have, a distinct count said in capitals beside a
dropped blank group, a total of the measures "added up" per group, a column said to add up to a
number, and "all N <features>" where N is how many one input (or one of its layers) has. Each is
derived from a request and checked on real files."""

from __future__ import annotations

import geopandas as gpd
import pandas as pd
from shapely.geometry import Point, box

from geoagent_ext.contract import derive_contract

from .test_meaning_readings import facts_of, of_kind, results


def _plots(folder):
    """Twelve square plots in three soil groups (loam 5, clay 4, sand 3), each with a yield."""
    soils = ["loam"] * 5 + ["clay"] * 4 + ["sand"] * 3
    yields = [3.0, 9.0, 4.0, 5.0, 30.0, 2.0, 2.5, 8.0, 1.0, 6.0, 7.0, 6.5]
    plots = gpd.GeoDataFrame(
        {"plot_id": [f"P{i}" for i in range(12)], "soil": soils, "yield_t": yields},
        geometry=[box(10 + i * 0.01, 50, 10.005 + i * 0.01, 50.005) for i in range(12)],
        crs=4326,
    )
    plots.to_file(folder / "field_plots.geojson")
    return plots


def test_a_median_of_an_attribute_per_group_is_not_its_mean(tmp_path):
    plots = _plots(tmp_path)
    request = (
        "Using field_plots.geojson, write soil_yield.csv with one line for each soil:\n"
        "  typical_yield: the median of yield_t over that soil's plots (the median, not the mean)\n"
        "  best_yield: highest yield_t\n"
    )
    contract = derive_contract(request, ["soil_yield.csv"], facts_of(tmp_path))
    stats = {r.params["name"]: r for r in of_kind(contract, "column_stats")}
    assert stats["typical_yield"].params["stat"] == "median" and stats["typical_yield"].sure
    assert stats["best_yield"].params["stat"] == "max" and stats["best_yield"].params["group"] == "soil"
    by = plots.groupby("soil")["yield_t"]
    right = pd.DataFrame({"soil_type": by.median().index, "typical_yield": by.median().values})
    right["best_yield"] = by.max().values
    right.to_csv(tmp_path / "soil_yield.csv", index=False)  # the group column named otherwise: found by its values
    assert all(ok for ok, _ in results(contract, tmp_path, "column_stats"))
    right.assign(typical_yield=by.mean().values).to_csv(tmp_path / "soil_yield.csv", index=False)
    outcome = dict(zip(["typical_yield", "best_yield"], results(contract, tmp_path, "column_stats")))
    assert not outcome["typical_yield"][0] and outcome["best_yield"][0]


def test_a_statistic_of_an_attribute_is_unsure_when_the_rows_may_be_selected(tmp_path):
    _plots(tmp_path)
    request = (
        "From field_plots.geojson make soil_yield.csv, per soil: mean_yield = average yield_t, leaving out "
        "plots whose plot_id starts with X."
    )
    contract = derive_contract(request, ["soil_yield.csv"], facts_of(tmp_path))
    (stat,) = of_kind(contract, "column_stats")
    assert stat.params["stat"] == "mean" and not stat.sure


def test_groups_kept_by_their_number_of_features_are_exactly_those(tmp_path):
    plots = _plots(tmp_path)
    request = (
        "Summarise field_plots.geojson per soil into soils.csv, but only keep the soils having 4 or more plots "
        "(4 itself is enough): soil, plots (how many), mean_yield = average yield_t."
    )
    contract = derive_contract(request, ["soils.csv"], facts_of(tmp_path))
    (size,) = of_kind(contract, "group_size_rows")
    assert (size.params["group"], size.params["op"], size.params["value"]) == ("soil", ">=", 4.0) and size.sure
    table = plots.groupby("soil", as_index=False).agg(plots=("plot_id", "size"), mean_yield=("yield_t", "mean"))
    table[table.plots >= 4].to_csv(tmp_path / "soils.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "group_size_rows"))
    assert all(ok for ok, _ in results(contract, tmp_path, "column_stats"))
    table[table.plots > 4].to_csv(tmp_path / "soils.csv", index=False)  # clay (exactly 4) lost
    ((ok, seen),) = results(contract, tmp_path, "group_size_rows")
    assert not ok and "'clay'" in seen
    table.to_csv(tmp_path / "soils.csv", index=False)  # sand (3) kept
    ((ok, _),) = results(contract, tmp_path, "group_size_rows")
    assert not ok


def test_a_number_of_features_that_is_a_measure_is_not_a_group_size(tmp_path):
    _plots(tmp_path)
    request = (
        "Per soil in field_plots.geojson, only the soils with at least 4 ha of plots, to soils.csv: soil, area_ha."
    )
    contract = derive_contract(request, ["soils.csv"], facts_of(tmp_path))
    assert not of_kind(contract, "group_size_rows")


def test_areas_added_up_per_group_are_the_groups_total_area(tmp_path):
    plots = _plots(tmp_path)
    request = (
        "From field_plots.geojson, a table per soil (soil_area.csv):\n"
        "  n_plots - how many plots\n"
        "  area_ha - the areas of its plots added up, in hectares\n"
    )
    contract = derive_contract(request, ["soil_area.csv"], facts_of(tmp_path))
    (total,) = [r for r in of_kind(contract, "measure_stats") if r.params["name"] == "area_ha"]
    assert total.params["stat"] == "sum" and total.params["unit"] == "ha" and total.sure
    m2 = plots.to_crs(plots.estimate_utm_crs()).area
    table = pd.DataFrame({"soil": plots.soil, "ha": m2 / 1e4}).groupby("soil", as_index=False).ha.sum()
    table.rename(columns={"ha": "area_ha"}).to_csv(tmp_path / "soil_area.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "measure_stats"))
    table.rename(columns={"ha": "area_ha"}).assign(area_ha=lambda t: t.area_ha * 1e4).to_csv(
        tmp_path / "soil_area.csv", index=False
    )  # square metres under a hectare name
    assert not any(ok for ok, _ in results(contract, tmp_path, "measure_stats"))


def _permits(folder):
    rows = [
        ("P1", "75001", "RUE A"),
        ("P2", "75001", "RUE A"),
        ("P3", "75001", "RUE B"),
        ("P4", "75002", "RUE C"),
        ("P5", "75002", "RUE C"),
        ("P6", None, "RUE D"),
    ]
    table = pd.DataFrame(rows, columns=["permit_id", "zip", "road"])
    table.to_csv(folder / "permits.csv", index=False)
    return table


def test_different_values_counted_per_group_beside_a_dropped_blank_group(tmp_path):
    permits = _permits(tmp_path)
    request = (
        "From permits.csv build zip_roads.csv, one row per zip; the permit without a zip is skipped.\n"
        "- permits = number of permits with that zip\n"
        "- roads = the number of DISTINCT roads among them (a road counted once)\n"
        "Columns: zip, permits, roads"
    )
    contract = derive_contract(request, ["zip_roads.csv"], facts_of(tmp_path))
    (distinct,) = of_kind(contract, "distinct_count")
    assert (distinct.params["column"], distinct.params["group"]) == ("road", "zip") and distinct.sure
    known = permits.dropna(subset=["zip"])
    table = known.groupby("zip", as_index=False).agg(permits=("permit_id", "size"), roads=("road", "nunique"))
    table.to_csv(tmp_path / "zip_roads.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "distinct_count"))
    table.assign(roads=table.permits).to_csv(tmp_path / "zip_roads.csv", index=False)  # rows, not roads
    assert not any(ok for ok, _ in results(contract, tmp_path, "distinct_count"))


def _wards_and_kiosks(folder):
    wards = gpd.GeoDataFrame(
        {"ward_code": ["W1", "W2", "W3", "W4"]},
        geometry=[box(0, 0, 0.01, 0.01), box(0.01, 0, 0.02, 0.01), box(0, 0.01, 0.01, 0.02), box(1, 1, 1.01, 1.01)],
        crs=4326,
    )
    kiosks = gpd.GeoDataFrame(
        {"kiosk": ["K1", "K2", "K3"]},
        geometry=[Point(0.005, 0.005), Point(0.006, 0.004), Point(0.015, 0.005)],
        crs=4326,
    )
    wards.to_file(folder / "wards.geojson")
    kiosks.to_file(folder / "kiosks.geojson")
    counts = [2, 1, 0, 0]
    return pd.DataFrame({"ward_code": wards.ward_code, "kiosks": counts})


def test_a_share_said_to_add_up_to_100_is_a_percentage_and_every_counted_feature_is_kept(tmp_path):
    table = _wards_and_kiosks(tmp_path)
    request = (
        "How are the kiosks.geojson kiosks spread over wards.geojson? ward_kiosks.csv should list all 4 wards, "
        "the empty ones too: ward_code, kiosks (how many are inside) and pct_kiosks (the ward's part of the "
        "kiosks, in percent, so that pct_kiosks sums to 100)."
    )
    contract = derive_contract(request, ["ward_kiosks.csv"], facts_of(tmp_path))
    (total,) = of_kind(contract, "column_total")
    assert total.params == {"name": "pct_kiosks", "total": 100.0} and total.sure
    assert [r.params["rows"] for r in of_kind(contract, "rows_as_input")] == [4]
    right = table.assign(pct_kiosks=table.kiosks / 3 * 100).round(2)
    right.to_csv(tmp_path / "ward_kiosks.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "column_total"))
    assert all(ok for ok, _ in results(contract, tmp_path, "rows_as_input"))
    right.assign(pct_kiosks=table.kiosks / 3)[right.kiosks > 0].to_csv(tmp_path / "ward_kiosks.csv", index=False)
    assert not any(ok for ok, _ in results(contract, tmp_path, "column_total"))
    assert not any(ok for ok, _ in results(contract, tmp_path, "rows_as_input"))


def test_a_total_said_inside_a_columns_definition_is_that_columns_not_a_column_the_definition_names(tmp_path):
    table = _wards_and_kiosks(tmp_path)
    right = table.assign(pct=table.kiosks / 3 * 100).round(2)
    right.to_csv(tmp_path / "ward_kiosks.csv", index=False)
    for request in (
        "From wards.geojson and kiosks.geojson write ward_kiosks.csv: `ward_code`, `kiosks`, and `pct` (the ward's "
        "part of all `kiosks`, adding up to 100).",
        "From wards.geojson and kiosks.geojson write ward_kiosks.csv with `ward_code`, `kiosks` and `pct` – the "
        "ward's part of all `kiosks`, which adds up to 100.",
    ):
        contract = derive_contract(request, ["ward_kiosks.csv"], facts_of(tmp_path))
        (total,) = of_kind(contract, "column_total")
        assert total.params == {"name": "pct", "total": 100.0}, request
        assert all(ok for ok, _ in results(contract, tmp_path, "column_total"))


def test_a_sum_said_per_group_or_loosely_and_a_count_selected_from_are_not_read(tmp_path):
    _wards_and_kiosks(tmp_path)
    request = (
        "From wards.geojson and kiosks.geojson write ward_kiosks.csv: ward_code, kiosks, pct_k, where pct_k within "
        "each ward adds up to 100; then the 2 busiest of all 4 wards go to top.csv."
    )
    contract = derive_contract(request, ["ward_kiosks.csv", "top.csv"], facts_of(tmp_path))
    assert not of_kind(contract, "column_total")
    assert not [r for r in of_kind(contract, "rows_as_input") if r.params["rows"] == 4]


def test_all_n_features_of_one_layer_keeps_that_layers_features(tmp_path):
    a = gpd.GeoDataFrame({"lot_id": [1, 2, 3]}, geometry=[box(i, 0, i + 0.5, 0.5) for i in range(3)], crs=3857)
    b = gpd.GeoDataFrame({"lot_id": [1, 2]}, geometry=[box(i, 0, i + 0.5, 0.5) for i in range(2)], crs=3857)
    a.to_file(tmp_path / "lots.gpkg", layer="lots_city", driver="GPKG")
    b.to_file(tmp_path / "lots.gpkg", layer="lots_survey", driver="GPKG")
    request = (
        "Add to layer lots_city of lots.gpkg the survey flag from layer lots_survey (by lot_id); lots_flagged.gpkg "
        "must hold all 3 city lots, each once."
    )
    contract = derive_contract(request, ["lots_flagged.gpkg"], facts_of(tmp_path))
    (kept,) = [r for r in of_kind(contract, "rows_as_input") if r.params["rows"] == 3]
    assert kept.params["input_layers"] == {"lots.gpkg": "lots_city"}
    a.merge(b.assign(surveyed=True)[["lot_id", "surveyed"]], on="lot_id", how="left").to_file(
        tmp_path / "lots_flagged.gpkg", driver="GPKG"
    )
    assert all(ok for ok, _ in results(contract, tmp_path, "rows_as_input"))
    a.merge(b.assign(surveyed=True)[["lot_id", "surveyed"]], on="lot_id").to_file(
        tmp_path / "lots_flagged.gpkg", driver="GPKG"
    )  # an inner join loses lot 3
    assert not any(ok for ok, _ in results(contract, tmp_path, "rows_as_input"))


def test_a_summary_value_said_as_a_statistic_of_another_outputs_column_is_checked_on_that_table(tmp_path):
    pd.DataFrame({"leg": ["a", "b", "c", "d"], "minutes": [4.0, 5.0, 6.0, 25.0]}).to_csv(tmp_path / "legs_in.csv")
    request = (
        "From legs_in.csv write two files. legs.csv: `leg`, `wait_min` (the minutes of the leg). "
        "stats.json: `typical_wait` (median of wait_min), `worst_wait` (highest wait_min)."
    )
    contract = derive_contract(request, ["legs.csv", "stats.json"], facts_of(tmp_path))
    summary = {r.params["name"]: r for r in of_kind(contract, "column_summary")}
    assert summary["typical_wait"].params == {
        "name": "typical_wait",
        "table": "legs.csv",
        "column": "wait_min",
        "stat": "median",
    }
    assert summary["worst_wait"].params["stat"] == "max" and summary["worst_wait"].sure
    pd.DataFrame({"leg": list("abcd"), "wait_min": [4.0, 5.0, 6.0, 25.0]}).to_csv(tmp_path / "legs.csv", index=False)
    (tmp_path / "stats.json").write_text('{"typical_wait": 5.5, "worst_wait": 25.0}')
    assert all(ok for ok, _ in results(contract, tmp_path, "column_summary"))
    (tmp_path / "stats.json").write_text('{"typical_wait": 10.0, "worst_wait": 25.0}')  # the mean
    assert [ok for ok, _ in results(contract, tmp_path, "column_summary")] == [False, True]
    pd.DataFrame({"leg": list("abcd"), "wait_min": [240.0, 300.0, 360.0, 1500.0]}).to_csv(
        tmp_path / "legs.csv", index=False
    )  # the table in seconds, the summary in minutes
    assert not any(ok for ok, _ in results(contract, tmp_path, "column_summary"))
