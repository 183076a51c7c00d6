"""The solvers and the run meet only at ``SolverRun``: no import circle, no reach past it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from geoagent_ext.agent import run as run_module
from geoagent_ext.agent.run import Run, RunOptions
from geoagent_ext.agent.subtask_work import SolverOptions, SolverRun

AGENT = Path(run_module.__file__).parent
SOLVER_MODULES = ("loop", "search", "subtask_work")


def _imported_modules(module: str) -> set[str]:
    """Every module ``agent/<module>.py`` imports (TYPE_CHECKING imports too), as dotted names."""
    tree = ast.parse((AGENT / f"{module}.py").read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ["geoagent_ext", "agent"][: 3 - node.level]
                parent = ".".join(base + ([node.module] if node.module else []))
            else:
                parent = node.module or ""
            found.add(parent)
            found.update(f"{parent}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("module", SOLVER_MODULES)
def test_the_solvers_do_not_import_the_run(module):
    assert "geoagent_ext.agent.run" not in _imported_modules(module)


def _run_attributes_used(module: str) -> set[str]:
    """Attributes a solver module reads or calls on its run (``run.x``, ``self.run.x``)."""
    tree = ast.parse((AGENT / f"{module}.py").read_text())
    used: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id == "run":
            used.add(node.attr)
        elif (
            isinstance(owner, ast.Attribute)
            and owner.attr == "run"
            and isinstance(owner.value, ast.Name)
            and owner.value.id == "self"
        ):
            used.add(node.attr)
    return used


def _protocol_members(protocol: type) -> set[str]:
    """Attributes, read-only properties and methods the protocol declares."""
    return set(protocol.__annotations__) | {
        n for n, v in vars(protocol).items() if (callable(v) or isinstance(v, property)) and not n.startswith("_")
    }


@pytest.mark.parametrize("module", SOLVER_MODULES)
def test_the_solvers_use_only_what_solver_run_offers(module):
    assert _run_attributes_used(module) <= _protocol_members(SolverRun)


def test_a_run_is_a_solver_run():
    run = Run("count the points", kernel=object(), llm=None, model_name="scripted:test")
    assert isinstance(run, SolverRun)
    assert {"max_attempts", "trial_timeout"} <= _protocol_members(SolverOptions) <= set(RunOptions.model_fields)
