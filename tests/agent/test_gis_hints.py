"""GIS hints: what a failure or warning means and its known fix (pure functions, no kernel)."""

from __future__ import annotations

from geoagent_ext.agent.gis_hints import gis_hints, measured_in_degrees


def test_gis_hints():
    crs = gis_hints("ValueError", "Cannot transform naive geometries.  Please set a crs on the object first.")
    assert crs and "set_crs" in crs[0]
    mismatch = gis_hints(
        "", "", stderr="UserWarning: CRS mismatch between the CRS of left geometries and the CRS of right geometries."
    )
    assert "to_crs(other.crs)" in mismatch[0]
    geographic = gis_hints(
        "", "", stderr="UserWarning: Geometry is in a geographic CRS. Results from 'area' are likely incorrect."
    )
    assert "projected CRS" in geographic[0]
    invalid = gis_hints("GEOSException", "TopologyException: Input geom 1 is invalid: Self-intersection")
    assert "make_valid" in invalid[0]
    exists = gis_hints("DataSourceError", "out.tif already exists")
    assert "already exists" in exists[0]
    twice = gis_hints("ValueError", "cannot insert source, already exists")  # a column, not a file
    assert len(twice) == 1 and "reset_index(level=" in twice[0]
    missing = gis_hints("DataSourceError", "parcels.gpkg: No such file or directory")
    assert "not found" in missing[0]
    assert gis_hints("ZeroDivisionError", "division by zero") == []
    # text methods asked of a whole table: the hint takes the text columns one by one
    table_text = gis_hints("AttributeError", "'DataFrame' object has no attribute 'str'")[0]
    assert "select_dtypes(include='object')" in table_text and ".str.contains" in table_text
    # Asking to_file or set_crs for a reprojection: to_crs does it.
    [to_file] = gis_hints("ValueError", "Passing 'crs' is not supported with the 'pyogrio' engine.")
    assert "then out.to_file(path)" in to_file
    [set_crs] = gis_hints(
        "ValueError",
        "The GeoSeries already has a CRS which is not equal to the passed CRS. "
        "Specify 'allow_override=True' to allow replacing the existing CRS",
    )
    assert "gdf.to_crs(epsg=...)" in set_crs
    # A geometry type asked of astype is no dtype: shapely makes it multi-part.
    [multi] = gis_hints("TypeError", "data type 'MultiPolygon' not understood")
    assert "MultiPolygon([g])" in multi and "geom_type == 'Polygon'" in multi
    # a column used as one condition (`x if layer.geometry else y`)
    [truth] = gis_hints("ValueError", "The truth value of a GeoSeries is ambiguous. Use a.empty, a.item(), a.any()")
    assert "layer.geometry.iloc[0]" in truth and "numpy.where" in truth


def test_plain_pandas_and_missing_import_names_get_their_own_hints():
    hints = gis_hints(
        "AttributeError",
        "'Series' object has no attribute 'total_bounds'",
        "AttributeError: 'Series' object has no attribute 'total_bounds'",
    )
    assert "not a GeoDataFrame/GeoSeries" in hints[0]
    hints = gis_hints(
        "ImportError",
        "cannot import name 'rioxarray' from 'rasterio'",
        "ImportError: cannot import name 'rioxarray' from 'rasterio'",
    )
    assert len(hints) == 1 and "does not exist in the module" in hints[0]
    # A library that is not installed: the hint names what is (nothing is installed during a run), not %pip.
    hints = gis_hints("ModuleNotFoundError", "No module named 'geopy'", "ModuleNotFoundError: No module named 'geopy'")
    assert len(hints) == 1 and "nothing is installed during a run" in hints[0] and "pip" not in hints[0]
    assert "pyproj.Geod(ellps='WGS84').inv" in hints[0]
    # A raster band read by a name (`riox.open_rasterio(path)['red']`): bands are selected by number.
    traceback = "red = riox.open_rasterio('s2.tif')['red']\nKeyError: 'red'"
    hints = gis_hints("KeyError", "'red'", traceback)
    assert "da.sel(band=1)" in hints[0] and "long_name" in hints[0]
    for evalue in ("module 'geopandas' has no attribute 'concat'", "'GeoDataFrame' object has no attribute 'append'"):
        hints = gis_hints("AttributeError", evalue, f"AttributeError: {evalue}")
        assert "pd.concat([a, b], ignore_index=True)" in hints[0]  # first: before the generic "real members"


def test_geometry_members_on_a_plain_pandas_column_get_the_geodataframe_hint():
    for attr in ("unary_union", "union_all", "x"):
        hints = gis_hints("AttributeError", f"'Series' object has no attribute '{attr}'")
        assert any("plain pandas object" in h for h in hints), attr
    assert not any("plain pandas" in h for h in gis_hints("AttributeError", "'Series' object has no attribute 'foo'"))


