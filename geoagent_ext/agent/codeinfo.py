"""Static facts about a code block, from its AST: no execution.

Used by the repair step (which expression had the wrong attribute, which
call got the wrong arguments), by the checks (which files the code claims to
write, which names it assigns) and by the benchmark's function-call metrics.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

WRITE_METHODS = {
    "to_file",
    "to_parquet",
    "to_csv",
    "to_json",
    "to_feather",
    "to_netcdf",
    "to_raster",
    "to_excel",
    "savefig",
    "save",
    "write_text",
    "write_bytes",
    "to_zarr",
    "to_html",
}


@dataclass
class CodeInfo:
    ok: bool
    problem: str | None = None  # why the code cannot be a step: a syntax error, or no statement at all
    problem_kind: str = ""  # "SyntaxError" | "NoCode"
    assigned: list[str] = field(default_factory=list)
    written_files: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)


def parse(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def analyse(code: str) -> CodeInfo:
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return CodeInfo(ok=False, problem=f"SyntaxError: {exc.msg} (line {exc.lineno})", problem_kind="SyntaxError")
    if all(isinstance(stmt, ast.Pass) or _is_text(stmt) for stmt in tree.body):
        # Small models sometimes answer a repair with only their "# Cause: ..." comment: it
        # "runs", and accepting it would skip the step.
        return CodeInfo(
            ok=False,
            problem="No code: the answer holds only comments or text, not a statement that does the step",
            problem_kind="NoCode",
        )
    assigned: list[str] = []
    written: list[str] = []
    calls: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name) and sub.id not in assigned:
                        assigned.append(sub.id)
        elif isinstance(node, ast.Call):
            name = call_name(node.func)
            if name:
                calls.append(name)
            path = written_path(node)
            if path and path not in written:
                written.append(path)
    return CodeInfo(ok=True, assigned=assigned, written_files=written, calls=calls)


def _is_text(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def call_name(func: ast.AST) -> str | None:
    """Dotted name of a call target as written (``gpd.read_file``, ``gdf.to_crs``)."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    elif isinstance(func, ast.Call):
        inner = call_name(func.func)
        parts.append(f"{inner}()" if inner else "()")
    else:
        return ".".join(reversed(parts)) if parts else None
    return ".".join(reversed(parts))


def method_of(node: ast.Call) -> str:
    """The last name of a call's target (``sjoin`` of ``gpd.sjoin`` and of ``gdf.sjoin``)."""
    return (call_name(node.func) or "").split(".")[-1]


def on_line_first(nodes: list, lineno: int | None):
    """The first node spanning ``lineno``, else the first node."""
    return next((n for n in nodes if lineno and n.lineno <= lineno <= (n.end_lineno or n.lineno)), nodes[0])


def _string_arg(node: ast.Call, keywords: tuple[str, ...]) -> str | None:
    for kw in node.keywords:
        if kw.arg in keywords and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
            return kw.value.value
    if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


def written_path(node: ast.Call) -> str | None:
    func = node.func
    path_keywords = ("path", "filename", "fp", "path_or_buf", "fname", "dst_path", "outfile")
    if isinstance(func, ast.Attribute) and func.attr in WRITE_METHODS:
        return _string_arg(node, path_keywords)
    name = call_name(func) or ""
    if name in {"open", "rasterio.open", "rio.open"} and len(node.args) >= 2:
        mode = node.args[1]
        if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and ("w" in mode.value or "a" in mode.value):
            return _string_arg(node, path_keywords)
    for kw in node.keywords:
        if (
            kw.arg == "mode"
            and isinstance(kw.value, ast.Constant)
            and kw.value.value in ("w", "wb", "a")
            and name.endswith("open")
        ):
            return _string_arg(node, path_keywords)
    return None


def line_of(code: str, lineno: int | None) -> str:
    if not lineno:
        return ""
    lines = code.splitlines()
    return lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""


def attribute_owner(code: str, attr: str, lineno: int | None = None) -> str | None:
    """Source of the expression whose ``.attr`` failed (prefers the failing line)."""
    tree = parse(code)
    if tree is None:
        return None
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == attr:
            found.append((getattr(node, "lineno", 0), ast.unparse(node.value)))
    if not found:
        return None
    for line, expr in found:
        if lineno and line == lineno:
            return expr
    return found[0][1]


def _called(code: str, matches: Callable[[ast.Call], bool], lineno: int | None) -> str | None:
    """Source of the called expression of the first call ``matches`` accepts, the one on
    ``lineno`` first."""
    tree = parse(code)
    if tree is None:
        return None
    found = [
        (getattr(node, "lineno", 0), ast.unparse(node.func))
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and matches(node)
    ]
    on_line = [expr for line, expr in found if lineno and line == lineno]
    candidates = on_line or [expr for _, expr in found]
    return candidates[0] if candidates else None


def callee_of(code: str, func_name: str, lineno: int | None = None) -> str | None:
    """Source of the called expression named ``func_name`` (``gdf.sjoin`` for ``sjoin()``)."""
    return _called(code, lambda node: method_of(node) == func_name, lineno)


def call_passing(code: str, keyword: str, lineno: int | None = None) -> str | None:
    """Source of the called expression that passes ``keyword=`` (on ``lineno`` when given):
    the call to fix when a library's inner function rejects the keyword
    (``__cinit__() got an unexpected keyword argument 'driver'`` from ``gdf.to_parquet(..., driver=...)``)."""
    return _called(code, lambda node: any(k.arg == keyword for k in node.keywords), lineno)


