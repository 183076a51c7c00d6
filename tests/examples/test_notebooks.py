"""The example notebooks run offline, top to bottom, and produce what they promise.

Every notebook in ``examples/`` is executed with nbclient in a ``python3`` kernel,
in a temporary copy of the folder (so ``data/...`` paths work as they do for a
user and the results in ``outputs/`` do not litter the repository). The notebooks
run concurrently: most of their time is kernel start-up and imports. Each one then
gets a check of its own results, so a notebook that runs but computes nonsense
(areas in square degrees, distances in degrees, temperatures in kelvin) fails.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import geopandas as gpd
import nbformat
import pandas as pd
import pytest
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DATA = EXAMPLES / "data"
NOTEBOOKS = sorted(EXAMPLES.glob("[0-9][0-9]_*.ipynb"))
CELL_TIMEOUT = 120


def _text_of(nb) -> str:
    """All text the notebook printed or displayed, errors included."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(out.text)
            elif out.output_type == "error":
                parts.append(f"{out.ename}: {out.evalue}")
            else:
                parts.append(out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def _mime_types(nb) -> set[str]:
    return {
        mime
        for cell in nb.cells
        for out in cell.get("outputs", [])
        for mime in out.get("data", {})
    }


async def _execute_all(workdir: Path) -> dict[str, dict]:
    async def one(path: Path) -> tuple[str, dict]:
        nb = nbformat.read(workdir / path.name, as_version=4)
        client = NotebookClient(
            nb,
            timeout=CELL_TIMEOUT,
            # nbclient waits 4 s for a cell's last outputs by default; with the notebooks run side by
            # side on 2 busy cores, a cell's last print can come later than that and be lost
            iopub_timeout=60,
            kernel_name="python3",
            resources={"metadata": {"path": str(workdir)}},
        )
        start = time.monotonic()
        error = None
        try:
            await client.async_execute()
        except Exception as exc:  # CellExecutionError, timeouts, dead kernels
            error = exc
        nbformat.write(nb, workdir / path.name)  # keep the executed copy for debugging
        return path.stem, {"nb": nb, "error": error, "seconds": time.monotonic() - start}

    return dict(await asyncio.gather(*(one(p) for p in NOTEBOOKS)))


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("examples")
    shutil.copytree(DATA, workdir / "data")
    for path in NOTEBOOKS:
        shutil.copy(path, workdir / path.name)
    # In a thread of its own: asyncio.run must not touch the main thread's event loop,
    # which pytest-jupyter and other tests' fixtures manage.
    with ThreadPoolExecutor(max_workers=1) as pool:
        results = pool.submit(asyncio.run, _execute_all(workdir)).result()
    for result in results.values():
        result["workdir"] = workdir
    return results


def run_of(executed, stem: str) -> dict:
    result = executed[stem]
    if result["error"] is not None:
        message = re.sub(r"\x1b\[[0-9;]*m", "", str(result["error"]))  # no terminal colours
        pytest.fail(f"{stem} failed after {result['seconds']:.0f} s:\n{message}")
    return result


# --------------------------------------------------------------------------- #
# The committed files (no kernel needed)
# --------------------------------------------------------------------------- #
def test_there_are_at_least_four_notebooks():
    assert len(NOTEBOOKS) >= 4, NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebook_is_clean_and_suggests_a_request(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert code_cells
    assert all(not c.outputs and c.execution_count is None for c in code_cells), (
        "commit notebooks with outputs cleared"
    )
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert markdown[0].startswith("# "), "the notebook opens with a titled intro"
    ask = [m for m in markdown if m.startswith("## Ask GeoAgent")]
    assert len(ask) == 1, "one 'Ask GeoAgent' section"
    assert "@GeoAgent" in ask[0] and "jupyter geoagent run" in ask[0] and "--notebook" in ask[0]
    assert path.name in (EXAMPLES / "README.md").read_text()


def test_bundled_data_is_small_and_attributed():
    files = [p for p in DATA.iterdir() if p.is_file() and p.name not in {"README.md", "make_data.py"}]
    assert files
    total = sum(p.stat().st_size for p in DATA.rglob("*") if p.is_file())
    assert total < 2 * 1024 * 1024, f"examples/data is {total / 1024:.0f} KB"
    readme = (DATA / "README.md").read_text()
    for path in files:
        assert f"`{path.name}`" in readme, f"{path.name} has no entry in data/README.md"
    assert "OpenStreetMap contributors" in readme and "ODbL" in readme
    assert readme.count("SYNTHETIC") >= 3


# --------------------------------------------------------------------------- #
# Executed notebooks
# --------------------------------------------------------------------------- #
def test_notebooks_run_quickly(executed):
    slowest = max(executed.items(), key=lambda kv: kv[1]["seconds"])
    assert slowest[1]["seconds"] < 300, f"{slowest[0]} took {slowest[1]['seconds']:.0f} s"


def test_01_vector_areas_per_district(executed):
    run = run_of(executed, "01_vector_areas_per_district")
    table = pd.read_csv(run["workdir"] / "outputs" / "district_summary.csv")
    assert list(table.columns) == [
        "district_code", "district_name", "area_km2", "station_count", "stations_per_10km2",
    ]
    assert table["district_code"].tolist() == list(range(1, 24))
    assert table["area_km2"].sum() == pytest.approx(414.9, abs=1.0)  # km², not degrees²
    assert table["station_count"].sum() == 49
    assert (table["station_count"] == 0).sum() == 4  # empty districts are kept
    assert "Vienna: 414.9 km²" in _text_of(run["nb"])
    # The contract GeoAgent derives from the request the notebook gives holds on the worked solution
    # (no false alarm), counts by location and rate per 10 km² among its checks.
    from geoagent_ext.contract import derive_contract
    from ..contract.test_checks import check, in_folder, PROBES
    request = next(line[2:] for cell in run["nb"].cells if cell.cell_type == "markdown"
                   for line in cell.source.splitlines() if line.startswith("> ") and "district_summary" in line)
    inputs = ["data/vienna_districts.geojson", "data/vienna_stations.geojson"]
    contract = derive_contract(request, ["outputs/district_summary.csv"],
                               in_folder(run["workdir"], PROBES["input_facts"], inputs))
    assert {"point_counts", "density", "measure_units"} <= {r.kind for r in contract.requirements}
    failed = {k: v for k, v in check(contract, run["workdir"]).items() if not v[0]}
    assert not failed, failed


def test_02_nearest_hospital(executed):
    run = run_of(executed, "02_nearest_hospital")
    result = gpd.read_file(run["workdir"] / "outputs" / "nearest_hospital.gpkg")
    assert len(result) == 120 and result["address_id"].is_unique
    assert {"address_id", "nearest_hospital_name", "distance_m"} <= set(result.columns)
    assert result.crs.to_epsg() == 4326
    assert result["nearest_hospital_name"].notna().all()
    assert result["distance_m"].between(0, 10_000).all()
    assert result["distance_m"].median() == pytest.approx(1582, abs=25)  # metres, not degrees
    text = _text_of(run["nb"])
    assert "47 of 120 addresses are more than 2 km from a hospital" in text
    assert "1.21x" in text


def test_03_raster_ndvi_zonal_stats(executed):
    run = run_of(executed, "03_raster_ndvi_zonal_stats")
    table = pd.read_csv(run["workdir"] / "outputs" / "district_ndvi.csv")
    assert len(table) == 23 and table["district_code"].is_unique
    assert table["mean_ndvi"].between(-1, 1).all()
    assert table["green_share"].between(0, 1).all()
    assert (table["pixels"] > 50).all()  # reprojected zones: every district got pixels
    text = _text_of(run["nb"])
    assert "max of nir - red in uint16: 65" in text  # the trap is shown
    assert "Greenest district: Hietzing" in text
    assert "Steepest district on average: Döbling" in text
    assert "image/png" in _mime_types(run["nb"])


def test_04_xarray_temperature_timeseries(executed):
    run = run_of(executed, "04_xarray_temperature_timeseries")
    table = pd.read_csv(run["workdir"] / "outputs" / "vienna_monthly_tasmax.csv")
    assert table["month"].iloc[0] == "2023-01" and table["month"].iloc[-1] == "2024-12"
    assert len(table) == 24
    assert table["tasmax_c"].between(-10, 40).all()  # °C, not kelvin
    assert table["tasmax_c"].idxmax() in (6, 18)  # July is the warmest month
    text = _text_of(run["nb"])
    assert "nearest cell: 48.2 N 16.4 E" in text
    assert "2024: 30 hot days in the centre cell" in text
    assert "wrong order selects 0 latitudes" in text


def test_05_leafmap_interactive_map(executed):
    run = run_of(executed, "05_leafmap_interactive_map")
    assert "application/vnd.jupyter.widget-view+json" in _mime_types(run["nb"])
    assert "layers: ['Districts', 'Stations']" in _text_of(run["nb"])  # no basemap layer
