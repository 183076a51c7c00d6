"""Introspection inside the live kernel: real members, closest names, profiles, variables."""

from __future__ import annotations

import pandas as pd
import pytest

from geoagent_ext.kernel import ProbeError

from .conftest import kernel_pid

pytestmark = pytest.mark.asyncio(loop_scope="module")

NAMES = "print(sorted(globals()))"


async def namespace(service, kid):
    res = await service.execute(kid, NAMES, silent=True, store_history=False)
    return set(eval(res.stdout))


async def test_members_of_a_geodataframe_are_the_real_ones(service, geo_kernel):
    members = await service.members(geo_kernel, "gdf")
    by_name = {m.name: m for m in members}
    assert len(members) > 150
    assert by_name["to_crs"].kind == "method"
    assert by_name["to_crs"].signature == "to_crs(crs=None, epsg=None, inplace=False)"
    assert by_name["to_crs"].doc.startswith("Transform geometries")
    assert by_name["crs"].kind == "property"
    assert by_name["sjoin"].kind == "method" and by_name["explore"].kind == "method"
    assert "pop" in by_name and by_name["pop"].kind in ("attribute", "method")  # column vs DataFrame.pop
    assert not [m for m in members if m.name.startswith("_")]
    private = await service.members(geo_kernel, "gdf", include_private=True)
    assert any(m.name == "__getitem__" for m in private)


async def test_members_of_a_module_and_an_attribute_chain(service, geo_kernel):
    mod = {m.name: m for m in await service.members(geo_kernel, "gpd")}
    assert mod["read_file"].kind == "function" and mod["read_file"].signature.startswith("read_file(filename")
    assert mod["GeoDataFrame"].kind == "class"
    series = {m.name for m in await service.members(geo_kernel, " gdf . geometry ")}
    assert "to_crs" in series and "explode" in series and "sjoin" not in series


# Each would run in the user's kernel if introspection evaluated it: the first two allocate
# hundreds of MB, the others call, index or compute.
NOT_NAMES = [
    "'x' * 300_000_000",
    "[0] * 40_000_000",
    "gdf['name']",
    "gdf.to_crs(3857)",
    "(lambda: items.clear())()",
    "x + 1",
    "gdf.geometry[0].area",
    "41",
    "not x",
    "x.",
    "a" * 400,
]


