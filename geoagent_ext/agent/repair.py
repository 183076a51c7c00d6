"""Turn a failed attempt into the next attempt's context (seed 000, section 3.3).

Strategies, by error class:
- ``add_import``: a well-known alias (``np``, ``gpd``...) is undefined, or a
  submodule was used without importing it (``shapely.wkt`` after ``import
  shapely``); the fix is certain, so it is applied without asking the model.
- ``start_list``: an undefined name the code only appends to (``records.append(row)`` in a loop):
  ``records = []`` goes before its first use, without asking the model (bangkok-multicrs at
  ab135b6 got a step inserted to "create the variable `records`").
- ``insert_subtask``: any other undefined name; a new subtask that defines it
  is inserted before the current one (the paper's "cut and append").
- ``example_name``: an undefined name that an example in the retrieved docs uses
  (``stations.estimate_utm_crs()``) and neither the request nor the step speaks
  of: the model copied the example's variable; a step defining it would build
  the wrong thing, so the repair is told to use the session's own variables.
- ``drop_keyword``: a call passed on a keyword that the library it reaches refuses
  (``to_file(..., crs=32647)``: "Passing 'crs' is not supported with the 'pyogrio'
  engine"); it can never run with it, so it is taken out without asking the model (the
  1.5B put it back three times after being told); what the keyword meant is left to the
  contract's checks. So is a sibling method's keyword with no use where it is passed
  (``to_crs(..., allow_override=True)``: set_crs's).
- ``drop_import``: an import that fails (no such module, no such name in it) binds nothing the
  code uses (``from shapely.ops import buffer`` above code that never calls ``buffer``): it is
  taken out without asking the model (bangkok-multicrs at d518539: four model calls, 370 s,
  moving the import to other modules that do not exist either).
- ``fix_call``: a call to a geopandas API that was renamed or split, written the old or the
  sibling's way (``set_crs(X)`` on data that has another CRS is ``to_crs(X)``;
  ``sjoin(..., how='nearest', distance_col=...)`` is ``sjoin_nearest``;
  ``sjoin(op=...)`` is ``predicate=`` since geopandas 1.0): rewritten without asking the model
  (capetown-nn at d518539: three model calls, 100 s, never found ``sjoin_nearest``). A keyword the
  called function refuses a second time after its signature was shown (``distance(method=...)``
  with another value each time) is taken out the same way. A frame ``json.dump``-ed into a
  ``.geojson`` (shapes are not JSON serializable) is written with ``to_file(..., driver='GeoJSON')``
  (``codeinfo.with_geojson_written``).
- ``keep_frame``: a step rebound a GeoDataFrame's name to its own geometry (``gdf =
  gdf.simplify(10)``) and the trial's frame guard (``trial_guards.frame_guard``) saw the other columns go:
  the line becomes ``gdf = gdf.set_geometry(gdf.simplify(10))`` without asking the model
  (cairo-mixedgeom at 42b4435: the step ran, was solved, and every later step failed on a
  GeoSeries without the id the file needs).
- ``set_geometry``: a step wrote a frame whose active geometry column it had left out while one other
  column holds geometries (``trial_guards.unset_geometry_guard``; the GeoParquet opens nowhere): that
  column becomes its geometry before the write, without asking the model; likewise a GeoDataFrame
  built from one frame's columns alone (``trial_guards.geometryless_guard``) gets ``geometry=`` that
  frame's geometry.
- ``keep_geometry``: a step's ``gdf = gdf[['a', 'b']]`` left out the frame's geometry column where
  an output has geometries, and the trial's selection guard (``trial_guards.selection_guard``) saw a
  plain DataFrame: the geometry column joins the selection without asking the model (cairo-dedup at
  ab135b6: "Select the required columns", then a GeoParquet without geometry and seven repairs).
- ``make_valid``: a step buffered a layer's geometry by 0 (the old polygon repair) and the trial's
  guard (``trial_guards.emptied_guard``) saw geometries become empty (its points and lines): each such
  ``buffer(0)`` becomes ``make_valid()`` without asking the model (cairo-mixedgeom at 319bc4c);
  or, where the contract keeps invalid features repaired, a step's ``gdf = gdf[gdf.is_valid]``
  dropped them (``trial_guards.dropped_invalid_guard``): the filter becomes the repair (cairo-dedup at 42b4435).
- ``own_column``: ``target['c'] = other['s']`` between frames whose rows differ (the joined
  layer, not the join's result): the trial's alignment guard (``trial_guards.alignment_guard``) sees rows of
  ``target`` left empty, and when ``target`` has ``s`` from a join the value becomes
  ``target['s']`` without asking the model (capetown-nn at 42b4435: 83 of 120 names empty).
- ``rename_local``: a function assigns a name it also calls (``buffer = buffer(centroid, 10)``
  after ``from shapely import buffer``): Python makes it local to the whole function and the call
  fails (UnboundLocalError); the function's own variable is renamed, the calls keep the import
  (nyc-symdiff at ab135b6: three repairs and a rewritten step).
- ``drop_print``: the failing line is a ``print(...)`` whose arguments change no data, and the step
  does not ask to print or show anything (``print(f"... CRS: {borough_areas.crs}")`` on a plain
  DataFrame, after the file was written): the statement is taken out without asking the model,
  when no other certain fix applies (london at ab135b6: ten repairs of the report, the file never
  written, the run partial).
- ``members``: wrong attribute, wrong call or a bad import; the real members and
  signatures of the live object (the owner's name or attribute chain, looked up in the kernel) go
  into the prompt.
- ``text_not_frame``: a geo member asked of text (``layer.crs`` on a layer's name in a loop over
  ``list_layers``): in a loop over a file's layers the body first reads the layer (a certain
  fix, ``codeinfo.with_layer_read``); elsewhere the prompt says to read the frame the name
  stands for, not str's members. Likewise a KeyError where such a loop looks the layer up by
  name in a frame of one layer (``len(gdf[name])``: ``codeinfo.with_layer_looked_up``).
- ``data_profile``: a column/key the data does not have; the profile of the
  frames on the failing line (their real columns) goes into the prompt.
- ``analyse``: anything else; the model reads the shortened traceback, states
  the cause and regenerates.
"""

