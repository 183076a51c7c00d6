"""A code said to have a fixed number of digits ("postcode (the 5-digit ZIP as text)", "the plain
5-digit code", "zero-padded to 4 digits", "3 digits with leading zeros"): every value is written as
exactly that many digits, as the file holds it (a CSV read as text), so a code written as a float
("10013.0") or that lost its leading zeros (1234 for "01234") is seen."""

from __future__ import annotations

import re

from ..checker import _contract_holder
from ._kind import Builder, ColumnParams, RequestView, RequirementKind


class DigitCodeParams(ColumnParams):
    digits: int


def _kind_digit_code(params, path, fmt, layers):
    """(passed, observed): every value of the column that is not blank is exactly ``digits``
    digits as written (a CSV's text; a JSON string, or an integer of that many digits)."""
    name, n = params["name"], int(params["digits"])
    if fmt == "csv":
        import pandas as pd

        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        if name not in frame.columns:
            return False, f"`{name}` is not a column of the file"
        values = frame[name].tolist()
    else:
        holder = None
        for data in layers.values():
            holder = _contract_holder(data, name)
            if holder is not None:
                break
        if holder is None:
            return False, f"`{name}` is not in the file"
        values = holder[name]
        values = values.tolist() if hasattr(values, "tolist") else values if isinstance(values, list) else [values]
    bad, seen = [], 0
    for v in values:
        if v is None or (isinstance(v, float) and v != v) or (isinstance(v, str) and not v.strip()):
            continue
        seen += 1
        if isinstance(v, str):
            ok = v.strip().isdigit() and len(v.strip()) == n
        else:
            ok = isinstance(v, int) and not isinstance(v, bool) and 0 <= v and len(str(v)) == n
        if not ok:
            bad.append(v)
    if not seen:
        return False, f"`{name}` holds no values"
    if bad:
        return False, f"`{name}`: {len(bad)} of {seen} values are not {n}-digit codes (e.g. {bad[0]!r})"
    return True, f"`{name}`: {seen} values, each {n} digits"


_WORD_DIGITS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_N = r"(?P<n>\d{1,2}|" + "|".join(_WORD_DIGITS) + r")"
# "5-digit", "a 5 digit code", "zero-padded to 5 digits", "5 digits with leading zeros" (not "rounded
# to 2 digits", "3 digits after the point": a precision, not a code's width)
_DIGITS_SAID = re.compile(
    r"(?:" + _N + r"(?:-|\s+)digit\b(?!s)(?!\s+(?:after|behind|past|of)\b)"
    r"|(?:zero[\s-]?padded|padded(?:\s+with\s+zeros?)?|left[\s-]padded)\s+to\s+"
    + _N.replace("?P<n>", "?P<m>")
    + r"\s+digits\b"
    r"|" + _N.replace("?P<n>", "?P<k>") + r"\s+digits\s+(?:with|keeping|incl\w*)\s+(?:the\s+|its\s+|any\s+)?"
    r"leading\s+zeros?)",
    re.I,
)
_PRECISION = re.compile(r"\b(?:round\w*|decimals?|significant|precision|places?)\b", re.I)


def _digits_of(text: str, name: str) -> int | None:
    """The number of digits the words right after ``name`` give its values (no comma, stop or
    other parenthesis between: the words of that column, not the next one's)."""
    col = r"(?<![\w`'\"])[`'\"]?" + re.escape(name) + r"[`'\"]?(?![\w`'\"])"
    for m in re.finditer(col, text):
        tail = re.match(r"\s*\(?[^,;.()\n]{0,40}", text[m.end() :])
        said = _DIGITS_SAID.search(text[m.end() : m.end() + (tail.end() if tail else 0) + 30])
        if said is None or said.start() > (tail.end() if tail else 0):
            continue
        if _PRECISION.search(text[m.end() : m.end() + said.end()]):
            continue
        n = (said.group("n") or said.group("m") or said.group("k")).lower()
        return _WORD_DIGITS[n] if n in _WORD_DIGITS else int(n)
    return None


def read_digit_code(request: RequestView, b: Builder) -> None:
    """A column of an output (one it lists, or an input's column its sentence names) said right
    after its name to be a code of N digits: each value is written as N digits."""
    for out in request.outputs:
        about = [s for s, outs, _ in request.sentences if outs == [out]] or (
            [request.text] if len(request.outputs) == 1 else []
        )
        names = list(b.columns_of(out))
        names += [c for facts in request.inputs.values() for c in facts.get("columns") or [] if c not in names]
        for name in names:
            for sentence in about:
                n = _digits_of(" ".join(sentence.split()), name)
                if n is None or not 2 <= n <= 12:
                    continue
                b.reading(sentence, True).add(
                    out, "digit_code", f"`{name}` is written as {n}-digit codes", name=name, digits=n
                )
                break


DIGIT_CODE = RequirementKind(
    name="digit_code",
    params=DigitCodeParams,
    check=_kind_digit_code,
    reads="file",
    advice=(
        "write the code as text of exactly that many digits: read it as str (dtype=str), drop the rows without "
        "one first, and zero-pad (.str.zfill(N)); never let it become a float (10013.0)"
    ),
    read=read_digit_code,
)
