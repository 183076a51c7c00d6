# A GIS advisor from the data itself: which CRS to measure, map or deliver a layer in.
# Part of the in-kernel helper: standard library at import time, pyproj (and pyogrio, pyarrow,
# geopandas, rasterio when a layer needs them) imported inside the functions; every failure is
# an answer in words, never an exception.
#
# How: the data's extent in lon/lat (antimeridian- and pole-aware) is matched against the area
# of use of every EPSG projected CRS (pyproj.database.query_crs_info, read once per kernel and
# filtered here: one query with an area of interest costs ~50 ms, the filter ~3 ms), and the
# candidates are ranked for the purpose from each CRS's own metadata: projection method
# (equal-area, conformal...), units, axis directions, datum age, the hemisphere of its origin,
# and how tightly its area of use fits the data. The one thing the database cannot say, which
# grid a country uses officially, comes from a short curated table.

_ADVISOR_CACHE = {}

# Official national grids, where the EPSG database does not say which CRS a country uses.
# Sources: each country's national mapping agency, named per entry. Kept short on purpose:
# it only breaks ties for purpose "official" (and slightly favours the grid for distances).
_OFFICIAL_GRIDS = {
    2154: ("France", "IGN, decree 2000-1276"),  # RGF93 v1 / Lambert-93
    27700: ("Great Britain", "Ordnance Survey"),  # OSGB36 / British National Grid
    2157: ("Ireland", "Tailte Eireann (OSi)"),  # IRENET95 / Irish Transverse Mercator
    28992: ("the Netherlands", "Kadaster"),  # Amersfoort / RD New
    3812: ("Belgium", "NGI-IGN Belgium"),  # ETRS89 / Belgian Lambert 2008
    2056: ("Switzerland and Liechtenstein", "swisstopo"),  # CH1903+ / LV95
    31287: ("Austria", "BEV"),  # MGI / Austria Lambert
    3006: ("Sweden", "Lantmateriet"),  # SWEREF99 TM
    2193: ("New Zealand", "LINZ"),  # NZGD2000 / NZTM2000
    3460: ("Fiji", "Fiji Ministry of Lands and Mineral Resources"),  # Fiji 1986 / Fiji Map Grid
    26391: ("Nigeria", "Office of the Surveyor-General of the Federation"),  # Minna / Nigeria West Belt
    26392: ("Nigeria", "Office of the Surveyor-General of the Federation"),  # ... Mid Belt
    26393: ("Nigeria", "Office of the Surveyor-General of the Federation"),  # ... East Belt
    22991: ("Egypt", "Egyptian Survey Authority"),  # Egypt 1907 / Blue Belt
    22992: ("Egypt", "Egyptian Survey Authority"),  # ... Red Belt
    22993: ("Egypt", "Egyptian Survey Authority"),  # ... Purple Belt
    22994: ("Egypt", "Egyptian Survey Authority"),  # ... Extended Purple Belt
}
# Japan Plane Rectangular CS I..XIX on JGD2011 (GSI Japan): EPSG 6669..6687.
_OFFICIAL_GRIDS.update({c: ("Japan", "GSI Japan") for c in range(6669, 6688)})
# Hartebeesthoek94 / Lo15..Lo33, south-orientated Gauss conform (NGI South Africa): EPSG 2046..2055.
_OFFICIAL_GRIDS.update({c: ("South Africa", "NGI South Africa") for c in range(2046, 2056)})
# United States: the State Plane zones (SPCS83, NOAA NGS) are recognised by rule, see _advisor_official.

_ADVISOR_PURPOSES = {
    "area": "area",
    "equal-area": "area",
    "equal_area": "area",
    "areas": "area",
    "distance": "distance",
    "distances": "distance",
    "buffer": "distance",
    "nearest": "distance",
    "length": "distance",
    "lengths": "distance",
    "measure": "distance",
    "display": "display",
    "web": "display",
    "webmap": "display",
    "web map": "display",
    "map": "display",
    "official": "official",
    "national": "official",
    "national grid": "official",
    "same": "same",
    "own": "same",
}
_ADVISOR_EQUAL_AREA = (
    "Equal Area",
    "Equal Earth",
    "Mollweide",
    "Sinusoidal",
    "Eckert IV",
    "Eckert VI",
    "Homolosine",
    "Quartic Authalic",
)
_ADVISOR_CONFORMAL = (
    "Transverse Mercator",
    "Lambert Conic Conformal",
    "Stereographic",
    "Oblique Mercator",
    "Mercator (variant",
    "Mercator (1SP)",
    "Mercator (2SP)",
    "Krovak",
    "New Zealand Map Grid",
    "Laborde",
    "Conformal",
)
_ADVISOR_EQUIDISTANT = ("Equidistant", "Cassini")


def _advisor_purpose(purpose):
    key = str(purpose or "").strip().lower()
    return _ADVISOR_PURPOSES.get(key)