from __future__ import annotations

import ast
import re

from ..kernel.errors import GEO_MEMBERS
from . import codeinfo, fixes
from .fixes import Diagnosis


_UNBOUND_LOCAL = re.compile(r"local variable '(\w+)'")
_NAME_ERROR = re.compile(r"name '([^']+)' is not defined")
_ATTR_ERROR = re.compile(r"'?([\w.]+)'? (?:object|module) has no attribute '([^']+)'")
_MODULE_ATTR = re.compile(r"module '([\w.]+)' has no attribute '([^']+)'")
_CALL_ERROR = re.compile(
    r"(\w+)\(\) (?:got an unexpected keyword argument|missing \d+ required|takes \d+|got multiple values)"
)
_BAD_KEYWORD = re.compile(r"(?:unexpected keyword argument|multiple values for (?:keyword )?argument) '(\w+)'")
# A keyword a library refuses after taking it through **kwargs, in geopandas/pyogrio's words ("Passing
# 'crs' is not supported with the 'pyogrio' engine"; an unknown keyword becomes a GDAL option:
# "unrecognized option 'COLUMNS'"). A keyword the called function itself rejects goes to ``members``:
# its signature may name the keyword meant (sjoin's ``op`` is now ``predicate``; dropping it would
# change the join).
_REFUSED_KEYWORD = re.compile(r"Passing '(\w+)' is not supported|unrecognized option '(\w+)'")
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
# Keywords of a sibling method passed to one that has no such parameter and no use for it:
# ``to_crs(epsg=..., allow_override=True)`` (set_crs's keyword; geopandas' own error for set_crs
# suggests it) converts the same without it (cairo-mixedgeom at d518539: two model calls, 160 s).
_SIBLING_KEYWORDS = {"to_crs": ("allow_override",)}
# Calls written for another geopandas API: (function, keyword) -> the call as the API has it now.
_NEAREST = {"method": "sjoin_nearest", "drop": {"how": "nearest", "predicate": None, "op": None}}
_CALL_FIXES = {
    ("sjoin", "distance_col"): _NEAREST,
    ("sjoin", "max_distance"): _NEAREST,
    ("sjoin", "how"): _NEAREST,
    ("sjoin", "op"): {"rename": {"op": "predicate"}},
}
_HOW_NEAREST = re.compile(r'`how` was "nearest"')
# ``set_crs(X)`` on data that has another CRS: geopandas refuses and suggests allow_override=True,
# which would relabel the coordinates without moving them (nyc-symdiff at 42b4435: the model's
# repair did just that). Data with a CRS is put in another by reprojecting it: ``to_crs(X)``.
_CRS_ALREADY = re.compile(r"already has a CRS which is not equal to the passed CRS")
_IMPORT_NAME = re.compile(r"cannot import name '([^']+)' from '([\w.]+)'")


