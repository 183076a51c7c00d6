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


MAX_EXPRESSION = 300  # characters: a chain of names longer than any real one


def _resolve(expression):
    """The live object a name or an attribute chain names (``gdf``, ``gdf.geometry``).

    Introspection runs in the user's kernel, so it never evaluates an expression: an
    operator, a subscript, a literal or a call could allocate, compute or change state
    there (``'x' * 10**9``). Only getattr runs, as ``gdf.geometry`` would in a cell.
    """
    head, attributes = _name_chain(expression)
    ns = _ns()
    if head in ns:
        obj = ns[head]
    elif hasattr(builtins, head):
        obj = getattr(builtins, head)
    else:
        raise NameError("name %r is not defined in the kernel" % head)
    for attribute in attributes:
        obj = getattr(obj, attribute)
    return obj


def _name_chain(expression):
    """(name, [attributes]) of ``name.attr.attr``; ValueError for any other expression."""
    text = str(expression).strip()
    node = None
    if len(text) <= MAX_EXPRESSION:
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            node = None
    attributes = []
    while isinstance(node, ast.Attribute):
        attributes.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise ValueError(
            "%r is not a variable or an attribute chain: introspection reads names like gdf or "
            "gdf.geometry and never evaluates calls, operators, subscripts or literals in the "
            "kernel (assign the value to a variable first)" % (text[:80] + ("..." if len(text) > 80 else ""))
        )
    return node.id, attributes[::-1]