def _advisor_family(method):
    m = method or ""
    if "Zoned Grid System" in m or "Pseudo Mercator" in m:
        return "other"
    if any(k in m for k in _ADVISOR_EQUAL_AREA):
        return "equal-area"
    if any(k in m for k in _ADVISOR_CONFORMAL):
        return "conformal"
    if any(k in m for k in _ADVISOR_EQUIDISTANT):
        return "equidistant"
    return "other"


def _advisor_lon_interval(w, e):
    """A longitude interval as (start, end) with end >= start (end may pass 180)."""
    return (w, e + 360.0) if e < w else (w, e)


def _advisor_sq_area(w, s, e, n):
    """Area of a lon/lat box in square degrees at the equator's scale (true spherical area)."""
    import math

    w, e = _advisor_lon_interval(w, e)
    s, n = max(-90.0, min(s, n)), min(90.0, max(s, n))
    return max(0.0, e - w) * (math.sin(math.radians(n)) - math.sin(math.radians(s))) * 180.0 / math.pi


def _advisor_fit(aou, box):
    """(contains, margin ratio) of the data box in an area of use, both (w, s, e, n) in degrees.

    The margin ratio is the data's smallest distance to the area's edges over the area's smaller
    side: near 0, the data touches the rim of a box drawn around an irregular country."""
    aw, as_, ae, an = aou
    bw, bs, be, bn = box
    aw, ae = _advisor_lon_interval(aw, ae)
    bw, be = _advisor_lon_interval(bw, be)
    tol = 1e-6
    if bs < as_ - tol or bn > an + tol:
        return False, 0.0
    # An area reaching a pole has no edge there: data up to the pole does not touch a rim.
    lat_margin = min(bs - as_ if as_ > -89.99 else 90.0, an - bn if an < 89.99 else 90.0)
    if ae - aw >= 359.9:
        return True, lat_margin / max(an - as_, 1e-9)
    for k in (-360.0, 0.0, 360.0):
        if aw - tol <= bw + k and be + k <= ae + tol:
            lon_margin = min(bw + k - aw, ae - be - k)
            return True, min(lat_margin / max(an - as_, 1e-9), lon_margin / max(ae - aw, 1e-9))
    return False, 0.0


def _advisor_grown(aou, degrees):
    """An area of use (w, s, e, n) grown by ``degrees`` on every side (latitudes clamped)."""
    w, s, e, n = aou
    return (w - degrees, max(-90.0, s - degrees), e + degrees, min(90.0, n + degrees))


def _advisor_catalogue():
    """[(code, name, method, (w, s, e, n), area name, square degrees)] of every EPSG projected CRS."""
    cat = _ADVISOR_CACHE.get("catalogue")
    if cat is None:
        from pyproj.database import query_crs_info
        from pyproj.enums import PJType

        cat = []
        for info in query_crs_info(auth_name="EPSG", pj_types=[PJType.PROJECTED_CRS]):
            aou = info.area_of_use
            if aou is None or not info.code.isdigit():
                continue
            bounds = tuple(float(v) for v in aou.bounds)
            cat.append(
                (
                    int(info.code),
                    info.name,
                    info.projection_method_name or "",
                    bounds,
                    aou.name,
                    _advisor_sq_area(*bounds),
                )
            )
        _ADVISOR_CACHE["catalogue"] = cat
    return cat


def _advisor_datum_years():
    """{projected EPSG code: publication year of its datum, or "ensemble"} from PROJ's own database.

    Datum ensembles (WGS 84, ETRS89) are current and have no date; datums without a date are
    left out; an unreadable database gives {} (then no CRS is told apart by its datum's age)."""
    years = _ADVISOR_CACHE.get("datum_years")
    if years is None:
        years = {}
        try:
            import os
            import sqlite3

            import pyproj

            db = os.path.join(pyproj.datadir.get_data_dir(), "proj.db")
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            try:
                rows = con.execute(
                    "SELECT p.code, d.publication_date, d.ensemble_accuracy FROM projected_crs p "
                    "JOIN geodetic_crs g ON g.auth_name = p.geodetic_crs_auth_name AND g.code = p.geodetic_crs_code "
                    "JOIN geodetic_datum d ON d.auth_name = g.datum_auth_name AND d.code = g.datum_code "
                    "WHERE p.auth_name = 'EPSG'"
                ).fetchall()
            finally:
                con.close()
            for code, date, ensemble in rows:
                if not str(code).isdigit():
                    continue
                if date and str(date)[:4].isdigit():
                    years[int(code)] = int(str(date)[:4])
                elif ensemble is not None:
                    years[int(code)] = "ensemble"
        except Exception:
            years = {}
        _ADVISOR_CACHE["datum_years"] = years
    return years