def test_geoparquet_through_to_file_gets_the_to_parquet_hint():
    tb = ["Cell In[3], line 2\n----> 2 gdf.to_file('out.geoparquet', driver='GeoParquet', crs='EPSG:4326')"]
    hints = gis_hints("ValueError", "Passing 'crs' is not supported with the 'pyogrio' engine.", tb)
    assert any("to_parquet" in h for h in hints)
    assert not any("to_parquet" in h for h in gis_hints("ValueError", "bad", ["gdf.to_file('out.gpkg')"]))


def test_a_geoseries_used_as_a_table_gets_the_keep_the_columns_hint():
    hints = gis_hints("AttributeError", "'GeoSeries' object has no attribute 'to_parquet'")
    assert any("out['geometry'] =" in h for h in hints)


def test_json_of_pandas_or_numpy_gets_the_convert_first_hint():
    [hint] = gis_hints("TypeError", "Object of type Series is not JSON serializable")
    assert ".to_dict()" in hint and ".tolist()" in hint
    assert gis_hints("TypeError", "unsupported operand type(s)") == []


def test_a_prompt_for_input_gets_the_no_keyboard_hint():
    # geemap.Map() asks for an Earth Engine sign-in; in a kernel run that is an EOFError.
    [hint] = gis_hints("EOFError", "EOF when reading a line")
    assert "ee_initialize=False" in hint and "input()" in hint


def test_a_merge_on_a_missing_column_gets_the_spatial_join_hint():
    tb = ["Cell In[3], line 2\n----> 2 merged = districts.merge(stations, on='district_code')"]
    hints = gis_hints("KeyError", "'district_code'", tb)
    assert any("gpd.sjoin(" in h and "sjoin_nearest" in h for h in hints)
    assert any("df.columns" in h for h in hints)  # the general one stays
    assert not any("sjoin" in h for h in gis_hints("KeyError", "'district_code'", ["----> 2 x = df['district_code']"]))


def test_a_measurement_in_degrees_is_named_but_a_centroid_is_not():
    stderr = (
        "/tmp/ipykernel_1/4.py:2: UserWarning: Geometry is in a geographic CRS. Results from 'buffer' "
        "are likely incorrect. Use 'GeoSeries.to_crs()' to re-project geometries to a projected CRS"
    )
    warning = measured_in_degrees(stderr)
    assert warning is not None and "'buffer' ran in a geographic CRS" in warning and "estimate_utm_crs" in warning
    assert measured_in_degrees(stderr.replace("'buffer'", "'centroid'")) is None
    assert measured_in_degrees("") is None


def test_wkt_parsing_and_time_zone_slips_get_the_way_that_works():
    """`gpd.GeoDataFrame.from_wkt` (no such method), `astype('datetime64[us]')` of zoned times and
    `Series.tz_localize` (the index's) each get the call that works. The errors are pandas' own; the
    hint's recipe is run here too."""
    import geopandas as gpd
    import pandas as pd

    df = pd.DataFrame({"wkt": ["POINT (1 2)"], "at": ["2024-03-01T10:00:00Z"]})
    errors = []
    for slip in (
        lambda: gpd.GeoDataFrame.from_wkt(df["wkt"]),
        lambda: pd.to_datetime(df["at"]).astype("datetime64[us]"),
        lambda: pd.to_datetime(df["at"]).tz_localize(None),
    ):
        try:
            slip()
        except Exception as exc:
            errors.append((type(exc).__name__, str(exc)))
    assert len(errors) == 3
    wkt, zoned, index = (gis_hints(ename, evalue) for ename, evalue in errors)
    assert any("gpd.GeoSeries.from_wkt(df['wkt_column'])" in h for h in wkt)
    assert any(".dt.tz_localize(None)" in h for h in zoned) and any(".dt.tz_localize(None)" in h for h in index)
    fixed = pd.to_datetime(df["at"], utc=True).dt.tz_convert("UTC").dt.tz_localize(None).astype("datetime64[us]")
    assert str(fixed.dtype) == "datetime64[us]"
    assert gpd.GeoDataFrame(df, geometry=gpd.GeoSeries.from_wkt(df["wkt"]), crs="EPSG:4326").geometry[0].x == 1


def test_a_missing_geometry_met_in_an_apply_gets_the_vectorized_way():
    """`.geometry.apply(lambda x: x.centroid)` fails on a None geometry; the vectorized member keeps it None."""
    import geopandas as gpd
    from shapely.geometry import box

    frame = gpd.GeoDataFrame(geometry=[box(0, 0, 1, 1), None], crs=3857)
    try:
        frame.geometry.apply(lambda g: g.centroid)
    except AttributeError as exc:
        hints = gis_hints("AttributeError", str(exc))
    assert any("gdf.geometry.centroid" in h for h in hints)
    assert frame.geometry.centroid.isna().tolist() == [False, True]  # the way the hint gives keeps None as None
    assert not any(
        "gdf.geometry.centroid" in h for h in gis_hints("AttributeError", "'NoneType' object has no attribute 'append'")
    )


