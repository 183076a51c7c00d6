"""Core of the in-kernel helper: the JSON entry point and the user namespace."""

# Part of the in-kernel helper: the parts are executed IN ORDER in one module
# namespace (see inkernel/__init__.py), so names of earlier parts are globals here.
import ast
import builtins
import difflib
import inspect
import io
import json
import os
import re
import sys
import time

VERSION = ""  # set by the installer to the hash of this source

_IPY_NAMES = re.compile(r"^(_+|_i+|_i\d+|_\d+|_ih|_oh|_dh|In|Out|get_ipython|exit|quit)$")
_SIMPLE_EXPR = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_children = set()
_sandboxes = []
_snapshot = {}


class _JSON:
    """Carries a JSON value through IPython's display formatter (``application/json``)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def _repr_json_(self):
        return self.value

    def __repr__(self):
        return "<geoagent>"


def call(version, fn, payload, args="[]"):
    """Single entry point: checks the helper version, runs ``fn(*json.loads(args), **json.loads(payload))``."""
    if version != VERSION:
        raise RuntimeError("GEOAGENT_STALE_HELPER")
    _reap()
    value = _API[fn](*json.loads(args), **json.loads(payload))
    return _JSON(json.loads(json.dumps({"v": value}, default=str)))


# ---------------------------------------------------------------- namespace


def _shell():
    try:
        from IPython import get_ipython

        return get_ipython()
    except Exception:
        return None


def _ns():
    sh = _shell()
    if sh is not None:
        return sh.user_ns
    import __main__

    return __main__.__dict__


def _user_names(ns, private=True):
    sh = _shell()
    hidden = getattr(sh, "user_ns_hidden", None) or {}
    out = []
    for name, value in list(ns.items()):
        if name.startswith("__") or _IPY_NAMES.match(name) or name == "__geoagent__":
            continue
        if name in hidden and hidden[name] is value:
            continue
        if not private and name.startswith("_"):
            continue
        out.append(name)
    return out


def _resolve(expression):
    """The live object of an expression, without calling anything.

    Dotted names are walked with getattr; other expressions are evaluated only
    if they contain no call, await, assignment or lambda (subscripts are fine).
    """
    expr = expression.strip()
    ns = _ns()
    if _SIMPLE_EXPR.match(expr):
        head, *rest = expr.split(".")
        if head in ns:
            obj = ns[head]
        elif hasattr(builtins, head):
            obj = getattr(builtins, head)
        else:
            raise NameError("name %r is not defined in the kernel" % head)
        for part in rest:
            obj = getattr(obj, part)
        return obj
    tree = ast.parse(expr, mode="eval")
    unsafe = (ast.Call, ast.Await, ast.Lambda, ast.NamedExpr, ast.Yield, ast.YieldFrom)
    if any(isinstance(node, unsafe) for node in ast.walk(tree)):
        raise _NeedsJedi(expr)
    return eval(compile(tree, "<geoagent>", "eval"), ns)


class _NeedsJedi(Exception):
    pass
