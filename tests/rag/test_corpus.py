"""The curated corpus: well-formed, names real APIs, and every recipe runs."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from geoagent_ext.rag.corpus import corpus_records, load_intros, load_recipes
from geoagent_ext.rag.libraries import DEFAULT_LIBRARIES, LIBRARIES

RECIPES = load_recipes()
QUERIES = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "retrieval_queries.jsonl"


def resolve_api(name: str):
    """Import the longest module prefix of ``name`` and walk the attributes."""
    if name.startswith("xarray.DataArray.rio.") or name.startswith("xarray.Dataset.rio."):
        importlib.import_module("rioxarray")  # registers the accessor
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


def test_corpus_size_and_coverage():
    assert len(RECIPES) >= 25
    covered = {lib for r in RECIPES for lib in r.libraries}
    assert set(DEFAULT_LIBRARIES) <= covered
    assert {i.library for i in load_intros()} == set(DEFAULT_LIBRARIES)
    records = corpus_records()
    assert sum(r.kind == "recipe" for r in records) == len(RECIPES)
    assert all(r.library in LIBRARIES for r in records)


@pytest.mark.parametrize("recipe", RECIPES, ids=[r.name for r in RECIPES])
def test_recipe_apis_exist_in_installed_libraries(recipe):
    for name in recipe.apis:
        assert resolve_api(name) is not None, name


@pytest.mark.parametrize("recipe", RECIPES, ids=[r.name for r in RECIPES])
def test_recipe_code_runs(recipe, tmp_path, monkeypatch):
    """Setup fabricates the inputs in a temp dir; the solution must then run as written."""
    monkeypatch.chdir(tmp_path)
    code = compile(recipe.setup + "\n" + recipe.code, str(recipe.path), "exec")
    if recipe.run == "compile":  # needs network or credentials (Earth Engine, STAC APIs)
        assert "syntax-checked" in recipe.notes
        return
    namespace = {"__name__": "__recipe__"}
    exec(code, namespace)
    import matplotlib.pyplot as plt

    plt.close("all")


def test_query_set_is_large_spread_and_well_formed():
    queries = [json.loads(line) for line in QUERIES.read_text().splitlines() if line.strip()]
    assert len(queries) >= 100
    assert {q["libraries"][0] for q in queries} == set(DEFAULT_LIBRARIES)
    for q in queries:
        assert q["query"] and q["apis"] and all("." in g for g in q["apis"])