def _advisor_meta(code):
    """What the CRS itself says, cached per code: units, axes, origin, geodetic CRS, a Proj."""
    metas = _ADVISOR_CACHE.setdefault("meta", {})
    meta = metas.get(code)
    if meta is None:
        from pyproj import CRS, Proj

        try:
            crs = CRS.from_epsg(code)
            axes = crs.axis_info
            units = axes[0].unit_name if axes else "unknown"
            dirs = tuple((a.direction or "").lower() for a in axes[:2])
            lat0 = lon0 = None
            params = {}
            op = crs.coordinate_operation
            if op is not None:
                for p in op.params:
                    if p.name.startswith("Latitude of") and lat0 is None:
                        lat0 = float(p.value)
                    if p.name.startswith("Longitude of") and lon0 is None:
                        lon0 = float(p.value)
                    if isinstance(p.value, (int, float)):
                        params[p.name] = float(p.value)
            # A UTM zone in all but name (MGA, SIRGAS, JGD2011... zones): TM, k0 0.9996, FE 500 km.
            utm_zone = None
            if (
                op is not None
                and op.method_name == "Transverse Mercator"
                and lon0 is not None
                and abs(params.get("Scale factor at natural origin", 0) - 0.9996) < 1e-9
                and params.get("False easting") == 500000.0
                and (lon0 + 183.0) % 6.0 == 0.0
            ):
                fn = params.get("False northing")
                hemi = "N" if fn == 0.0 else ("S" if fn == 10000000.0 else None)
                if hemi:
                    utm_zone = f"{int((lon0 + 183.0) // 6.0)}{hemi}"
            geod = crs.geodetic_crs.name if crs.geodetic_crs is not None else ""
            try:
                proj = Proj(crs)
            except Exception:
                proj = None
            meta = {
                "units": units,
                "dirs": dirs,
                "lat0": lat0,
                "lon0": lon0,
                "geod": geod,
                "proj": proj,
                "utm": utm_zone,
            }
        except Exception:
            meta = {"units": "unknown", "dirs": (), "lat0": None, "lon0": None, "geod": "", "proj": None, "utm": None}
        metas[code] = meta
    return meta


def _advisor_distortion(meta, lons, lats):
    """(max linear scale error, max areal scale error, max angular distortion in degrees) of the CRS
    over the sample points, from PROJ's own projection factors."""
    import math

    proj = meta["proj"]
    bad = (1e3, 1e3, 180.0)  # PROJ cannot project some of the points: worse than any real distortion
    if proj is None:
        return bad
    try:
        f = proj.get_factors(lons, lats)
        lin = max(max(abs(h - 1.0), abs(k - 1.0)) for h, k in zip(f.meridional_scale, f.parallel_scale))
        area = max(abs(a - 1.0) for a in f.areal_scale)
        ang = max(f.angular_distortion)
    except Exception:
        return bad
    if not all(math.isfinite(v) for v in (lin, area, ang)):
        return bad
    return min(lin, 1e3), min(area, 1e3), min(ang, 180.0)


def _advisor_crs(crs):
    """A pyproj CRS from anything pyproj accepts, cached when the input is a plain value."""
    from pyproj import CRS

    if isinstance(crs, CRS):
        return crs
    key = crs if isinstance(crs, (str, int)) else None
    if key is not None and key in _ADVISOR_CACHE.setdefault("crs", {}):
        return _ADVISOR_CACHE["crs"][key]
    obj = CRS.from_user_input(crs)
    if key is not None:
        _ADVISOR_CACHE["crs"][key] = obj
    return obj


def _advisor_to_lonlat(crs):
    cache = _ADVISOR_CACHE.setdefault("to_lonlat", {})
    key = crs.srs or crs.to_wkt()
    t = cache.get(key)
    if t is None:
        from pyproj import Transformer

        t = cache[key] = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    return t


def _advisor_wrap(lon):
    return ((lon + 180.0) % 360.0) - 180.0


def _advisor_extent(bounds, crs):
    """{box: (w, s, e, n) lon/lat (w > e across the antimeridian), cx, cy, crs} or an error text."""
    import math

    if crs is None or (isinstance(crs, str) and not crs.strip()):
        return "the data has no CRS: set it first (gdf.set_crs(...)); without one the advisor cannot place it"
    try:
        crs = _advisor_crs(crs)
    except Exception as exc:
        return f"pyproj does not understand the CRS {str(crs)[:80]!r}: {type(exc).__name__}: {str(exc)[:120]}"
    try:
        x0, y0, x1, y1 = (float(v) for v in bounds)
    except Exception:
        return f"bounds must be [minx, miny, maxx, maxy] numbers, got {str(bounds)[:80]}"
    if not all(math.isfinite(v) for v in (x0, y0, x1, y1)):
        return "the data is empty (its bounds are not finite numbers): no extent to advise on"
    if y0 > y1:
        return f"bounds [{x0}, {y0}, {x1}, {y1}]: miny > maxy"
    lonlat = (
        crs.is_geographic
        and crs.prime_meridian is not None
        and crs.prime_meridian.longitude == 0
        and crs.axis_info
        and (crs.axis_info[0].unit_name or "").startswith("degree")
    )
    if lonlat:
        if not (-90.5 <= y0 and y1 <= 90.5):
            return (
                f"bounds [{x0:g}, {y0:g}, {x1:g}, {y1:g}] are not lon/lat degrees although the CRS "
                f"{crs.name} is geographic: the CRS set on the data is probably wrong"
            )
        y0, y1 = max(-90.0, y0), min(90.0, y1)
        if x1 >= x0 and x1 - x0 >= 359.0:
            w, e = -180.0, 180.0
        elif x1 >= x0 and -180.0 <= x0 and x1 <= 180.0:
            w, e = x0, x1
        else:  # 0..360 longitudes, or west > east: the data crosses the antimeridian
            w, e = _advisor_wrap(x0), _advisor_wrap(x1)
            if e == -180.0 and x1 > x0:
                e = 180.0
        span = _advisor_lon_interval(w, e)
        cx, cy = _advisor_wrap((span[0] + span[1]) / 2.0), (y0 + y1) / 2.0
        box = (w, y0, e, y1)
    else:
        if x0 > x1:
            return f"bounds [{x0}, {y0}, {x1}, {y1}]: minx > maxx"
        try:
            t = _advisor_to_lonlat(crs)
            box = tuple(float(v) for v in t.transform_bounds(x0, y0, x1, y1, densify_pts=21))
            # The centre in the data's own CRS: a lon/lat box across the antimeridian has its middle
            # on the wrong side of the globe.
            cx, cy = (float(v) for v in t.transform((x0 + x1) / 2.0, (y0 + y1) / 2.0))
        except Exception as exc:
            return f"the bounds do not transform from {crs.name} to lon/lat: {type(exc).__name__}: {str(exc)[:120]}"
        if not all(math.isfinite(v) for v in box + (cx, cy)):
            return f"the bounds [{x0:g}, {y0:g}, {x1:g}, {y1:g}] lie outside what {crs.name} can project"
    return {"box": box, "cx": cx, "cy": cy, "crs": crs}


