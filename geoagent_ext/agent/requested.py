"""What the request says its output files must hold, for the after-step checks.

"write it to `clinic_inventory.json` with keys `count`, `bbox`, and
`count_per_subdistrict`" names a file and the keys it needs. A step that
writes that file with other keys ran fine but did not do what was asked, and
only a check can tell (the small local models often drift from the request's
schema). We read the request only: no task-specific knowledge.
"""

from __future__ import annotations

import posixpath
import re

_FILE = re.compile(
    r"`?([\w./-]+\.(?:json|geojson|csv|gpkg|parquet|geoparquet|shp|fgb|tif|tiff|png|html))\b`?", re.IGNORECASE
)
_FIELD_WORDS = re.compile(r"\b(keys?|columns?|fields?|properties|attributes)\b", re.IGNORECASE)
_TICKED = re.compile(r"`([A-Za-z_][\w ]{0,63})`")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")


def requested_fields(request: str) -> dict[str, list[str]]:
    """``{file basename: [required keys or columns]}`` for the files the request names.

    Names count when they are in backticks after a word like "keys" or
    "columns"; they belong to the files of their sentence or, when it names
    none ("Use three columns with these exact names: ..."), of the last
    sentence that did. Input files get entries too; only written files are checked.
    """
    out: dict[str, list[str]] = {}
    files: list[str] = []
    for sentence in _SENTENCE.split(request):
        named = [posixpath.basename(m.group(1)) for m in _FILE.finditer(sentence)]
        files = named or files
        words = _FIELD_WORDS.search(sentence)
        if not files or not words:
            continue
        names = [n for n in _TICKED.findall(sentence[words.end() :]) if not _FILE.fullmatch(n)]
        for name in files if names else ():
            out.setdefault(name, [])
            out[name] += [n for n in names if n not in out[name]]
    return out


def fields_for(written_files: list[str], request: str) -> dict[str, list[str]]:
    """The requested fields of the files a step writes (by path as the code wrote it)."""
    wanted = requested_fields(request)
    return {path: wanted[posixpath.basename(path)] for path in written_files if posixpath.basename(path) in wanted}


def requested_files(request: str) -> list[str]:
    """Every file path the request names, in order (inputs and outputs alike)."""
    return list(dict.fromkeys(m.group(1) for m in _FILE.finditer(request)))


def output_subtask(path: str) -> str:
    """The subtask added when a plan ran out without writing a file the request names."""
    return f"Compute everything the request asks for that is not done yet and write it to `{path}`."


_CONTRACT_FIX = "Fix `{path}` so that it meets these requirements, then write it again: "


def contract_subtask(path: str, problems: list[str]) -> str:
    """The subtask added when a written output does not meet the contract: what is wrong, what was seen."""
    return _CONTRACT_FIX.format(path=path) + "; ".join(problems)


def contract_subtask_output(description: str, outputs: list[str]) -> str | None:
    """The output a ``contract_subtask`` fixes, or None for any other step."""
    return next((p for p in outputs if description.startswith(_CONTRACT_FIX.format(path=p))), None)


def subtask_outputs(artifacts: list[str], outputs: list[str]) -> list[str]:
    """The request's output files a subtask names (a subtask saying it writes them must)."""
    wanted = {posixpath.basename(p) for p in outputs}
    return [a for a in artifacts if posixpath.basename(a) in wanted]


# What the trial says of an output the step left unwritten ({} is the path); ``unwritten_output`` reads it back.
_UNWRITTEN = "this step must write {} (the request asks for it), but the code did not write it"


def output_guard(paths: list[str]) -> str:
    """Code appended to a trial: fail it when the step did not write the files it must.

    The trial's sandbox sees the files the trial wrote, so this is the real check,
    not a guess from the code's text.
    """
    if not paths:
        return ""
    return (
        f"\nfor _geoagent_path in {list(paths)!r}:\n"
        "    if not __import__('os').path.exists(_geoagent_path):\n"
        f"        raise FileNotFoundError(f{_UNWRITTEN.format('{_geoagent_path}')!r})"
    )


def unwritten_output(evalue: str) -> str | None:
    """The output an ``output_guard`` failure says the step did not write, or None for any other error."""
    found = re.search(re.escape(_UNWRITTEN).replace(re.escape("{}"), r"(\S+)"), evalue)
    return found.group(1) if found else None
