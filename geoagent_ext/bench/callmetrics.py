"""Function-call metrics: which functions generated code calls, compared with a reference solution.

Names. A call is named by its final attribute (``gpd.read_file`` -> ``read_file``,
``gdf.geometry.buffer`` -> ``buffer``, ``sjoin`` -> ``sjoin``): import aliases and variable
names differ between any two solutions, the API function does not. Not counted: Python
builtins called bare (``print``, ``len``, ``int``: they say nothing about the GIS method) and
functions or classes the code defines itself (helper names are arbitrary).

Metrics, over the two sets G (generated) and R (reference):
- precision = |G & R| / |G|, recall = |G & R| / |R|, f1 = their harmonic mean;
- hamming_loss = |G ^ R| / |G | R|: the multi-label Hamming loss with the union of both sets
  as the label vocabulary (each function is a label, predicted or not), i.e. 1 - Jaccard.
An empty denominator gives 1.0 when both sets are empty (nothing to call, nothing called)
and 0.0 otherwise; hamming_loss of two empty sets is 0.0.
"""

from __future__ import annotations

import ast
import builtins
import re

BUILTIN_NAMES = frozenset(dir(builtins))
MAGIC_LINE = re.compile(r"^\s*[%!]")


def _parse(code: str) -> list[ast.AST]:
    """Modules to walk: the whole code, else each blank-line separated chunk that parses.

    Notebook code may carry IPython magics (``%matplotlib``, ``!pip``) or one broken cell; the
    rest still tells which functions were called."""
    cleaned = "\n".join("" if MAGIC_LINE.match(line) else line for line in code.splitlines())
    try:
        return [ast.parse(cleaned)]
    except SyntaxError:
        trees = []
        for chunk in re.split(r"\n\s*\n", cleaned):
            try:
                trees.append(ast.parse(chunk))
            except SyntaxError:
                continue
        return trees


def _call_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None  # calls of calls / subscripts: (lambda: 1)(), handlers[k]()


def called_functions(code: str) -> set[str]:
    """Final names of the functions/methods the code calls (see module docstring)."""
    trees = _parse(code or "")
    defined: set[str] = set()
    names: list[tuple[str, bool]] = []
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
                defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.Call):
                name = _call_name(node.func)
                if name:
                    names.append((name, isinstance(node.func, ast.Name)))
    return {name for name, bare in names if not (bare and (name in BUILTIN_NAMES or name in defined))}


def _ratio(numerator: int, denominator: int, both_empty: bool) -> float:
    if denominator == 0:
        return 1.0 if both_empty else 0.0
    return numerator / denominator


def call_metrics(generated: set[str], reference: set[str]) -> dict[str, float]:
    """precision, recall, f1 and hamming_loss of ``generated`` against ``reference``."""
    generated, reference = set(generated), set(reference)
    both_empty = not generated and not reference
    common = len(generated & reference)
    precision = _ratio(common, len(generated), both_empty)
    recall = _ratio(common, len(reference), both_empty)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    union = generated | reference
    hamming = len(generated ^ reference) / len(union) if union else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "hamming_loss": hamming}


def call_differences(generated: set[str], reference: set[str]) -> dict[str, list[str]]:
    """For reports: functions in both, only in the reference (missed), only generated (extra)."""
    return {
        "common": sorted(generated & reference),
        "missed": sorted(reference - generated),
        "extra": sorted(generated - reference),
    }
