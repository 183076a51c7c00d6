"""A CRS copied with its label ("EPSG:2048 Hartebeesthoek94 / Lo19"): pyproj finds no such CRS."""

from __future__ import annotations

import ast
import re
from typing import cast

from .. import codeinfo
from .base import Rule


class BareEpsg(Rule):
    """A CRS argument copied with its name after the code ("EPSG:2048 Hartebeesthoek94 / Lo19"): it
    is cut to the code before the step runs."""

    order = 103

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return with_bare_epsg(code)


_LABELLED_EPSG = re.compile(r"^\s*(EPSG:\s*\d{4,6})\b\s*[^\d\s].*$", re.IGNORECASE | re.DOTALL)


_CRS_CALLS = ("to_crs", "set_crs", "CRS", "from_user_input", "from_string", "from_crs", "Proj")


def with_bare_epsg(code: str) -> str:
    """``code`` with a CRS argument copied with its label ("EPSG:2048 Hartebeesthoek94 / Lo19": pyproj
    finds no such CRS) cut to its code ("EPSG:2048"), in the calls that take a CRS (``to_crs``,
    ``set_crs``, ``CRS(...)``, ``Transformer.from_crs``, ...)."""
    tree = codeinfo.parse(code)
    if tree is None:
        return code
    labelled = [
        arg
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and (codeinfo.call_name(node.func) or "").rsplit(".", 1)[-1] in _CRS_CALLS
        for arg in [*node.args, *(k.value for k in node.keywords)]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and _LABELLED_EPSG.match(arg.value)
    ]
    return codeinfo.replaced(code, [(arg, repr(_epsg_code(cast(str, arg.value)))) for arg in labelled])


def _epsg_code(labelled: str) -> str:
    """ "EPSG:2048 Hartebeesthoek94 / Lo19" -> "EPSG:2048" (a text ``_LABELLED_EPSG`` matches)."""
    found = _LABELLED_EPSG.match(labelled)
    return found.group(1).replace(" ", "").upper() if found else labelled
