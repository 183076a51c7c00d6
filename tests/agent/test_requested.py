"""Which keys/columns a request asks of its output files (read from the request only)."""

from geoagent_ext.agent.requested import fields_for, requested_fields


def test_keys_in_the_sentence_that_names_the_file():
    request = (
        "Can you produce a small JSON file with the total count? Please write it to "
        "`clinic_inventory.json` with keys `count`, `bbox`, and `count_per_subdistrict`."
    )
    assert requested_fields(request) == {"clinic_inventory.json": ["count", "bbox", "count_per_subdistrict"]}


def test_columns_in_a_later_sentence_belong_to_the_last_files_named():
    request = (
        "Take `stations.geojson` and write `out/stations_per_district.csv` with the counts.\n\n"
        "Use three columns with these exact names: `district_code`, `district_name` and `station_count`."
    )
    fields = requested_fields(request)
    assert fields["stations_per_district.csv"] == ["district_code", "district_name", "station_count"]
    # only the files a step writes are checked, matched by their base name
    assert fields_for(["out/stations_per_district.csv"], request) == {
        "out/stations_per_district.csv": ["district_code", "district_name", "station_count"]
    }
    assert fields_for(["other.csv"], request) == {}


def test_names_before_the_field_word_or_without_one_do_not_count():
    assert requested_fields("Use the `id` field of `london.geojson` and write areas.csv.") == {}
    assert requested_fields("Write `a.csv` sorted by `name`.") == {}


async def test_the_kernel_check_reads_the_columns_of_written_tables_and_layers(tmp_path):
    from geoagent_ext.agent.probes import run_probe

    from .helpers import real_kernel

    async with real_kernel(tmp_path) as kernel:
        await kernel.execute(
            "import geopandas as gpd, pandas as pd\nfrom shapely.geometry import Point\n"
            "pd.DataFrame({'code': [1], 'n': [2]}).to_csv('t.csv', index=False)\n"
            "g = gpd.GeoDataFrame({'code': [1]}, geometry=[Point(0, 0)], crs=4326)\n"
            "g.to_file('l.gpkg')\n"
            "g.rename_geometry('geom').to_parquet('p.geoparquet')\n"
            "g.iloc[:0].to_parquet('empty.parquet')\n"
            "g['ring'] = g.buffer(1)\n"
            "g[['code', 'ring']].to_parquet('inactive.geoparquet')\n"
            "pd.DataFrame({'code': [1], 'wkb': [g.geometry.iloc[0].wkb]}).to_parquet('plain.geoparquet')"
        )
        asked = {"t.csv": ["code", "count"], "l.gpkg": ["code", "geometry"], "p.geoparquet": ["code", "geometry"]}
        files = ["t.csv", "l.gpkg", "p.geoparquet", "empty.parquet", "inactive.geoparquet", "plain.geoparquet"]
        checks = await run_probe(kernel, "check_result", [], files, asked)
        # GeoParquet is read with pyarrow (GDAL's driver may be missing): its profile too
        profile = await run_probe(kernel, "profile_files", ".")
    assert checks["warnings"][:2] == [
        "`t.csv` lacks count that the request asks for (it has: code, n)",
        "`empty.parquet` holds no rows",
    ]
    # written without the active geometry (gdf[['connector_id', 'buffered']]), or not from a GeoDataFrame
    inactive, plain = checks["warnings"][2:]
    assert inactive.startswith("`inactive.geoparquet` does not load as GeoParquet") and "'geometry'" in inactive
    assert plain.startswith("`plain.geoparquet` does not load as GeoParquet: it is plain Parquet")
    assert "GeoParquet): 1 features, Point, CRS EPSG:4326" in profile["files"]["p.geoparquet"]


async def test_the_file_profile_of_a_wkt_table_gives_the_loading_call(tmp_path):
    from geoagent_ext.agent.probes import run_probe

    from .helpers import real_kernel

    (tmp_path / "sites.csv").write_text("id,wkt\n1,POINT(18.4 -33.9)\n")
    (tmp_path / "obs.csv").write_text("id,Lon,Lat\n1,16.3,48.2\n")
    async with real_kernel(tmp_path) as kernel:
        profile = await run_probe(kernel, "profile_files", ".")
    assert (
        "df = pd.read_csv('sites.csv'); gdf = gpd.GeoDataFrame(df, geometry=gpd.GeoSeries.from_wkt(df['wkt']), "
        "crs='EPSG:4326')"
    ) in profile["files"]["sites.csv"]
    assert "geometry=gpd.points_from_xy(df['Lon'], df['Lat'])" in profile["files"]["obs.csv"]


async def test_columns_empty_in_the_input_are_named_and_not_blamed_on_a_step(tmp_path):
    # An input column empty in every row (a vendor's `postal_city`) is the data's, not a step's: warned
    # about on every step that keeps it, it would have correct code repaired again and again.
    from geoagent_ext.agent.probes import format_files, run_probe

    from .helpers import real_kernel

    (tmp_path / "addr.csv").write_text("id,postal_city,zip\n1,,10001\n2,,10002\n")
    async with real_kernel(tmp_path) as kernel:
        await kernel.execute(
            "import pandas as pd\n"
            "pd.DataFrame({'k': [1, 2], 'unused': [None, None]}).to_parquet('extra.parquet')\n"
            "df = pd.read_csv('addr.csv')\ndf['city'] = df['zip'].map({})"
        )
        profile = await run_probe(kernel, "profile_files", ".")
        checks = await run_probe(kernel, "check_result", ["df"], [], {}, profile["empty_columns"])
    assert profile["empty_columns"] == ["postal_city", "unused"]
    assert "Columns empty in every row of these files (keep them as they are): postal_city, unused" in format_files(
        profile
    )
    assert checks == {"warnings": ["`df` has all-null column(s): city"]}  # the step's own empty column still counts


def test_the_file_profile_of_a_layered_file_says_how_to_read_every_layer(tmp_path):
    import os

    import geopandas as gpd
    from shapely.geometry import Point

    from geoagent_ext.agent.probes import local_probes

    for layer, crs in (("roads", 4326), ("parcels", 32647)):
        gpd.GeoDataFrame({"k": [1]}, geometry=[Point(100, 13)], crs=crs).to_file(tmp_path / "d.gpkg", layer=layer)
    gpd.GeoDataFrame({"k": [1]}, geometry=[Point(100, 13)], crs=4326).to_file(tmp_path / "one.gpkg")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        files = local_probes()["profile_files"](".")["files"]
    finally:
        os.chdir(cwd)
    assert files["d.gpkg"].startswith(
        "vector: 2 layers: gpd.read_file('d.gpkg') reads only the first; read each with "
        "gpd.read_file('d.gpkg', layer=name) for name, _ in pyogrio.list_layers('d.gpkg')"
    )
    assert "layer 'parcels' 1 features" in files["d.gpkg"]
    assert "layers" not in files["one.gpkg"]
