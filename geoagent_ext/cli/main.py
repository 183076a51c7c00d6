"""Entry point of ``jupyter geoagent`` (the ``jupyter-geoagent`` console script).

Jupyter's convention: ``jupyter <sub>`` runs the ``jupyter-<sub>`` executable it
finds beside itself or on PATH, so the commands read ``jupyter geoagent run …``.
Plain ``geoagent`` is the command of the unrelated GeoAgent package on PyPI; our
deprecated alias of that name lives in ``alias.py``.

Each sub-command lives in its own module exposing ``register(subparsers)``,
which adds a parser and sets ``func`` (sync or async) on it. Adding a command
means adding a module and one line to ``COMMAND_MODULES``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import sys

from .. import __version__

PROG = "jupyter geoagent"

COMMAND_MODULES = [
    "geoagent_ext.cli.status_cmd",
    "geoagent_ext.cli.index_cmd",
    "geoagent_ext.cli.run_cmd",
    "geoagent_ext.cli.bench_cmd",
    "geoagent_ext.cli.replay_cmd",
]


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="GeoAgent: plain-words geospatial analysis in a Jupyter kernel.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Override a setting, e.g. --config model=local:qwen2.5-coder-0.5b",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        result = args.func(args)
        if inspect.iscoroutine(result):
            result = asyncio.run(result)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return int(result or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
