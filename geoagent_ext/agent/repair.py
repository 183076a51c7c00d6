"""Turn a failed attempt into the next attempt's context.

``classify`` picks the repair strategy: a rule of the registry (``fixes``) when one knows the
failure for certain (the next attempt is its rewrite, no model call), else what the model is given
to repair it with (``enrich`` asks the live kernel for it: members, data profiles, notes). The rest
is what the repair prompt says around a failure seen again or an answer without code."""

from __future__ import annotations

import ast
import re

from . import codeinfo, fixes
from .fixes import Diagnosis
from .fixes.base import UNDEFINED_NAME
from .gis_hints import GEO_MEMBERS

# the path of "No such file or directory: 'x.csv'" or of pyogrio's "x.csv: No such file or directory"
_MISSING_FILE = re.compile(r"No such file or directory: ['\"]([^'\"]+)['\"]|([^\s:'\"]+): No such file or directory")
_ATTR_ERROR = re.compile(r"'?([\w.]+)'? (?:object|module) has no attribute '([^']+)'")
_MODULE_ATTR = re.compile(r"module '([\w.]+)' has no attribute '([^']+)'")
_IMPORT_NAME = re.compile(r"cannot import name '([^']+)' from '([\w.]+)'")


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
    subtask: str | None = None,
    mended: set[str] | None = None,
) -> Diagnosis:
    """Pick the repair strategy from the error; no I/O here (see ``enrich``). The registry's rules
    (``fixes``) are asked first; what none of them knows goes to the model with the context its
    strategy names. ``examples``: the docs the coder was shown; ``own_words``: the request and the
    step; ``refused_before``: the (function, keyword) pairs a called function already refused in
    this subtask; ``tripped``: what the trial guard that failed the attempt saw; ``mended``: the
    columns the contract's mend computes; ``subtask``: the step's words, given when the rules kept
    for a failure nothing fixes for certain may answer too."""
    failure = fixes.Failure(
        code,
        ename,
        evalue,
        message,
        lineno,
        defined_before or set(),
        examples,
        own_words,
        refused_before or set(),
        tripped,
        subtask or "",
        mended or set(),
    )
    diagnosis = fixes.diagnose(failure) or _asked(failure)
    if diagnosis.fixed_code is None and subtask is not None:
        return fixes.diagnose(failure, unfixed=True) or diagnosis
    return diagnosis


def _asked(failure: fixes.Failure) -> Diagnosis:
    """The strategy of a failure no rule fixes: the model repairs it, given what the strategy names."""
    code, ename, evalue, message, lineno = failure.code, failure.ename, failure.evalue, failure.message, failure.lineno
    undefined = UNDEFINED_NAME.search(evalue) if ename in ("NameError", "UnboundLocalError") else None
    name = undefined.group(1) if undefined else None
    if name and name not in failure.defined_before:
        strategy = (
            "example_name" if copied_from_example(name, failure.examples, failure.own_words) else "insert_subtask"
        )
        return Diagnosis(strategy, message, name=name)
    missing = _MISSING_FILE.search(evalue) if ename in ("FileNotFoundError", "DataSourceError") else None
    path = (missing.group(1) or missing.group(2)) if missing else ""
    if path and copied_file_from_example(path, failure.examples, failure.own_words):
        return Diagnosis("example_name", message, name=path, expression="file")
    module = _MODULE_ATTR.search(evalue) if ename == "AttributeError" else None
    if module:
        return Diagnosis("members", message, name=module.group(2), expression=module.group(1))
    attribute = _ATTR_ERROR.search(evalue) if ename == "AttributeError" else None
    if attribute and attribute.group(1) in ("DataFrame", "Series") and attribute.group(2) in GEO_MEMBERS:
        # A plain pandas object where a GeoDataFrame was meant: the data's profile
        # names its geometry column and the exact call that builds the GeoDataFrame.
        return Diagnosis("data_profile", message, name=attribute.group(2))
    if attribute:
        owner = codeinfo.attribute_owner(code, attribute.group(2), lineno)
        return Diagnosis("members", message, name=attribute.group(2), expression=owner)
    imported = _IMPORT_NAME.search(evalue) if ename in ("ImportError", "ModuleNotFoundError") else None
    if imported:
        return Diagnosis("members", message, name=imported.group(1), expression=imported.group(2))
    if ename == "KeyError" or "not in index" in evalue or "columns" in evalue.lower():
        return Diagnosis("data_profile", message)
    return Diagnosis("analyse", message)