def _advisor_official(code, name, area_name, meta):
    """(country, agency) when the CRS is an official national grid, else None."""
    if code in _OFFICIAL_GRIDS:
        return _OFFICIAL_GRIDS[code]
    # United States State Plane Coordinate System of 1983 (NOAA NGS): the zones on the original NAD83.
    if (
        meta["geod"] == "NAD83"
        and area_name.startswith("United States (USA) - ")
        and not any(k in name for k in ("UTM", "BLM", "Albers", "Conus", "Great Lakes"))
    ):
        return ("the US state zone (State Plane, SPCS83)", "NOAA NGS")
    return None


def _advisor_units_word(units):
    u = (units or "").lower()
    return "metres" if u in ("metre", "meter", "m") else (units or "unknown units")


def _advisor_is_metre(units):
    return (units or "").lower() in ("metre", "meter", "m")


def _advisor_samples(box):
    """3 x 3 lon/lat points over the data box (across the antimeridian too; poles clamped)."""
    w, e = _advisor_lon_interval(box[0], box[2])
    s, n = max(-89.9, box[1]), min(89.9, box[3])
    lons, lats = [], []
    for fx in (0.0, 0.5, 1.0):
        for fy in (0.0, 0.5, 1.0):
            lons.append(_advisor_wrap(w + fx * (e - w)))
            lats.append(s + fy * (n - s))
    return lons, lats


