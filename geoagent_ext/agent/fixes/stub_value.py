"""A value the code itself calls a placeholder, which would be written into the deliverable as a result."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Any

from .. import codeinfo
from .base import Rule, TrialFacts

# A comment that says the value beside it stands in for one still to be computed
_STUB = re.compile(
    r"\b(?:placeholder|dummy|stub|todo|fixme)\b.*\b(?:replace|actual|real|implement\w*|later|proper)\b"
    r"|\breplace\s+(?:this\s+|it\s+)?with\s+(?:the\s+|an?\s+)?(?:actual|real|proper)\b",
    re.IGNORECASE,
)


class StubValue(Rule):
    """``encoding = 'utf-8'  # Placeholder, replace with actual check``: the step runs, its file is
    written, and the deliverable holds a guess the code admits is one, which the contract may have no
    requirement to catch. The trial fails such a step, so the value is computed (or the step goes to
    the user) instead of being reported as a result. A column the contract's mend computes from the
    data (the coder is told to leave it out) may hold a placeholder: the mend replaces it."""

    order = 30

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        stubs = [stub for stub in stub_values(code) if _target_name(stub[0]) not in facts.mended_columns]
        if not stubs:
            return ""
        said = "; ".join(f"`{name}` (line {line}: {comment!r})" for name, line, comment in stubs[:3])
        return (
            "\nraise ValueError("
            + repr(
                f"The code sets {said} to a value its own comment calls a placeholder. Compute the value "
                "from the data as the request asks: a placeholder written into the result would be reported "
                "as an answer."
            )
            + ")\n"
        )


def _comments(code: str) -> dict[int, str]:
    """Each line's comment, by line number."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return {}
    return {t.start[0]: t.string.lstrip("#").strip() for t in tokens if t.type == tokenize.COMMENT}


def stub_values(code: str) -> list[tuple[str, int, str]]:
    """(target, line, comment) of each name or column set to a literal (a string, number or None) whose comment,
    on its line or alone on the line above, says it is a placeholder to be replaced."""
    tree = codeinfo.parse(code)
    comments = _comments(code)
    if tree is None or not comments:
        return []
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)):
            continue
        for line in (node.lineno, node.lineno - 1):
            comment = comments.get(line, "")
            if _STUB.search(comment):
                targets = [ast.get_source_segment(code, t) for t in node.targets]
                found += [(target, node.lineno, comment) for target in targets if target]
                break
    return sorted(found, key=lambda stub: stub[1])


def _target_name(target: str) -> str:
    """The name a stub sets: a variable's, or the column's of ``frame['column']``."""
    quoted = re.search(r"\[\s*['\"]([^'\"]+)['\"]\s*\]\s*$", target)
    return quoted.group(1) if quoted else target.strip()