_MISSING_IN_INDEX = re.compile(r"""^["']?\[(?P<names>[^\]]*)\] not in index""")


def without_mended_columns(
    code: str, ename: str, evalue: str, lineno: int | None, mended: set[str]
) -> Diagnosis | None:
    """``df[['code', 'station_count']]`` failing on columns the contract's mend computes on the
    written file: the selection without them (a certain fix; other missing columns are then the
    error the model sees), or None."""
    match = _MISSING_IN_INDEX.match(evalue) if ename == "KeyError" and lineno else None
    missing = {n.strip().strip("'\"") for n in match.group("names").split(",")} & mended if match else set()
    lines = code.splitlines()
    if not missing or not 0 < lineno <= len(lines):
        return None
    line = lines[lineno - 1]
    for name in missing:
        line = re.sub(rf"""\s*,\s*(['"]){re.escape(name)}\1|(['"]){re.escape(name)}\2\s*,\s*""", "", line)
    if line == lines[lineno - 1]:
        return None
    fixed = "\n".join(lines[: lineno - 1] + [line] + lines[lineno:])
    return Diagnosis("drop_mended_column", evalue, name=", ".join(sorted(missing)), fixed_code=fixed)


def classify(
    code: str,
    ename: str,
    evalue: str,
    message: str,
    lineno: int | None,
    defined_before: set[str] | None = None,
    examples: str = "",
    own_words: str = "",
    refused_before: set[tuple[str, str]] | None = None,
    tripped: dict | None = None,
) -> Diagnosis:
    """Pick the repair strategy from the error; no I/O here (see ``enrich``). ``examples``: the
    docs the coder was shown; ``own_words``: the request and the step; ``refused_before``: the
    (function, keyword) pairs a called function already refused in this subtask; ``tripped``: what
    the trial guard that failed the attempt saw. The registry's rules (``fixes``) are asked first."""
    defined_before = defined_before or set()
    certain = fixes.diagnose(
        fixes.Failure(
            code, ename, evalue, message, lineno, defined_before, examples, own_words, refused_before or set(), tripped
        )
    )
    if certain:
        return certain
    shadowed = _UNBOUND_LOCAL.search(evalue) if ename == "UnboundLocalError" else None
    renamed = shadowed and codeinfo.with_local_renamed(code, shadowed.group(1))
    if renamed:
        return Diagnosis("rename_local", message, name=shadowed.group(1), fixed_code=renamed)
    fixed_call = _fixed_call(code, ename, evalue, message, lineno)
    if fixed_call:
        return fixed_call
    if ename in ("NameError", "UnboundLocalError"):
        match = _NAME_ERROR.search(evalue)
        if match:
            name = match.group(1)
            started = codeinfo.with_list_started(code, name) if name not in defined_before else None
            if started:
                return Diagnosis("start_list", message, name=name, fixed_code=started)
            if name not in defined_before and copied_from_example(name, examples, own_words):
                return Diagnosis("example_name", message, name=name)
            if name not in defined_before:
                return Diagnosis("insert_subtask", message, name=name)
    refused = _REFUSED_KEYWORD.search(evalue)  # the library refuses it in every call of that method
    dropped = refused and _dropping(code, next(g for g in refused.groups() if g), lineno, message, same_method=True)
    if dropped:
        return dropped
    if ename == "AttributeError":
        match = _MODULE_ATTR.search(evalue)
        if match:
            module, attr = match.group(1), match.group(2)
            return Diagnosis("members", message, name=attr, expression=module)
        match = _ATTR_ERROR.search(evalue)
        if match and match.group(1) in ("DataFrame", "Series") and match.group(2) in GEO_MEMBERS:
            # A plain pandas object where a GeoDataFrame was meant: the data's profile
            # names its geometry column and the exact call that builds the GeoDataFrame.
            return Diagnosis("data_profile", message, name=match.group(2))
        if match and match.group(1) == "str" and match.group(2) in GEO_MEMBERS:
            # A name used as the frame it names (bangkok-multicrs at 42b4435: `for layer in layers:
            # layer.crs`, four repairs shown str's members): say what to read, not what str has.
            owner = codeinfo.attribute_owner(code, match.group(2), lineno)
            return Diagnosis(
                "text_not_frame",
                message,
                name=match.group(2),
                expression=owner,
                fixed_code=codeinfo.with_layer_read(code, owner, lineno) if owner else None,
            )
        if match:
            attr = match.group(2)
            owner = codeinfo.attribute_owner(code, attr, lineno)
            return Diagnosis("members", message, name=attr, expression=owner)
    if ename == "TypeError":
        match = _CALL_ERROR.search(evalue)
        if match:
            func = match.group(1)
            keyword = _BAD_KEYWORD.search(evalue)
            sibling = (
                keyword
                and keyword.group(1) in _SIBLING_KEYWORDS.get(func, ())
                and _dropping(code, keyword.group(1), lineno, message)
            )
            if sibling:
                return sibling
            callee = codeinfo.callee_of(code, func, lineno)
            again = (
                keyword
                and (func, keyword.group(1)) in (refused_before or set())
                and _dropping(code, keyword.group(1), lineno, message)
            )
            if callee and again:  # its signature was shown and the model passed it again
                return again
            if callee:
                return Diagnosis("members", message, name=func, expression=callee)
            callee = keyword and codeinfo.call_passing(code, keyword.group(1), lineno)
            if callee:  # raised inside the library: the call on the line that passed the keyword is the one to fix
                return _dropping(code, keyword.group(1), lineno, message) or Diagnosis(
                    "members", message, name=callee.rsplit(".", 1)[-1], expression=callee
                )
    if ename in ("ImportError", "ModuleNotFoundError"):
        match = _IMPORT_NAME.search(evalue)
        failed = match.group(1) if match else None
        fixed = codeinfo.without_unused_import(code, lineno, failed)
        if fixed is not None:
            module = _NO_MODULE.search(evalue)
            return Diagnosis(
                "drop_import", message, name=failed or (module.group(1) if module else "the module"), fixed_code=fixed
            )
        if match:
            return Diagnosis("members", message, name=match.group(1), expression=match.group(2))
    looked_up = codeinfo.with_layer_looked_up(code, lineno) if ename == "KeyError" else None
    if looked_up:  # a layer looked up by name in a frame that holds one layer
        return Diagnosis(
            "text_not_frame", message, name=evalue.strip("'\""), expression=looked_up[1], fixed_code=looked_up[0]
        )
    if ename == "KeyError" or "not in index" in evalue or "columns" in evalue.lower():
        return Diagnosis("data_profile", message)
    return Diagnosis("analyse", message)


