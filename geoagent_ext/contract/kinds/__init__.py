"""The requirement kinds (filled in by the registry in the next step)."""

from __future__ import annotations

import ast
from pathlib import Path

from .. import checker


def checker_source() -> str:
    """The contract's part of the in-kernel helper."""
    return Path(checker.__file__).read_text()


def function_source(name: str) -> str:
    """The source of one top-level function of the contract's in-kernel part."""
    source = checker_source()
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ast.get_source_segment(source, node)