def bound_names(code: str) -> set[str]:
    """Every name ``code`` binds: assigned, imported (``import geopandas as gpd`` binds ``gpd``),
    defined, or taken as an argument or loop variable."""
    tree = parse(code)
    if tree is None:
        return set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return bound


def bound_at(tree: ast.Module, name: str, lineno: int, bound_before: set[str]) -> bool:
    """``name`` holds a value at ``lineno``: an earlier step bound it (``bound_before``), or ``tree``
    assigns it on an earlier line."""
    return name in bound_before or any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) and n.lineno < lineno
        for n in ast.walk(tree)
    )


def unbound_reads(tree: ast.Module, name: str) -> list[ast.Name]:
    """The reads of ``name`` in ``tree`` up to the line that first binds it (all of them when nothing does)."""
    stores = [
        n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
    ]
    first_store = min(stores, default=None)
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Name)
        and n.id == name
        and isinstance(n.ctx, ast.Load)
        and (first_store is None or n.lineno <= first_store)
    ]


def parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    """Each node of ``tree`` -> the node it is a child of."""
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def attribute_bases(code: str) -> list[str]:
    """Names used as ``name.attribute`` in ``code``, in order of first use (``gpd`` of ``gpd.read_file``)."""
    tree = parse(code)
    if tree is None:
        return []
    return list(
        dict.fromkeys(
            node.value.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        )
    )


def without_comment(line: str) -> str:
    """``line`` without its trailing ``# comment`` (a '#' inside a string stays)."""
    try:
        comments = [t for t in tokenize.generate_tokens(io.StringIO(line).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return line
    return line[: comments[0].start[1]].rstrip() if comments and comments[0].start[0] == 1 else line


def column_of(node: ast.expr) -> tuple[str, str] | None:
    """(name, column) of ``name['column']``, else None."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    ):
        return node.value.id, node.slice.value
    return None


def _span(raw: bytes, node: ast.expr | ast.stmt | ast.keyword) -> tuple[int, int]:
    """(start, end) byte offsets of ``node`` in the UTF-8 source ``raw`` it was parsed from."""
    starts = [0]
    for line in raw.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return (
        starts[node.lineno - 1] + node.col_offset,
        starts[(node.end_lineno or node.lineno) - 1] + (node.end_col_offset or 0),
    )


def replaced(code: str, edits: Sequence[tuple[ast.expr | ast.stmt, str]]) -> str:
    """``code`` with each node's source replaced by its text (nodes of one parse, not nested)."""
    raw = code.encode()  # ast offsets count bytes
    for node, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):  # from the end
        start, end = _span(raw, node)
        raw = raw[:start] + text.encode() + raw[end:]
    return raw.decode()


def outermost(edits: Sequence[tuple[ast.expr | ast.stmt, str]]) -> list[tuple[ast.expr | ast.stmt, str]]:
    """``edits`` without those inside another edit's node (the outer edit's text carries its own
    rewrite), so ``replaced`` gets nodes that do not nest."""
    nested = {id(inner) for outer, _ in edits for inner in ast.walk(outer) if inner is not outer}
    return [(node, text) for node, text in edits if id(node) not in nested]


def cut_keyword(code: str, kw: ast.keyword) -> str | None:
    """``code`` without the keyword argument ``kw`` and its comma, the rest as written."""
    raw = code.encode()  # ast offsets count bytes
    start, end = _span(raw, kw)
    before, after = raw[:start], raw[end:]
    trimmed = before.rstrip()
    if trimmed.endswith(b","):  # ", crs=32647)" -> ")"
        before = trimmed[:-1]
    else:  # "(crs=32647, index=False)" -> "(index=False)"
        after = after.lstrip()
        after = after[1:].lstrip() if after.startswith(b",") else after
    fixed = (before + after).decode()
    return fixed if parse(fixed) is not None else None


def names_in_line(code: str, lineno: int | None) -> list[str]:
    """Plain names read on a line (candidates for a data profile after a KeyError)."""
    line = line_of(code, lineno)
    if not line:
        return []
    try:
        tree = ast.parse(line.rstrip(":") if line.endswith(":") else line)
    except SyntaxError:
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in names:
            names.append(node.id)
    return names


def names_read(code: str, lineno: int | None = None) -> list[str]:
    """The names ``code`` reads (``lineno``: only the top-level statement spanning that line, a
    statement of several lines too), in the order they are written."""
    tree = parse(code)
    if tree is None:
        return []
    statements = tree.body
    if lineno is not None:
        statements = [s for s in tree.body if s.lineno <= lineno <= (s.end_lineno or s.lineno)][:1]
    loaded = [
        n for node in statements for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    ]
    return list(dict.fromkeys(n.id for n in sorted(loaded, key=lambda n: (n.lineno, n.col_offset))))


FRAME_WRITES = ("to_file", "to_parquet", "to_feather")


def frame_writes(tree: ast.Module | None, methods: tuple[str, ...] = FRAME_WRITES) -> list[ast.Call]:
    """The calls that write a named frame to a file (``gdf.to_parquet(...)``; ``methods``: which
    writes), in line order."""
    return (
        sorted(
            (
                n
                for n in ast.walk(tree)
                if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr in methods
                and isinstance(n.func.value, ast.Name)
            ),
            key=lambda n: n.lineno,
        )
        if tree is not None
        else []
    )


def appended_lists(code: str) -> list[str]:
    """Names ``code`` appends to: ``name.append(...)``, ``name.extend(...)``, ``name += [...]``."""
    tree = parse(code)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("append", "extend")
            and isinstance(node.func.value, ast.Name)
        ):
            found.append(node.func.value.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            found.append(node.target.id)
    return list(dict.fromkeys(found))