_ASKS_TO_SHOW = re.compile(r"\b(print|display|show|report)", re.IGNORECASE)


def without_failing_report(diagnosis: Diagnosis, code: str, lineno: int | None, step: str) -> Diagnosis:
    """``diagnosis``, or ``drop_print`` when it has no certain fix, the failing line is a report
    (``codeinfo.without_failing_print``) and ``step`` does not ask for one."""
    if diagnosis.fixed_code is not None or _ASKS_TO_SHOW.search(step):
        return diagnosis
    fixed = codeinfo.without_failing_print(code, lineno)
    return Diagnosis("drop_print", diagnosis.message, name="print", fixed_code=fixed) if fixed else diagnosis


def refused_keyword(ename: str, evalue: str) -> tuple[str, str] | None:
    """(function, keyword) when the called function itself refused a keyword."""
    call, keyword = _CALL_ERROR.search(evalue or ""), _BAD_KEYWORD.search(evalue or "")
    return (call.group(1), keyword.group(1)) if ename == "TypeError" and call and keyword else None


def _fixed_call(code: str, ename: str, evalue: str, message: str, lineno: int | None) -> Diagnosis | None:
    """The certain rewrite of a call written for another geopandas API (``_CALL_FIXES``)."""
    refused = refused_keyword(ename, evalue)
    if ename == "TypeError" and "is not JSON serializable" in (evalue or ""):
        written = codeinfo.with_geojson_written(code)
        return Diagnosis("fix_call", message, name="to_file", fixed_code=written) if written else None
    if refused is None and ename == "ValueError" and _CRS_ALREADY.search(evalue or ""):
        moved = codeinfo.with_call_edited(code, "set_crs", lineno, method="to_crs", drop={"allow_override": None})
        return Diagnosis("fix_call", message, name="set_crs", fixed_code=moved) if moved else None
    if refused is None and ename == "ValueError" and _HOW_NEAREST.search(evalue or ""):
        # Already sjoin_nearest, given how='nearest' (capetown-nn at c650f01: the model's repair went
        # on to sjoin(distance=...) and lost the distance column): only the keyword is wrong.
        nearest = codeinfo.with_call_edited(code, "sjoin_nearest", lineno, drop={"how": "nearest"})
        if nearest:
            return Diagnosis("fix_call", message, name="sjoin_nearest", fixed_code=nearest)
        refused = ("sjoin", "how")
    fix = _CALL_FIXES.get(refused) if refused else None
    fixed = fix and codeinfo.with_call_edited(code, refused[0], lineno, **fix)
    return Diagnosis("fix_call", message, name=refused[0], fixed_code=fixed) if fixed else None