def _advisor_candidates(ext, purpose):
    """Scored candidates for purposes area/distance/official, best first.

    Each row: (score, square degrees, code, name, method, area bounds, area name, meta, family,
    official, notes, is the centre's UTM zone, is polar)."""
    import math

    box, cx, cy = ext["box"], ext["cx"], ext["cy"]
    data_area = _advisor_sq_area(*box)
    floor = max(20.0 * data_area, 1000.0)  # areas of use up to ~30 x 30 degrees: their distortion at the data decides
    lons, lats = _advisor_samples(box)
    polar_data = abs(cy) >= 60.0
    zone = int((_advisor_wrap(cx) + 180.0) // 6.0) % 60 + 1
    hemi = "N" if cy >= 0 else "S"
    utm_name = f"{zone}{hemi}"
    utm_code = (32600 if hemi == "N" else 32700) + zone
    span = _advisor_lon_interval(box[0], box[2])
    # estimate_utm_crs's zone: the one of the data's centre, for data about a zone wide at most.
    utm_ok = -80.0 <= cy <= 84.0 and (span[1] - span[0]) * math.cos(math.radians(cy)) <= 6.0
    years = _advisor_datum_years()
    official_inside = any(
        code in _OFFICIAL_GRIDS and _advisor_fit(aou, box)[0] for code, _, _, aou, _, _ in _advisor_catalogue()
    )
    best = {}
    for code, name, method, aou, area_name, sq in _advisor_catalogue():
        inside, margin = _advisor_fit(aou, box)
        if not inside:
            # estimate_utm_crs's zone is the one of the data's centre, even when the data spills over;
            # a national grid is drawn around the land: offshore parts of the data may spill over it.
            # (only where no official grid holds the whole data: then that one is the answer).
            spill_ok = (purpose == "distance" and utm_ok and code == utm_code) or (
                code in _OFFICIAL_GRIDS
                and not official_inside
                and _advisor_fit(_advisor_grown(aou, 1.0), (cx, cy, cx, cy))[0]
                and _advisor_fit(_advisor_grown(aou, 8.0), box)[0]
            )
            if not spill_ok:
                continue
        if code in best and best[code][1] <= sq:
            continue  # the same CRS listed once per usage: keep its tightest containing area
        family = _advisor_family(method)
        if family == "other":
            continue  # Web Mercator, zoned grid systems, compromise projections: not for measuring
        meta = _advisor_meta(code)
        lat0 = meta["lat0"]
        if lat0 is not None and abs(lat0) >= 45.0 and abs(cy) >= 20.0 and (lat0 > 0) != (cy > 0):
            continue  # centred on the other hemisphere: never
        lin, areal, ang = _advisor_distortion(meta, lons, lats)
        metre = _advisor_is_metre(meta["units"])
        official = _advisor_official(code, name, area_name, meta)
        rim = inside and margin < 0.02 and sq < 40000.0
        utm = utm_ok and meta["utm"] == utm_name
        polar = polar_data and ("Polar" in method or ("Azimuthal" in method and lat0 is not None and abs(lat0) >= 80.0))
        year = years.get(code)
        score, notes = 0.0, []
        size = math.log10(max(sq, floor))
        if purpose == "area":
            score += 3.0 if family == "equal-area" and areal < 1e-6 else 0.0
            score -= 1.5 * math.log10(max(areal, 5e-4) / 5e-4)  # areas off by more than 0.05%
            score -= 1.0 * math.log10(max(ang, 1.0))  # shapes bent by more than 1 degree
            score -= 0.3 * size
        else:
            score += {"conformal": 3.0, "equidistant": 1.5}.get(family, 0.0)
            score -= 1.0 * math.log10(max(lin, 1e-4) / 1e-4)  # lengths off by more than 0.01%
            score -= 2.0 * math.log10(max(lin, 1e-2) / 1e-2)  # ... and by more than 1%: being conformal no longer helps
            score -= 0.3 * size
            if utm:
                score += 0.7
        if official and not rim:
            score += {"area": 0.5, "distance": 1.5, "official": 6.0}[purpose]
        if "Spherical" in method:
            score -= 1.5  # formulas on a sphere: areas and lengths off by ~0.3-0.7% on the ellipsoid
            notes.append("spherical formulas")
        if rim:
            score -= 1.0
            notes.append("the data touches the edge of its area of use")
        if not inside:
            score -= 1.0
            notes.append("the data spills over the zone's edge")
        if not metre:
            score -= 0.5 if purpose == "official" else 3.0
        if meta["dirs"] and meta["dirs"] != ("east", "north"):
            if not polar and meta["dirs"] != ("north", "east"):
                score -= 0.3
                notes.append("axes " + "/".join(meta["dirs"]))
            else:
                score -= 0.05  # prefer the east/north twin of the same grid
        modern = year == "ensemble" or (isinstance(year, int) and year >= 1980)
        if isinstance(year, int) and year < 1980:  # a pre-satellite datum: metres off from GNSS data
            if not official:
                score -= 1.5
            notes.append(f"datum of {year}")
        elif year == "ensemble":  # WGS 84, ETRS89: current
            score += 0.2
        elif modern:  # the newer realisation of a datum first (NAD83(2011) before NAD83(HARN))
            score += 0.2 * (min(year, 2025) - 1980) / 45.0
        if meta["geod"] and not meta["geod"].startswith(("WGS 84", "WGS 72")) and modern:
            score += 0.15  # a regional datum the region's data comes in
        if meta["lon0"] is not None:  # ties (the same projection turned to several meridians): the nearest
            score -= 0.1 * abs(_advisor_wrap(cx - meta["lon0"])) / 180.0
        if purpose == "area":
            notes.insert(0, "areas exact" if areal < 1e-6 else f"areas within {100 * areal:.2g}%")
            if ang >= 1.0:
                notes.insert(1, f"shapes bent up to {ang:.0f} degrees")
        else:
            notes.insert(0, f"lengths within {100 * lin:.2g}%")
            if lin > 0.005:
                notes.append(
                    "no projection keeps lengths over this extent: for exact distances use geodesics "
                    "(pyproj.Geod) or work per zone"
                )
        best[code] = (
            score,
            sq,
            code,
            name,
            method,
            aou,
            area_name,
            meta,
            family,
            official,
            [n for n in notes if n],
            utm,
            polar,
        )
    return sorted(best.values(), key=lambda r: (-r[0], r[1], r[2]))


_ADVISOR_FAMILY_WORDS = {
    "equal-area": "equal-area",
    "conformal": "conformal",
    "equidistant": "equidistant (true distances from its centre only)",
    "other": "neither equal-area nor conformal",
}


def _advisor_clip(text, limit=160):
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _advisor_entry(row, purpose):
    _, sq, code, name, method, aou, area_name, meta, family, official, notes, utm, polar = row
    role = []
    if official:
        role.append(f"official projected CRS for {official[0]} ({official[1]})")
    if utm:
        role.append("the UTM zone of the data's centre (as estimate_utm_crs)")
    if polar:
        role.append("polar " + ("north" if (meta["lat0"] or 0) > 0 else "south"))
    if not role:
        role.append(
            "local projected CRS"
            if sq <= 400.0
            else ("regional projected CRS" if sq < 20000 else "continental/global projected CRS")
        )
    short_area = _advisor_clip(area_name, 70)
    why = (
        f"EPSG:{code} {name}: {', '.join(role)}, {_advisor_units_word(meta['units'])}, "
        f"{_ADVISOR_FAMILY_WORDS[family]} ({method}), {notes[0]} at the data; area of use: {short_area}"
    )
    if notes[1:]:
        why += "; note: " + ", ".join(notes[1:])
    return {
        "epsg": code,
        "name": name,
        "area_of_use": {"name": _advisor_clip(area_name), "bounds": list(aou)},
        "method": method,
        "units": meta["units"],
        "why": why,
    }


def _advisor_plain(crs, why):
    """An entry for a CRS given as an object (the data's own, or a geographic one)."""
    aou = crs.area_of_use
    op = crs.coordinate_operation
    units = crs.axis_info[0].unit_name if crs.axis_info else "unknown"
    try:
        code = crs.to_epsg()
    except Exception:
        code = None
    name = crs.name if crs.name and crs.name != "unknown" else _advisor_clip(crs.srs or crs.to_proj4() or "", 100)
    return {
        "epsg": code,
        "name": name,
        "area_of_use": {"name": _advisor_clip(aou.name), "bounds": list(aou.bounds)} if aou is not None else None,
        "method": op.method_name if op is not None else "none (geographic lon/lat)",
        "units": units,
        "why": why,
    }


def _advisor_rank(ext, purpose, limit):
    kind = _advisor_purpose(purpose)
    if kind is None:
        return (
            f"unknown purpose {purpose!r}: use one of area, distance (also buffer, nearest, length), "
            f"display (web map), official (the region's national grid), same"
        )
    try:
        limit = max(1, int(limit))
    except Exception:
        limit = 3
    box = ext["box"]
    out = []
    if kind == "display":
        from pyproj import CRS

        beyond = box[1] < -85.06 or box[3] > 85.06
        if beyond:
            polar = CRS.from_epsg(3413 if ext["cy"] > 0 else 3031)
            out.append(
                _advisor_plain(
                    polar,
                    f"EPSG:{polar.to_epsg()} {polar.name}: the data reaches beyond Web "
                    f"Mercator's 85.06 degrees, a polar stereographic map shows it",
                )
            )
        out.append(
            _advisor_plain(
                CRS.from_epsg(3857),
                "EPSG:3857 WGS 84 / Pseudo-Mercator: the projection of web map "
                "tiles (basemaps, contextily), metres that are NOT true distances or areas",
            )
        )
        out.append(
            _advisor_plain(
                CRS.from_epsg(4326),
                "EPSG:4326 WGS 84: lon/lat degrees, what folium/leaflet "
                "and GeoJSON (RFC 7946) take; they project to Web Mercator themselves",
            )
        )
        return out[:limit]
    if kind == "same":
        crs = ext["crs"]
        own = _advisor_plain(crs, "")
        label = f"EPSG:{own['epsg']} {own['name']}" if own["epsg"] else f"custom CRS {own['name']}"
        if crs.is_geographic:
            own["why"] = (
                f"{label}: the data's own CRS, lon/lat degrees: fine to overlay, join and "
                f"write, not to measure (reproject for area or distance)"
            )
        else:
            metre = _advisor_is_metre(own["units"])
            own["why"] = (
                f"{label}: the data's own CRS, projected in {_advisor_units_word(own['units'])}: "
                f"reproject other layers to it for overlays and joins"
                + ("" if metre else "; lengths come out in these units, not metres")
            )
        aou = crs.area_of_use
        if aou is not None and not _advisor_fit(aou.bounds, box)[0]:
            w, s, e, n = box
            own["why"] += (
                f"; warning: the data [{w:.2f}, {s:.2f}, {e:.2f}, {n:.2f}] lies outside this CRS's "
                f"area of use ({aou.name[:60]}): the CRS set on the data may be wrong"
            )
        out.append(own)
        if limit > 1:
            rest = _advisor_rank(ext, "distance", limit)
            if isinstance(rest, list):
                out += [r for r in rest if r["epsg"] != own["epsg"]][: limit - 1]
        return out
    rows = _advisor_candidates(ext, kind)
    if not rows:
        return (
            f"no EPSG projected CRS's area of use contains the data [{box[0]:.2f}, {box[1]:.2f}, {box[2]:.2f}, "
            f"{box[3]:.2f}]; for {kind} use a custom one centred on it, e.g. "
            + (
                "'+proj=laea +lat_0=%.4f +lon_0=%.4f +datum=WGS84 +units=m'"
                if kind == "area"
                else "'+proj=aeqd +lat_0=%.4f +lon_0=%.4f +datum=WGS84 +units=m'"
            )
            % (ext["cy"], ext["cx"])
        )
    if kind == "official" and not any(r[9] for r in rows[:1]):
        out = [_advisor_entry(r, kind) for r in _advisor_diverse(rows, limit)]
        out[0]["why"] += "; no official national grid known to the advisor here: the best local conformal CRS instead"
        return out
    return [_advisor_entry(r, kind) for r in _advisor_diverse(rows, limit)]


def _advisor_diverse(rows, limit):
    """The best ``limit`` rows, a projection merely turned to another meridian (same method, area
    of use and datum: the North Pole LAEA family) only after the others."""
    first, later, seen = [], [], set()
    for r in rows:
        key = (r[4], tuple(r[5]), r[7]["geod"])
        (later if key in seen else first).append(r)
        seen.add(key)
        if len(first) >= limit:
            break
    return (first + later)[:limit]


def advise_crs(bounds, crs, purpose="distance", limit=3):
    """Ranked CRS advice for data with ``bounds`` [minx, miny, maxx, maxy] in ``crs``.

    ``purpose``: area, distance (buffer, nearest, length), display (web map), official, same.
    Returns [{epsg, name, area_of_use: {name, bounds}, method, units, why}], best first, or a
    sentence saying why there is no advice. Lon/lat data crossing the antimeridian: give
    west > east ([177, -19, -179, -16]) or 0..360 longitudes ([177, -19, 181, -16])."""
    try:
        ext = _advisor_extent(bounds, crs)
        if isinstance(ext, str):
            return ext
        return _advisor_rank(ext, purpose, limit)
    except Exception as exc:
        return f"the CRS advisor failed: {type(exc).__name__}: {str(exc)[:200]}"


# ---------------------------------------------------------------- layers: bounds and CRS, no full read

_ADVISOR_RASTER_EXT = (".tif", ".tiff", ".vrt", ".jp2", ".img", ".nc", ".asc", ".dem")


def _advisor_lon_span(xs):
    """(west, east) of longitudes, crossing the antimeridian (west > east) when that is narrower."""
    import numpy as np

    xs = np.asarray(xs, dtype=float)
    xs = xs[np.isfinite(xs)]
    if not len(xs):
        return None
    plain = (float(xs.min()), float(xs.max()))
    shifted = np.where(xs < 0, xs + 360.0, xs)
    lo, hi = float(shifted.min()), float(shifted.max())
    if hi - lo < plain[1] - plain[0] - 1e-9:
        return (_advisor_wrap(lo), _advisor_wrap(hi) if hi != 180.0 else 180.0)
    return plain


def _advisor_geoms_bounds(geoms, bounds, crs):
    """Bounds to advise on; lon/lat geometries spanning half the globe are looked at vertex by vertex:
    data around the antimeridian has a box from -180 to 180 but is narrow across it."""
    from pyproj import CRS

    crs = CRS.from_user_input(crs)
    if crs.is_geographic and bounds[2] - bounds[0] > 180.0:
        import shapely

        coords = shapely.get_coordinates(geoms)
        span = _advisor_lon_span(coords[:, 0]) if len(coords) else None
        if span is not None:
            return [span[0], bounds[1], span[1], bounds[3]]
    return list(bounds)


def _advisor_read_file(path, layer=None):
    """(bounds, crs, what) of a vector or raster file from its metadata, or an error text."""
    import os

    ext = os.path.splitext(path)[1].lower()
    if ext in (".parquet", ".geoparquet"):
        import pyarrow.parquet as pq

        geo = geoparquet_meta(pq.read_schema(path))
        if not geo:
            return f"`{path}` is plain Parquet without GeoParquet metadata: no geometry column or CRS to advise on"
        col, info, crs = geoparquet_primary(geo)
        if crs is None:
            return f"`{path}`: its GeoParquet metadata says the CRS of `{col}` is unknown (crs: null): set it first"
        bbox = info.get("bbox")
        if bbox and len(bbox) in (4, 6):  # [xmin, ymin, xmax, ymax] or with z: [xmin, ymin, zmin, xmax, ymax, zmax]
            bounds = [bbox[0], bbox[1], bbox[2], bbox[3]] if len(bbox) == 4 else [bbox[0], bbox[1], bbox[3], bbox[4]]
            # GeoParquet writes xmin > xmax for lon/lat data across the antimeridian; a box spanning
            # half the globe may be such data too, and is looked at vertex by vertex below.
            if bounds[0] > bounds[2] or bounds[2] - bounds[0] <= 180.0:
                return bounds, crs, f"GeoParquet `{path}` (metadata bbox)"
        import geopandas as gpd

        frame = gpd.read_parquet(path, columns=[col])
        if frame.empty or frame.geometry.is_empty.all():
            return f"`{path}` holds no geometries: no extent to advise on"
        return (
            _advisor_geoms_bounds(frame.geometry.values, frame.total_bounds, frame.crs or crs),
            frame.crs or crs,
            f"GeoParquet `{path}`",
        )
    if ext in _ADVISOR_RASTER_EXT:
        try:
            import rasterio

            with rasterio.open(path) as ds:
                if ds.crs is None:
                    return f"raster `{path}` has no CRS: set it first"
                return list(ds.bounds), ds.crs.to_wkt(), f"raster `{path}`"
        except ImportError:
            pass
    import pyogrio

    info = pyogrio.read_info(path, layer=layer, force_total_bounds=True)
    if not info.get("geometry_type") or info.get("features", 0) == 0:
        return f"`{path}` holds no features with geometry: no extent to advise on"
    if not info.get("crs"):
        tb = info.get("total_bounds")
        hint = ""
        if tb is not None and -180 <= tb[0] <= tb[2] <= 180 and -90 <= tb[1] <= tb[3] <= 90:
            hint = " (its coordinates look like lon/lat: EPSG:4326 is likely)"
        return f"`{path}` has no CRS{hint}: set it first (gdf.set_crs(...))"
    bounds = info.get("total_bounds")
    if bounds is None:
        return f"`{path}`: GDAL could not give its extent"
    bounds = list(bounds)
    from pyproj import CRS

    if CRS.from_user_input(info["crs"]).is_geographic and bounds[2] - bounds[0] > 180.0:
        frame = pyogrio.read_dataframe(path, layer=layer, columns=[])
        bounds = _advisor_geoms_bounds(frame.geometry.values, bounds, info["crs"])
    return bounds, info["crs"], f"`{path}`"


def _advisor_read(path_or_name, layer=None):
    """(bounds, crs, what) of a kernel variable (GeoDataFrame, GeoSeries) or a file, or an error text."""
    import os

    obj = path_or_name
    if isinstance(obj, (str, os.PathLike)):
        name = os.fspath(obj).strip()
        ns = _ns()
        found = False
        if name.isidentifier() and name in ns:
            obj, found = ns[name], True
        elif not os.path.exists(name) and _SIMPLE_EXPR.match(name):
            try:
                obj, found = _resolve(name), True
            except Exception:
                found = False
        if not found:
            if os.path.exists(name) or name.startswith(("/vsi", "http://", "https://", "s3://", "gs://")):
                return _advisor_read_file(name, layer)
            return f"`{name}` is neither a variable in the kernel nor an existing file"
        what = f"`{name}`"
    else:
        what = f"the {type(obj).__name__}"
    if not (hasattr(obj, "total_bounds") and hasattr(obj, "crs")):
        return (
            f"{what} is of type {type(obj).__name__}, not a GeoDataFrame or GeoSeries: "
            f"give a layer variable or a file path"
        )
    if len(obj) == 0:
        return f"{what} is empty (0 rows): no extent to advise on"
    if obj.crs is None:
        hint = ""
        try:
            b = [float(v) for v in obj.total_bounds]
            if -180 <= b[0] <= b[2] <= 180 and -90 <= b[1] <= b[3] <= 90:
                hint = " (its coordinates look like lon/lat: EPSG:4326 is likely)"
        except Exception:
            pass
        return f"{what} has no CRS{hint}: set it first ({what.strip('`')}.set_crs(...))"
    geoms = obj.geometry.values if hasattr(obj, "geometry") else obj.values
    bounds = [float(v) for v in obj.total_bounds]
    import math

    if not all(math.isfinite(v) for v in bounds):
        return f"{what} has only empty or missing geometries: no extent to advise on"
    return _advisor_geoms_bounds(geoms, bounds, obj.crs), obj.crs, what


def advise_layer(path_or_name, purpose="distance", limit=3, layer=None):
    """:func:`advise_crs` for a layer: a kernel variable name (GeoDataFrame/GeoSeries) or a file
    path (vector via pyogrio.read_info, GeoParquet via its metadata, raster via rasterio), read
    for its bounds and CRS only. Same answer shape, or a sentence saying why there is none."""
    try:
        got = _advisor_read(path_or_name, layer)
        if isinstance(got, str):
            return got
        bounds, crs, _ = got
        return advise_crs(bounds, crs, purpose, limit)
    except Exception as exc:
        return f"could not read {str(path_or_name)[:120]!r} for CRS advice: {type(exc).__name__}: {str(exc)[:200]}"


def advise_all(path_or_name, purposes=("area", "distance", "display", "official"), limit=3, layer=None):
    """{purpose: advise_layer answer} for several purposes, reading the layer once.
    ``path_or_name`` may also be {"bounds": [...], "crs": ...} for data that is not a layer."""
    if isinstance(purposes, str):
        purposes = [purposes]
    try:
        if isinstance(path_or_name, dict) and "bounds" in path_or_name:
            got = (path_or_name["bounds"], path_or_name.get("crs"), "the bounds")
        else:
            got = _advisor_read(path_or_name, layer)
        if isinstance(got, str):
            return {p: got for p in purposes}
        ext = _advisor_extent(got[0], got[1])
        if isinstance(ext, str):
            return {p: ext for p in purposes}
    except Exception as exc:
        text = f"could not read {str(path_or_name)[:120]!r} for CRS advice: {type(exc).__name__}: {str(exc)[:200]}"
        return {p: text for p in purposes}
    out = {}
    for p in purposes:
        try:
            out[p] = _advisor_rank(ext, p, limit)
        except Exception as exc:
            out[p] = f"the CRS advisor failed: {type(exc).__name__}: {str(exc)[:200]}"
    return out