def test_point_coordinates_of_lines_get_the_reprojection_that_works_for_every_geometry():
    """`transformer.transform(gdf.geometry.x, gdf.geometry.y)` fails over lines (only points have x);
    the hint reprojects every geometry with to_crs. geopandas' own error; the hint's way is run here too."""
    import geopandas as gpd
    from shapely.geometry import LineString

    lines = gpd.GeoDataFrame(geometry=[LineString([(178, -17), (179, -18)])], crs=4326)
    try:
        lines.geometry.x  # noqa: B018 - evaluated for the error it raises
    except ValueError as exc:
        hints = gis_hints("ValueError", str(exc))
    assert any("gdf.to_crs(target_crs)" in h for h in hints)
    assert lines.to_crs(epsg=3460).geometry.iloc[0].geom_type == "LineString"


def test_wrapping_a_multipolygon_again_or_an_invented_to_multi_gets_the_wrap_of_single_parts_only():
    """`MultiPolygon([g])` over a layer that already has MultiPolygons, or an invented
    `GeoSeries.to_multi_polygon()`, gets the wrap of single parts only. shapely's and geopandas' own
    errors; the hint's way is run."""
    import geopandas as gpd
    from shapely.geometry import MultiPolygon, box

    frame = gpd.GeoDataFrame(geometry=[box(0, 0, 1, 1), MultiPolygon([box(2, 2, 3, 3)])], crs=3857)
    errors = []
    for slip in (lambda: frame.geometry.apply(lambda g: MultiPolygon([g])), lambda: frame.geometry.to_multi_polygon()):
        try:
            slip()
        except Exception as exc:
            errors.append(gis_hints(type(exc).__name__, str(exc)))
    assert len(errors) == 2 and all(any("leaving multi-parts as they are" in h for h in hints) for hints in errors)
    fixed = frame.geometry.apply(lambda g: MultiPolygon([g]) if g is not None and g.geom_type == "Polygon" else g)
    assert set(fixed.geom_type) == {"MultiPolygon"}


def test_pandas_aggregation_cast_and_drop_slips_get_the_call_that_works():
    """`.groupby(k)[c].agg({c: 'sum'})` (a nested renamer), `.astype(int)` over NaN and
    `drop(columns=[...])` of a column already gone each get the call that works. pandas' own errors;
    the hints' ways run."""
    import pandas as pd

    df = pd.DataFrame({"id": [1, 1, 2], "units": [2.0, None, 3.0]})
    errors = []
    for slip in (
        lambda: df.groupby("id")["units"].agg({"units": "sum"}),
        lambda: df["units"].astype(int),
        lambda: df.drop(columns=["gone"]),
    ):
        try:
            slip()
        except Exception as exc:
            errors.append(gis_hints(type(exc).__name__, str(exc)))
    assert len(errors) == 3
    nested, cast, drop = errors
    assert any(".agg('sum')" in h for h in nested)
    assert any(".fillna(0).astype(int)" in h for h in cast)
    assert any("errors='ignore'" in h for h in drop)
    assert df.groupby("id")["units"].agg("sum").tolist() == [2.0, 3.0]
    assert df["units"].fillna(0).astype(int).tolist() == [2, 0, 3]
    assert list(df.drop(columns=["gone"], errors="ignore").columns) == ["id", "units"]


def test_a_layer_name_used_as_a_layer_gets_the_read_it_first_hint():
    import os
    import tempfile

    import geopandas as gpd
    from shapely.geometry import Point

    path = os.path.join(tempfile.mkdtemp(), "two.gpkg")
    for name in ("a", "b"):
        gpd.GeoDataFrame(geometry=[Point(0, 0)], crs=4326).to_file(path, layer=name)
    try:
        for layer in gpd.list_layers(path)["name"]:
            layer.crs  # noqa: B018 - the slip, on the real objects
    except AttributeError as exc:
        hints = gis_hints("AttributeError", str(exc))
    assert any("gpd.read_file(path, layer=name)" in h for h in hints)
    assert not any("read_file" in h for h in gis_hints("AttributeError", "'str' object has no attribute 'decode'"))


def test_a_missing_column_gets_the_look_at_the_columns_hint_through_an_ipython_traceback():
    tb = ["\x1b[36mCell\x1b[39m In[7], line 2\n----> 2 f()\n", "\x1b[31mKeyError\x1b[39m: 'populaton'"]
    assert any("df.columns" in h for h in gis_hints("KeyError", "\x1b[31m'populaton'\x1b[39m", tb))