def _dropping(code: str, keyword: str, lineno: int | None, message: str, same_method: bool = False) -> Diagnosis | None:
    """The certain fix for a keyword the library refuses: the call (or every call of its method) without it."""
    fixed = codeinfo.without_keyword(code, keyword, lineno, same_method=same_method)
    return Diagnosis("drop_keyword", message, name=keyword, fixed_code=fixed) if fixed and fixed.strip() else None


def copied_from_example(name: str, examples: str, own_words: str) -> bool:
    """``name`` is a variable of a docs example (used as ``name.``, ``name[``, ``name =``) that
    the request and the step never mention."""
    used = re.search(rf"(?<![\w.]){re.escape(name)}\s*(?:\.|\[|=(?!=))", examples)
    return bool(used) and not re.search(rf"\b{re.escape(name)}\b", own_words)


async def relocated_import(diagnosis: Diagnosis, code: str, lineno: int | None, kernel) -> Diagnosis | None:
    """The certain fix of ``from M import X`` (or ``m.X``) when M lacks X and another module has it:
    one of M's package, else one the session uses (asked of the live kernel: the installed
    versions decide), or None."""
    imported = _IMPORT_NAME.search(diagnosis.message) if diagnosis.strategy == "members" else None
    attribute = _MODULE_ATTR.search(diagnosis.message) if diagnosis.strategy == "members" and not imported else None
    if imported is None and attribute is None:
        return None
    name, module = imported.groups() if imported else attribute.groups()[::-1]
    try:
        homes = await kernel.probe("home_of", module, name, probe_timeout=30)
    except Exception:  # introspection is advice; the model's repair still follows
        return None
    if not homes:
        return None
    home, alias = homes[0]["module"], homes[0]["alias"]
    if imported:
        fixed = codeinfo.with_import_moved(code, lineno, name, home)
    else:
        fixed = codeinfo.with_attribute_moved(code, lineno, name, alias or home)
        fixed = fixed if fixed is None or alias else f"import {home}\n{fixed}"
    return Diagnosis("move_import", diagnosis.message, name=f"{home}.{name}", fixed_code=fixed) if fixed else None


