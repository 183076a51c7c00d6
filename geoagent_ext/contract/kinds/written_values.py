"""How a column's values are written, where the request shows it: whole numbers without a decimal
part ("10002, not 10002.0") and flags as booleans ("near (True/False)").

Whole numbers are read from the file's text where it is text (a CSV column with a blank cell is
read back as floats, though every value is written whole); booleans accept a bool column or the
words True/False in any case.
"""

import re

from ._kind import Builder, ColumnParams, RequestView, RequirementKind


def _kind_whole_numbers(params, path, fmt, layers):
    """(passed, observed): no value of the column is written with a decimal part."""
    import re as _re

    name = params["name"]
    if fmt == "csv":
        import pandas as pd

        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        if name not in frame.columns:
            return False, f"`{name}` is not in the file"
        written = [v for v in frame[name].tolist() if v != ""]
        bad = [v for v in written if not _re.fullmatch(r"[+-]?\d+", v.strip())]
        return not bad, f"`{name}` written as {written[:3]}" + (f": not whole numbers {bad[:3]}" if bad else "")
    for data in layers.values():
        if isinstance(data, dict) or name not in getattr(data, "columns", ()):
            return False, f"`{name}` is not in the file"
        values = [v for v in data[name].tolist() if v is not None and v == v]
        bad = [v for v in values if isinstance(v, bool) or not (isinstance(v, int) or str(v).lstrip("+-").isdigit())]
        return not bad, f"`{name}` first values {values[:3]}" + (f": not whole numbers {bad[:3]}" if bad else "")
    return False, "nothing to read"


def _kind_booleans(params, data, value, sources):
    """(passed, observed): every value is True or False (a bool column, or those words)."""
    name = params["name"]
    values = value.tolist() if hasattr(value, "tolist") else (value if isinstance(value, list) else [value])
    bad = [v for v in values if not isinstance(v, bool) and str(v).strip().lower() not in ("true", "false")]
    return not bad, f"`{name}` values {sorted(set(map(str, values)))[:5]}" + (
        f": not True/False {bad[:3]}" if bad else ""
    )


# "(10002, not 10002.0)", "12 rather than 12.0"
_WHOLE_SHOWN = re.compile(r"\b(\d+)\s*,?\s*(?:not|rather\s+than|instead\s+of)\s+\1\.0+\b", re.IGNORECASE)
# "near_hospital (True/False)", "`flag` as true/false"
_BOOLEAN_SHOWN = re.compile(
    r"`?(?P<name>[A-Za-z_]\w*)`?\s*(?:\(\s*|as\s+|:\s*)(?:a\s+)?(?:true\s*/\s*false|false\s*/\s*true|boolean)\b",
    re.IGNORECASE,
)


def _named_in(sentence: str, columns: list[str]) -> list[str]:
    """The columns a sentence names, as written or in the plural ("Postcodes ..." names `postcode`)."""
    words = {w.lower() for w in re.findall(r"[A-Za-z_]\w*", sentence)}
    return [c for c in columns if c.lower() in words or f"{c.lower()}s" in words]


def read_written_values(request: RequestView, b: Builder) -> None:
    """Whole numbers and booleans shown by example, on the one asked column the sentence names."""
    for sentence, outs, sure in request.sentences:
        if not sure:
            continue
        for out in outs:
            columns = b.columns_of(out)
            if _WHOLE_SHOWN.search(sentence):
                named = _named_in(_WHOLE_SHOWN.sub(" ", sentence), columns)
                if len(named) == 1:
                    b.reading(sentence, True)
                    b.add(out, "whole_numbers", f"`{named[0]}` is written as whole numbers", name=named[0])
            for m in _BOOLEAN_SHOWN.finditer(sentence):
                if m.group("name") in columns:
                    b.reading(sentence, True)
                    b.add(out, "booleans", f"`{m.group('name')}` is True or False", name=m.group("name"))


WHOLE_NUMBERS = RequirementKind(
    name="whole_numbers",
    params=ColumnParams,
    check=_kind_whole_numbers,
    reads="file",
    advice=(
        "write COLUMN as whole numbers (10002, not 10002.0): drop the rows without one if the request "
        "says so, then .astype('int64') (or 'Int64' when blanks stay), or write them as text"
    ),
    read=read_written_values,
)
BOOLEANS = RequirementKind(
    name="booleans",
    params=ColumnParams,
    check=_kind_booleans,
    reads="column",
    advice="COLUMN holds booleans: True/False (a comparison's result, .astype(bool)), not yes/no or 1/0",
)
