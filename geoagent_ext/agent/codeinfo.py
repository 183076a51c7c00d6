"""Static facts about a code block, from its AST: no execution.

Used by the repair step (which expression had the wrong attribute, which
call got the wrong arguments), by the checks (which files the code claims to
write, which names it assigns) and by the benchmark's function-call metrics.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field
from typing import Callable

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
            path = _written_path(node)
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


def _on_line_first(nodes: list, lineno: int | None):
    """The first node spanning ``lineno``, else the first node."""
    return next((n for n in nodes if lineno and n.lineno <= lineno <= (n.end_lineno or n.lineno)), nodes[0])


def _string_arg(node: ast.Call, keywords: tuple[str, ...]) -> str | None:
    for kw in node.keywords:
        if kw.arg in keywords and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
            return kw.value.value
    if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


def _written_path(node: ast.Call) -> str | None:
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
    return (on_line or [expr for _, expr in found] or [None])[0]


def callee_of(code: str, func_name: str, lineno: int | None = None) -> str | None:
    """Source of the called expression named ``func_name`` (``gdf.sjoin`` for ``sjoin()``)."""
    return _called(code, lambda node: method_of(node) == func_name, lineno)


def call_passing(code: str, keyword: str, lineno: int | None = None) -> str | None:
    """Source of the called expression that passes ``keyword=`` (on ``lineno`` when given):
    the call to fix when a library's inner function rejects the keyword
    (``__cinit__() got an unexpected keyword argument 'driver'`` from ``gdf.to_parquet(..., driver=...)``)."""
    return _called(code, lambda node: any(k.arg == keyword for k in node.keywords), lineno)


def without_keyword(code: str, keyword: str, lineno: int | None = None, *, same_method: bool = False) -> str | None:
    """``code`` with ``keyword=...`` taken out of the call that passes it (the one on ``lineno``
    first; the name matched case-insensitively, as GDAL options come back upper case), the rest of
    the text as written; None when no call passes it. ``same_method``: also out of every other call
    of that method (three ``to_file(..., crs=...)`` in a row were three trials at d518539)."""
    tree = parse(code)
    if tree is None:
        return None
    found = [
        (node, k)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for k in node.keywords
        if k.arg and k.arg.lower() == keyword.lower()
    ]
    if not found:
        return None
    call = _on_line_first([n for n, _ in found], lineno)
    kw = next(k for n, k in found if n is call)
    fixed = cut_keyword(code, kw)
    method = method_of(call)
    while fixed is not None and same_method:
        tree = parse(fixed)
        more = [
            k
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and method_of(node) == method
            for k in node.keywords
            if k.arg and k.arg.lower() == keyword.lower()
        ]
        if not more:
            break
        fixed = cut_keyword(fixed, more[0])
    return fixed


def with_call_edited(
    code: str,
    func_name: str,
    lineno: int | None = None,
    *,
    method: str | None = None,
    drop: dict[str, object | None] | None = None,
    rename: dict[str, str] | None = None,
) -> str | None:
    """``code`` with the call named ``func_name`` (the one on ``lineno`` first) changed to the API
    meant: called as ``method`` instead (``gdf.sjoin`` -> ``gdf.sjoin_nearest``), without the keywords
    in ``drop`` (each only when passed the constant given, or any value for None) and with the keywords
    in ``rename`` renamed; the rest of the text as written. None when no such call or nothing changed."""
    tree = parse(code)
    if tree is None:
        return None
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and method_of(node) == func_name]
    if not calls:
        return None
    call = _on_line_first(calls, lineno)
    drop, rename = drop or {}, rename or {}
    edited = ast.Call(func=call.func, args=call.args, keywords=[])
    for kw in call.keywords:
        dropped = kw.arg in drop and (
            drop[kw.arg] is None or (isinstance(kw.value, ast.Constant) and kw.value.value == drop[kw.arg])
        )
        if not dropped:
            edited.keywords.append(ast.keyword(arg=rename.get(kw.arg, kw.arg) if kw.arg else None, value=kw.value))
    if method and not isinstance(call.func, ast.Attribute):
        return None  # a bare ``sjoin(...)``: the method meant may not be imported
    if method:
        edited.func = ast.Attribute(value=call.func.value, attr=method, ctx=ast.Load())
    text = ast.unparse(edited)
    if text == ast.unparse(call):
        return None
    fixed = replaced(code, [(call, text)])
    return fixed if parse(fixed) is not None else None


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


def without_unused_import(code: str, lineno: int | None, name: str | None = None) -> str | None:
    """``code`` without the import on ``lineno`` (only ``name`` of it, when the error names one)
    if nothing in the code uses what it binds; None when the code uses it, or no import is there."""
    tree = parse(code)
    if tree is None or not lineno:
        return None
    node = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.Import, ast.ImportFrom)) and n.lineno <= lineno <= (n.end_lineno or n.lineno)
        ),
        None,
    )
    if node is None:
        return None
    dropped = [a for a in node.names if name is None or a.name == name]
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    if not dropped or any((a.asname or a.name).split(".")[0] in used for a in dropped):
        return None
    kept = [a for a in node.names if a not in dropped]
    text = ""
    if kept:
        listed = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in kept)
        text = (
            f"from {'.' * node.level}{node.module or ''} import {listed}"
            if isinstance(node, ast.ImportFrom)
            else f"import {listed}"
        )
    fixed = replaced(code, [(node, text)])
    if parse(fixed) is None:  # the import was a block's only statement
        fixed = replaced(code, [(node, "pass")])
    return fixed


def with_list_started(code: str, name: str) -> str | None:
    """``code`` with ``name = []`` before the first top-level statement that uses ``name``, when the
    code appends to it (``records.append(...)`` in a loop) and never binds it: an accumulator the
    model forgot to start (bangkok-multicrs at ab135b6: a step inserted to "create `records`").
    None otherwise."""
    tree = parse(code)
    if tree is None:
        return None
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name]
    appended = any(
        isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and c.func.attr in ("append", "extend")
        and isinstance(c.func.value, ast.Name)
        and c.func.value.id == name
        for c in ast.walk(tree)
    )
    if not appended or any(not isinstance(n.ctx, ast.Load) for n in uses) or name in bound_names(code):
        return None
    first = next(stmt for stmt in tree.body if any(n in uses for n in ast.walk(stmt)))
    lines = code.splitlines()
    indent = " " * first.col_offset
    return "\n".join(lines[: first.lineno - 1] + [f"{indent}{name} = []"] + lines[first.lineno - 1 :])


_LAYER_LISTS = ("list_layers", "listlayers")  # pyogrio (rows: name, geometry type), fiona (names)


def _layer_list_path(node: ast.expr, tree: ast.Module, code: str) -> str | None:
    """The path's source when ``node`` lists a file's layers (the call, or a name bound to it)."""
    if isinstance(node, ast.Name):  # layers = fiona.listlayers(path); for layer in layers:
        bound = [
            a.value
            for a in ast.walk(tree)
            if isinstance(a, ast.Assign)
            and len(a.targets) == 1
            and isinstance(a.targets[0], ast.Name)
            and a.targets[0].id == node.id
        ]
        node = bound[0] if len(bound) == 1 else node
    if isinstance(node, ast.Subscript):  # list_layers(path)[:, 0]: the names
        node = node.value
    if (
        isinstance(node, ast.Call)
        and method_of(node) in _LAYER_LISTS
        and node.args
        and call_name(node.func) not in ("gpd.list_layers", "geopandas.list_layers")
    ):  # a DataFrame: rows are not met so
        return ast.get_source_segment(code, node.args[0])
    return None


def _layer_loops(code: str, lineno: int | None):
    """(tree, loop, the path's source, the loop's target names) of each ``for`` over a file's layers
    whose body holds line ``lineno``, the innermost first (targets: one name, or name + geometry type)."""
    tree = parse(code)
    if tree is None or lineno is None:
        return
    loops = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.For) and n.body and n.body[0].lineno <= lineno <= (n.end_lineno or n.lineno)
    ]
    for loop in sorted(loops, key=lambda n: -n.lineno):
        path = _layer_list_path(loop.iter, tree, code)
        targets = [loop.target] if isinstance(loop.target, ast.Name) else list(getattr(loop.target, "elts", []))
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if path is not None and names and len(names) == len(targets) <= 2:
            yield tree, loop, path, names


def _with_layer_frame(code: str, loop: ast.For, read: str, edits: list[tuple[ast.AST, str]]) -> str:
    """``code`` with ``edits`` made and ``read`` (the layer's read) first in the loop's body."""
    first = loop.body[0]
    lines = replaced(code, edits).splitlines()
    lines.insert(first.lineno - 1, " " * first.col_offset + read)
    fixed = "\n".join(lines)
    return fixed if "gpd" in bound_names(code) else "import geopandas as gpd\n" + fixed


def _unused(tree: ast.Module, name: str) -> str:
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return next(
        f"{name}_{suffix}" for suffix in ("frame", "gdf", "data", "layer_frame") if f"{name}_{suffix}" not in used
    )


def with_layer_read(code: str, name: str, lineno: int | None) -> str | None:
    """``code`` where a loop over a file's layers uses the layer's text ``name`` as its frame
    (``for layer in fiona.listlayers(p): layer.crs``; ``for n, layer in pyogrio.list_layers(p)``,
    where ``layer`` is the geometry type's name): the loop's body first reads the layer with
    ``gpd.read_file(p, layer=...)``; frame uses (``x.attr`` not of str, ``x[...]``, ``len(x)``) of the
    name take the frame, its other uses stay the name. bangkok-multicrs at 42b4435 and 097316b:
    the note saying so was echoed back as comments. None when the failing line is in no such loop."""
    for tree, loop, path, names in _layer_loops(code, lineno):
        if name not in names:
            continue
        layer_name = names[0]
        if name != layer_name:  # (name, geometry type) rows: the type's variable becomes the frame
            return _with_layer_frame(code, loop, f"{name} = gpd.read_file({path}, layer={layer_name})", [])
        frame = _unused(tree, name)
        edits = [
            (n.value, frame)
            for stmt in loop.body
            for n in ast.walk(stmt)
            if isinstance(n, (ast.Attribute, ast.Subscript))
            and isinstance(n.value, ast.Name)
            and n.value.id == name
            and not (isinstance(n, ast.Attribute) and hasattr(str, n.attr))
        ]
        edits += [
            (n.args[0], frame)
            for stmt in loop.body
            for n in ast.walk(stmt)
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id == "len"
            and len(n.args) == 1
            and isinstance(n.args[0], ast.Name)
            and n.args[0].id == name
        ]
        if edits:
            return _with_layer_frame(code, loop, f"{frame} = gpd.read_file({path}, layer={name})", edits)
    return None


def with_layer_looked_up(code: str, lineno: int | None) -> tuple[str, str] | None:
    """(the fixed code, the failing lookup) where a loop over a file's layers looks a layer up by its
    name in a variable the step does not build (``len(gdf[name])``: as if the file's frame held
    every layer; it holds one, and the name is no column of it: KeyError): the loop's body first
    reads the layer, and each such lookup in that variable takes it. A dict the step fills itself
    (``frames[name] = ...``) is left alone. bangkok-multicrs at d4686b6:
    ``len(bangkok_contractor_delivery[name])``, KeyError 'parcels' in five answers. None otherwise."""
    for tree, loop, path, names in _layer_loops(code, lineno):
        layer_name = names[0]
        built = bound_names(code) | {
            n.value.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        lookups = [
            n
            for stmt in loop.body
            for n in ast.walk(stmt)
            if isinstance(n, ast.Subscript)
            and isinstance(n.value, ast.Name)
            and n.value.id not in built
            and isinstance(n.slice, ast.Name)
            and n.slice.id == layer_name
            and isinstance(n.ctx, ast.Load)
        ]
        failing = {n.value.id for n in lookups if n.lineno <= lineno <= (n.end_lineno or n.lineno)}
        if len(failing) != 1:
            continue
        [owner] = failing
        frame = _unused(tree, layer_name)
        edits = [(n, frame) for n in lookups if n.value.id == owner]
        return (
            _with_layer_frame(code, loop, f"{frame} = gpd.read_file({path}, layer={layer_name})", edits),
            f"{owner}[{layer_name}]",
        )
    return None


def with_geojson_written(code: str) -> str | None:
    """``code`` where each ``with open('x.geojson', 'w') as f: json.dump(frame.to_dict(...), f)`` (or
    of the frame itself) writes the frame with ``frame.to_file('x.geojson', driver='GeoJSON')``:
    json cannot write shapes ("Object of type Polygon is not JSON serializable"), and records are
    not GeoJSON's features anyway. nyc-symdiff at d4686b6: the 1.5B then turned the geometries into
    dicts, MultiPoints and exteriors over five repairs. None when the code has no such block."""
    tree = parse(code)
    if tree is None:
        return None
    edits: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.With) and len(node.items) == 1 and len(node.body) == 1):
            continue
        opened, handle = node.items[0].context_expr, node.items[0].optional_vars
        path = (
            opened.args[0]
            if isinstance(opened, ast.Call) and call_name(opened.func) == "open" and opened.args
            else None
        )
        if not (
            isinstance(path, ast.Constant)
            and isinstance(path.value, str)
            and path.value.lower().endswith(".geojson")
            and isinstance(handle, ast.Name)
        ):
            continue
        dump = node.body[0].value if isinstance(node.body[0], ast.Expr) else None
        if not (
            isinstance(dump, ast.Call)
            and call_name(dump.func) == "json.dump"
            and len(dump.args) >= 2
            and isinstance(dump.args[1], ast.Name)
            and dump.args[1].id == handle.id
        ):
            continue
        data = dump.args[0]
        if isinstance(data, ast.Call) and isinstance(data.func, ast.Attribute) and data.func.attr == "to_dict":
            data = data.func.value
        if isinstance(data, ast.Name):
            edits.append((node, f"{data.id}.to_file({path.value!r}, driver='GeoJSON')"))
    return replaced(code, edits) if edits else None


def _own_nodes(fn: ast.AST):
    """The nodes of a function's body, not those of functions, lambdas or classes defined in it."""
    for child in ast.iter_child_nodes(fn):
        yield child
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            yield from _own_nodes(child)


def with_local_renamed(code: str, name: str) -> str | None:
    """``code`` with the local ``name`` of each function that both assigns it and calls it renamed
    (``buffer = buffer(c, 1)`` makes ``buffer`` local to the whole function, so the call cannot
    reach the imported one: UnboundLocalError); the calls keep the module's ``name``. None when no
    function does both (or declares it global, or takes it as a parameter)."""
    tree = parse(code)
    if tree is None:
        return None
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    local = next(f"{name}_{suffix}" for suffix in ("value", "result", "local", "v2") if f"{name}_{suffix}" not in used)
    edits: list[tuple[ast.AST, str]] = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        own = list(_own_nodes(fn))
        params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs} | {
            a.arg for a in (fn.args.vararg, fn.args.kwarg) if a
        }
        declared = {n for d in own if isinstance(d, (ast.Global, ast.Nonlocal)) for n in d.names}
        names = [n for n in own if isinstance(n, ast.Name) and n.id == name]
        callees = {
            id(c.func) for c in own if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == name
        }
        if name in params | declared or not callees or not any(isinstance(n.ctx, ast.Store) for n in names):
            continue
        edits += [(n, local) for n in names if id(n) not in callees]
    fixed = replaced(code, edits) if edits else None
    return fixed if fixed is not None and parse(fixed) is not None else None


# Calls that change data or write a file: a ``print`` whose arguments make one is not only a report.
_CHANGING_CALLS = frozenset(
    {
        "pop",
        "update",
        "append",
        "extend",
        "insert",
        "remove",
        "clear",
        "setdefault",
        "add",
        "write",
        "writelines",
        "savefig",
        "save",
        "close",
        "exec",
        "eval",
    }
)


def without_failing_print(code: str, lineno: int | None) -> str | None:
    """``code`` without the ``print(...)`` statement spanning ``lineno`` (``pass`` where it was a
    block's only statement); None when no print is there or its arguments write or change data
    (a call named in ``_CHANGING_CALLS``, a writer, ``inplace=True``)."""
    tree = parse(code)
    if tree is None or not lineno:
        return None
    node = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Expr)
            and isinstance(n.value, ast.Call)
            and call_name(n.value.func) == "print"
            and n.lineno <= lineno <= (n.end_lineno or n.lineno)
        ),
        None,
    )
    if node is None:
        return None
    for call in (c for c in ast.walk(node.value) if isinstance(c, ast.Call) and c is not node.value):
        if (
            method_of(call) in _CHANGING_CALLS | WRITE_METHODS
            or _written_path(call)
            or any(
                kw.arg == "inplace" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False)
                for kw in call.keywords
            )
        ):
            return None
    fixed = replaced(code, [(node, "")])
    if parse(fixed) is None:  # the print was a block's only statement
        fixed = replaced(code, [(node, "pass")])
    return fixed if parse(fixed) is not None else None