async def enrich(diagnosis: Diagnosis, code: str, lineno: int | None, kernel) -> str:
    """Facts from the live kernel for the next prompt (empty when there are none)."""
    if diagnosis.strategy == "example_name":
        return (
            f"`{diagnosis.name}` is the variable of an example in the documentation, not one of this session: "
            "write the step with the session's own variables (listed above) that hold this data."
        )
    if diagnosis.strategy == "members" and diagnosis.expression:
        return await _series_frame(diagnosis, kernel) + await _members_context(diagnosis, kernel)
    if diagnosis.strategy == "text_not_frame":
        return text_not_frame_note(diagnosis.expression or "the variable", diagnosis.name or "", _data_path(code))
    if diagnosis.strategy == "data_profile":
        profiles = []
        for name in codeinfo.names_in_line(code, lineno)[:4]:
            try:
                profile = await kernel.profile(name)
            except Exception:
                profile = ""
            if profile:
                profiles.append(profile)
        return ("The data on the failing line really looks like this:\n" + "\n".join(profiles)) if profiles else ""
    return ""


_DATA_FILE = re.compile(r"\.(gpkg|geojson|json|shp|fgb|parquet|geoparquet)$", re.IGNORECASE)


def _data_path(code: str) -> str:
    """The first data file the code names, as a literal (``'roads.gpkg'``), else ``path``: the note's
    example is copied as written (bangkok-multicrs at ab135b6 copied ``path`` and got a step inserted
    to "create the variable `path`")."""
    tree = codeinfo.parse(code)
    found = (
        next(
            (
                n.value
                for n in ast.walk(tree)
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and _DATA_FILE.search(n.value)
            ),
            None,
        )
        if tree is not None
        else None
    )
    return repr(found) if found else "path"


def text_not_frame_note(owner: str, attr: str, path: str = "path") -> str:
    """What to do when text (a layer's name, a path, a group's key) was used as the frame it names."""
    return (
        f"`{owner}` holds text, not a GeoDataFrame, so it has no `.{attr}`. Use the frame that text stands for: "
        f"a layer name -> `frame = gpd.read_file({path}, layer={owner})`; a file path -> `frame = gpd.read_file({owner})`; "
        "a group's key -> `for key, frame in gdf.groupby(column):` gives (key, frame) pairs. "
        f"Then use `frame.{attr}`, and keep the text itself where a name is wanted (a `layer_name` value)."
    )


async def _series_frame(diagnosis: Diagnosis, kernel) -> str:
    """For a GeoSeries used as a table (tokyo-busstop at f2774b6: `buffered.to_parquet(...)`, then
    the hint's `gdf.copy()` applied to the GeoSeries itself): the GeoDataFrame with its rows, by
    name, and the line that puts the series back into it. Empty when there is none."""
    if "'GeoSeries' object has no attribute" not in diagnosis.message or not diagnosis.expression:
        return ""
    series = diagnosis.expression
    try:
        frames = await kernel.probe("frames_with_rows_of", series, probe_timeout=30)
    except Exception:  # advice only
        return ""
    if not frames:
        return ""
    frame = frames[0]
    return (
        f"`{series}` is a GeoSeries with the rows of the GeoDataFrame `{frame}`: out = gpd.GeoDataFrame("
        f"{frame}.drop(columns={frame}.geometry.name), geometry={series}, crs={series}.crs), then write out.\n"
    )