def peak_rss_mb(pid: int) -> float:
    """The process's high-water resident memory (VmHWM): what it ever held, even if freed since."""
    with open(f"/proc/{pid}/status") as status:
        line = next(ln for ln in status if ln.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


async def test_introspection_refuses_anything_but_a_name_or_attribute_chain(service, manager, geo_kernel):
    before = peak_rss_mb(kernel_pid(manager, geo_kernel))
    asks = {
        "members": lambda e: service.members(geo_kernel, e),
        "profile": lambda e: service.profile(geo_kernel, e),
        "closest_names": lambda e: service.closest_names(geo_kernel, e, "to_crss"),
    }
    for expression in NOT_NAMES:
        for what, ask in asks.items():
            with pytest.raises(ProbeError) as refused:
                await ask(expression)
            assert refused.value.ename == "ValueError", (what, expression, refused.value)
            assert "is not a variable or an attribute chain" in refused.value.evalue
            assert "never evaluates calls, operators, subscripts or literals" in refused.value.evalue
    grew = peak_rss_mb(kernel_pid(manager, geo_kernel)) - before
    assert grew < 50, f"the kernel's peak memory grew by {grew:.0f} MB"  # 'x' * 300_000_000 alone: 300 MB
    state = await service.execute(geo_kernel, "print(x, items)", silent=True, store_history=False)
    assert state.stdout.strip() == "41 [1, 2, 3]"  # nothing ran: the list was not cleared


async def test_members_answer_is_bounded(service, geo_kernel):
    """An object with thousands of attributes, one a function of 300 parameters: the answer stops
    at MAX_MEMBERS members and each signature at MAX_SIGNATURE characters."""
    setup = (
        "import types as _types\nwide = _types.SimpleNamespace(**{f'a{i:04}': i for i in range(3000)})\n"
        "exec('def F(' + ', '.join(f'p{i}=None' for i in range(300)) + '): pass', wide.__dict__)"
    )
    assert (await service.execute(geo_kernel, setup, silent=True, store_history=False)).status == "ok"
    try:
        found = await service.members(geo_kernel, "wide")
    finally:
        await service.execute(geo_kernel, "del wide", silent=True, store_history=False)
    assert len(found) == 1000 and all(len(m.signature) <= 400 for m in found)
    long = next(m for m in found if m.name == "F")
    assert long.signature.startswith("F(p0=None, p1=None") and long.signature.endswith("...")


async def test_closest_names(service, geo_kernel):
    assert (await service.closest_names(geo_kernel, "gdf", "to_crss"))[0] == "to_crs"
    assert (await service.closest_names(geo_kernel, "", "gdff"))[0] == "gdf"
    assert "read_file" in await service.closest_names(geo_kernel, "gpd", "readfile")


async def test_profile_of_a_geodataframe(service, geo_kernel):
    text = await service.profile(geo_kernel, "gdf")
    lines = text.splitlines()
    assert lines[0] == "gdf: GeoDataFrame, 3 rows x 3 columns"
    assert lines[1] == "CRS: EPSG:4326 (WGS 84, geographic, units: degree)"
    assert lines[2] == "bounds (xmin, ymin, xmax, ymax): (0.0, 0.0, 1.0, 1.0)"
    assert "Point 2, Polygon 1" in lines[3] and "0 invalid" in lines[3]
    str_dtype = str(pd.Series(["a", None]).dtype)  # object in pandas 2, str in pandas 3
    assert f"  name: {str_dtype}, 1 nulls, e.g. 'a'" in lines
    assert "  pop: int64, 0 nulls, range 10..30" in lines


async def test_profile_of_raster_and_xarray_and_dataframe(service, geo_kernel):
    setup = (
        "import numpy as np, rasterio, xarray as xr, pandas as pd\n"
        "from rasterio.transform import from_origin\n"
        "with rasterio.open('r.tif', 'w', driver='GTiff', width=5, height=4, count=1, dtype='uint8',\n"
        "                   crs='EPSG:32631', transform=from_origin(500000, 5000000, 10, 10), nodata=0) as dst:\n"
        "    dst.write(np.ones((1, 4, 5), dtype='uint8'))\n"
        "src = rasterio.open('r.tif')\n"
        "da = xr.DataArray(np.zeros((2, 3)), dims=('y', 'x'), name='elev')\n"
        "df = pd.DataFrame({'k': [1.5, None]})\n"
    )
    assert (await service.execute(geo_kernel, setup)).status == "ok"
    raster = await service.profile(geo_kernel, "src")
    assert "1 bands x 4 rows x 5 cols, dtype uint8" in raster
    assert "CRS: EPSG:32631" in raster and "units: metre" in raster
    assert "nodata: 0.0, resolution: (10.0, 10.0)" in raster
    xarr = await service.profile(geo_kernel, "da")
    assert xarr.startswith("da: xarray DataArray, dims {'y': 2, 'x': 3}, dtype float64")
    frame = await service.profile(geo_kernel, "df")
    assert frame.splitlines() == [
        "df: DataFrame, 2 rows x 1 columns",
        "columns:",
        "  k: float64, 1 nulls, range 1.5..1.5",
    ]


async def test_variables_summaries(service, geo_kernel):
    rows = {v.name: v for v in await service.variables(geo_kernel)}
    assert rows["gdf"].type == "geopandas.GeoDataFrame"
    assert rows["gdf"].summary.startswith("GeoDataFrame 3 rows x 3 cols, EPSG:4326")
    assert rows["gpd"].summary.startswith("module geopandas")
    assert rows["x"].summary == "int = 41"
    assert rows["items"].summary.startswith("list of 3 items")
    assert not [n for n in rows if n.startswith("_") or n in ("In", "Out", "get_ipython")]


async def test_unknown_name_is_a_clear_error(service, geo_kernel):
    with pytest.raises(ProbeError, match="name 'nope' is not defined"):
        await service.profile(geo_kernel, "nope")


async def test_only_one_private_name_is_left_and_helper_comes_back(service, geo_kernel):
    await service.execute(geo_kernel, "del __geoagent__", silent=True, store_history=False)
    before = await namespace(service, geo_kernel)
    await service.members(geo_kernel, "gdf")
    await service.profile(geo_kernel, "gdf")
    await service.variables(geo_kernel)
    await service.closest_names(geo_kernel, "gdf", "to_crss")
    await service.trial(geo_kernel, "zz = 1")
    after = await namespace(service, geo_kernel)
    assert after - before == {"__geoagent__"}
    assert before - after == set()
    # a stale helper (older service version) is replaced, not trusted
    await service.execute(geo_kernel, "__geoagent__.VERSION = 'old'", silent=True, store_history=False)
    assert (await service.closest_names(geo_kernel, "gdf", "to_crss"))[0] == "to_crs"


async def test_profile_of_a_plain_frame_with_geometries_says_how_to_make_it_a_geodataframe(service, geo_kernel):
    setup = (
        "import pandas as pd, geopandas as gpd\n"
        "clinics = pd.DataFrame({'name': ['a'], 'wkt_geom': ['POINT (18.4 -33.9)']})\n"
        "parsed = clinics.assign(geometry=gpd.GeoSeries.from_wkt(clinics['wkt_geom']))\n"
        "stations = pd.DataFrame({'Longitude': [16.3], 'Latitude': [48.2]})\n"
    )
    assert (await service.execute(geo_kernel, setup)).status == "ok"
    wkt = await service.profile(geo_kernel, "clinics")
    assert (
        "clinics = gpd.GeoDataFrame(clinics, geometry=gpd.GeoSeries.from_wkt(clinics['wkt_geom']), crs='EPSG:4326')"
    ) in wkt
    assert "parsed = gpd.GeoDataFrame(parsed, geometry='geometry'" in await service.profile(geo_kernel, "parsed")
    coords = await service.profile(geo_kernel, "stations")
    assert "geometry=gpd.points_from_xy(stations['Longitude'], stations['Latitude'])" in coords
    # a frame without geometry gets no such line
    assert "GeoDataFrame" not in await service.profile(geo_kernel, "df")


async def test_a_name_imported_from_the_wrong_module_is_imported_from_where_the_library_has_it(service, geo_kernel):
    """`from shapely.ops import buffer` (or `shapely.geometry`) fails: shapely 2 has `buffer` at the
    top. The kernel says where, and the import is rewritten without a model call; a name the package
    lacks gets no rewrite."""
    from geoagent_ext.agent import fixes, repair
    from geoagent_ext.agent.kernel_handle import BoundKernel

    assert (await service.probe(geo_kernel, "home_of", "shapely.ops", "buffer"))[0] == {
        "module": "shapely",
        "alias": None,
    }
    assert await service.probe(geo_kernel, "home_of", "shapely.ops", "no_such_function") == []
    code = (
        "import shapely\nfrom shapely.ops import unary_union, buffer as buf\n"
        "out = buf(unary_union([shapely.Point(0, 0)]), 1.0)"
    )
    failed = await service.execute(geo_kernel, code)
    error = failed.error
    assert failed.status == "error" and error.ename == "ImportError" and error.lineno == 2
    diagnosis = repair.classify(code, error.ename, error.evalue, error.message, error.lineno)
    assert diagnosis.strategy == "members"
    moved = await fixes.diagnose_live(diagnosis, code, 2, BoundKernel(service, geo_kernel))
    assert (
        moved is not None
        and moved.strategy == "move_import"
        and "`shapely.buffer` from where the installed" in moved.fix_said
    )
    assert moved.fixed_code.splitlines()[1:3] == [
        "from shapely.ops import unary_union",
        "from shapely import buffer as buf",
    ]
    fixed = await service.execute(geo_kernel, moved.fixed_code + "\nprint(round(out.area, 1))")
    assert fixed.status == "ok" and fixed.stdout.strip() == "3.1"
    unknown = repair.classify(
        "from shapely.ops import nope\nnope()",
        "ImportError",
        "cannot import name 'nope' from 'shapely.ops'",
        "ImportError: cannot import name 'nope' from 'shapely.ops'",
        1,
    )
    assert (
        await fixes.diagnose_live(unknown, "from shapely.ops import nope\nnope()", 1, BoundKernel(service, geo_kernel))
        is None
    )
    # `gpd.to_numeric`: pandas has it, bound as `pd` in the session, so the call is rewritten to `pd`.
    assert (await service.execute(geo_kernel, "import pandas as pd")).status == "ok"
    code = "n = gpd.to_numeric(['1', '2']).sum()\nprint(n)"
    failed = (await service.execute(geo_kernel, code)).error
    diagnosis = repair.classify(code, failed.ename, failed.evalue, failed.message, failed.lineno)
    moved = await fixes.diagnose_live(diagnosis, code, failed.lineno, BoundKernel(service, geo_kernel))
    assert moved.fixed_code == "n = pd.to_numeric(['1', '2']).sum()\nprint(n)"
    assert (await service.execute(geo_kernel, moved.fixed_code)).stdout.strip() == "3"
    # A guessed submodule (`gpd.io.crs`): the name looked up after it is taken from its home.
    code = 'import geopandas as gpd\nsource = gpd.io.crs.CRS("EPSG:4326")\nprint(source.to_epsg())'
    failed = (await service.execute(geo_kernel, code)).error
    diagnosis = repair.classify(code, failed.ename, failed.evalue, failed.message, failed.lineno)
    moved = await fixes.diagnose_live(diagnosis, code, failed.lineno, BoundKernel(service, geo_kernel))
    assert moved is not None and moved.name == "pyproj.CRS"
    assert 'source = pyproj.CRS("EPSG:4326")' in moved.fixed_code.splitlines()
    assert (await service.execute(geo_kernel, moved.fixed_code)).stdout.strip() == "4326"


async def test_a_name_holding_per_feature_bounds_used_as_one_box_gives_the_layer_s_box(service, geo_kernel):
    """`bbox = gdf.bounds` bound by an earlier step, `bbox.tolist()` failing in this one: the kernel
    tells `bbox` holds per-feature bounds, and the rewrite takes the layer's box from its rows (what
    `total_bounds` gives); a plain frame of other columns is not such a name."""
    from geoagent_ext.agent import fixes, repair
    from geoagent_ext.agent.kernel_handle import BoundKernel

    setup = "bbox = gdf.bounds\nother = gdf.drop(columns=gdf.geometry.name)\nexpected = gdf.total_bounds.tolist()"
    assert (await service.execute(geo_kernel, setup)).status == "ok"
    assert await service.probe(geo_kernel, "bounds_frames", ["other", "bbox", "missing"]) == ["bbox"]
    code = "out = {'bbox': bbox.tolist()}"
    error = (await service.execute(geo_kernel, code)).error
    diagnosis = repair.classify(code, error.ename, error.evalue, error.message, error.lineno)
    assert diagnosis.fixed_code is None  # nothing in the code says what `bbox` holds
    fixed = await fixes.diagnose_live(diagnosis, code, error.lineno, BoundKernel(service, geo_kernel))
    assert fixed is not None and fixed.strategy == "layer_box"
    ran = await service.execute(geo_kernel, fixed.fixed_code + "\nprint(out['bbox'] == expected)")
    assert ran.status == "ok" and ran.stdout.strip() == "True"


def test_the_helpers_parts_define_each_name_once():
    """The parts run in one namespace, a later part's function replacing an earlier one's of the same
    name: a probe named like another part's function would answer with the other's signature."""
    import ast
    from collections import Counter

    from geoagent_ext.kernel.inkernel import _TEXTS

    defined = Counter(
        node.name
        for text in _TEXTS.values()
        for node in ast.parse(text).body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    )
    assert len(defined) > 100 and not [name for name, n in defined.items() if n > 1]