def with_import_moved(code: str, lineno: int | None, name: str, home: str) -> str | None:
    """``code`` with ``name`` of the ``from ... import`` on ``lineno`` imported from ``home``
    instead (its alias kept, the other names left where they were); None when no such import is there."""
    tree = parse(code)
    if tree is None or not lineno:
        return None
    node = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom)
            and n.lineno <= lineno <= (n.end_lineno or n.lineno)
            and any(a.name == name for a in n.names)
        ),
        None,
    )
    if node is None:
        return None
    said = lambda aliases: ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in aliases)  # noqa: E731
    moved = [a for a in node.names if a.name == name]
    kept = [a for a in node.names if a.name != name]
    text = f"from {home} import {said(moved)}"
    if kept:
        text = f"from {'.' * node.level}{node.module or ''} import {said(kept)}\n{' ' * node.col_offset}{text}"
    return replaced(code, [(node, text)])


def with_attribute_moved(code: str, lineno: int | None, name: str, home: str) -> str | None:
    """``code`` with each ``<dotted name>.name`` on ``lineno`` written ``home.name``; None when there is none."""
    tree = parse(code)
    if tree is None or not lineno:
        return None

    def dotted(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and dotted(node.value))

    edits = [
        (n, f"{home}.{name}")
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and n.attr == name
        and n.lineno == lineno
        and dotted(n.value)
        and ast.unparse(n.value) != home
    ]
    return replaced(code, edits) if edits else None


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


def _span(raw: bytes, node: ast.AST) -> tuple[int, int]:
    """(start, end) byte offsets of ``node`` in the UTF-8 source ``raw`` it was parsed from."""
    starts = [0]
    for line in raw.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return (
        starts[node.lineno - 1] + node.col_offset,
        starts[(node.end_lineno or node.lineno) - 1] + (node.end_col_offset or 0),
    )


def replaced(code: str, edits: list[tuple[ast.AST, str]]) -> str:
    """``code`` with each node's source replaced by its text (nodes of one parse, not nested)."""
    raw = code.encode()  # ast offsets count bytes
    for node, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):  # from the end
        start, end = _span(raw, node)
        raw = raw[:start] + text.encode() + raw[end:]
    return raw.decode()


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