def _member_field(member, field: str) -> str:
    return (member.get(field) if isinstance(member, dict) else getattr(member, field, "")) or ""


async def _members_context(diagnosis: Diagnosis, kernel) -> str:
    """The closest real names with their signatures, then every public name, compactly.

    A GeoDataFrame has 300+ members: listing every signature would drown a small
    model, so signatures are given only for the likely intended names.
    """
    target = diagnosis.expression or ""
    members: list = []
    for expression in (target, target.rsplit(".", 1)[0] if "." in target else None):
        if not expression:
            continue
        try:
            members = await kernel.members(expression)
        except Exception:  # introspection is advice; never let it break the repair
            members = []
        if members:
            target = expression
            break
    try:
        close = await kernel.closest_names(target, diagnosis.name or "") if diagnosis.name else []
    except Exception:
        close = []
    by_name = {_member_field(m, "name"): m for m in members}
    parts = []
    if close:
        lines = [f"- {_member_field(by_name[n], 'signature') or n}" if n in by_name else f"- {n}" for n in close[:5]]
        parts.append(f"Closest real names to `{diagnosis.name}` on `{target}`:\n" + "\n".join(lines))
    called = diagnosis.name in by_name and _member_field(by_name[diagnosis.name], "signature")
    if called:
        parts.append(f"Real signature: {target}.{called}")
    if members:
        names = ", ".join(n for n in by_name if not n.startswith("_"))
        parts.append(f"Real members of `{target}` in the kernel: {names[:3000]}")
    return "\n".join(parts)


def define_subtask_text(name: str, current_subtask: str) -> str:
    return f"Create the variable `{name}` that the next step needs ({current_subtask.rstrip('.')})."


def error_signature(ename: str, evalue: str, statement: str | None) -> tuple[str, str, str]:
    """The same error on the same statement (numbers in the message ignored: ids, lengths and
    addresses change between otherwise identical failures). The statement's text, not its line
    number: a repair that adds a comment or an import above it moves the line, not the mistake;
    nor does a comment it adds on the line ("# Corrected import")."""
    return (
        ename,
        re.sub(r"\d+", "N", (evalue or "").splitlines()[0] if evalue else "")[:200],
        re.sub(r"\s+", " ", codeinfo.without_comment(statement or "")).strip(),
    )


def repair_the_code_before(answer_kind: str, previous_code: str | None) -> bool:
    """Whether the next repair starts from the code before an answer of this kind: yes when the
    answer held only comments (``NoCode``) and the code before it was code. The 1.5B often answers
    a note-style repair with the note echoed as comments; repairing those comments loses the
    step's real code (bangkok-multicrs at 097316b: three attempts built on the comments)."""
    return (
        answer_kind == "NoCode"
        and bool(previous_code)
        and codeinfo.analyse(previous_code or "").problem_kind != "NoCode"
    )


NO_CODE_AGAIN = (
    "Your last answer held only comments (the note repeated), no code. Answer with the whole code "
    "of the step below, the fix applied in it."
)


def with_no_code_note(context: str) -> str:
    """``context`` led by the reminder that a comment-only answer is not an answer (once)."""
    return context if context.startswith(NO_CODE_AGAIN) else NO_CODE_AGAIN + ("\n" + context if context else "")


def escalation_note(variables: str, same: str = "error") -> str:
    """Context for a repair after the same error (or the same defect of the result) a second
    time: stop repeating it, here is the real data."""
    if same == "error":
        note = (
            "The SAME error happened twice at the same place. Do not repeat that call, argument or column: "
            "take a different approach to this step."
        )
    else:
        note = (
            "The SAME problem with the result happened twice: the last fix did not change it. Do not write "
            "the same code again: take a different approach (follow the 'How:' hint literally)."
        )
    if variables:
        note += "\nThe variables in the kernel really are:\n" + variables
    return note