def copied_from_example(name: str, examples: str, own_words: str) -> bool:
    """``name`` is a variable of a docs example (used as ``name.``, ``name[``, ``name =``) that
    the request and the step never mention."""
    used = re.search(rf"(?<![\w.]){re.escape(name)}\s*(?:\.|\[|=(?!=))", examples)
    return bool(used) and not re.search(rf"\b{re.escape(name)}\b", own_words)


def copied_file_from_example(path: str, examples: str, own_words: str) -> bool:
    """``path`` (its file name) is read in a docs example and named nowhere in the request or the step."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return bool(name) and name in examples and name not in own_words


async def enrich(diagnosis: Diagnosis, code: str, lineno: int | None, kernel) -> str:
    """Facts from the live kernel for the next prompt (empty when there are none)."""
    if diagnosis.strategy == "example_name" and diagnosis.expression == "file":
        return (
            f"`{diagnosis.name}` is a file of an example in the documentation, not of this data: read only "
            "the files the request names (listed above), or use the session's variables that already hold them."
        )
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
        names = codeinfo.names_in_line(code, lineno)[:4]
        elsewhere = await _column_elsewhere(diagnosis.message, names, kernel)
        profiles = []
        for name in names:
            try:
                profile = await kernel.profile(name)
            except Exception:
                profile = ""
            if profile:
                profiles.append(profile)
        seen = ("The data on the failing line really looks like this:\n" + "\n".join(profiles)) if profiles else ""
        return "\n".join(part for part in (elsewhere, seen) if part)
    return ""


_MISSING_KEY = re.compile(r"KeyError: ['\"]([^'\"]+)['\"]")


async def _column_elsewhere(message: str, names: list[str], kernel) -> str:
    """For a column asked of a table that lacks it while another table of the session has it: which
    table holds it and how the rows get it (by location for two layers, a spatial join; else a merge
    on a shared key). A small model otherwise renames the column or guesses another, attempt after
    attempt. Empty when no other table has it."""
    missing = _MISSING_KEY.search(message)
    if not missing or not names:
        return ""
    column = missing.group(1)
    try:
        holders = await kernel.probe("column_holders", column, names, probe_timeout=30)
    except Exception:  # advice only
        return ""
    notes = []
    for frame, holder, how in holders or []:
        if how == "key":
            notes.append(
                f"`{frame}` has no column `{column}`; the table `{holder}` has it: merge `{holder}` into "
                f"`{frame}` on a column both really have, or take `{column}` from `{holder}`."
            )
            continue
        predicate = "within" if how == "within" else "intersects"
        notes.append(
            f"`{frame}` has no column `{column}`; the layer `{holder}` has it. To give each row of `{frame}` "
            f"the `{column}` of the `{holder}` feature it lies in, join them by location (same CRS first): "
            f"`{frame} = gpd.sjoin({frame}, {holder}[['{column}', {holder}.geometry.name]].to_crs({frame}.crs), "
            f"how='left', predicate='{predicate}').drop(columns='index_right')`."
        )
    return "\n".join(notes)


_DATA_FILE = re.compile(r"\.(gpkg|geojson|json|shp|fgb|parquet|geoparquet)$", re.IGNORECASE)


def _data_path(code: str) -> str:
    """The first data file the code names, as a literal (``'roads.gpkg'``), else ``path``: the note's
    example is copied as written, and a placeholder name copied would get a step inserted to create it."""
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
        f"a layer name -> `frame = gpd.read_file({path}, layer={owner})`; "
        f"a file path -> `frame = gpd.read_file({owner})`; "
        "a group's key -> `for key, frame in gdf.groupby(column):` gives (key, frame) pairs. "
        f"Then use `frame.{attr}`, and keep the text itself where a name is wanted (a `layer_name` value)."
    )


async def _series_frame(diagnosis: Diagnosis, kernel) -> str:
    """For a GeoSeries used as a table (``buffered.to_parquet(...)``; a frame's method applied to the
    series does not help): the GeoDataFrame with its rows, by name, and the line that puts the
    series back into it. Empty when there is none."""
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
    answer held only comments (``NoCode``) and the code before it was code. Small models often
    answer a note-style repair with the note echoed as comments; repairing those comments loses
    the step's real code."""
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
