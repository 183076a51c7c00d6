"""``jupyter geoagent status``: the same summary the panel shows."""

from __future__ import annotations

import json

from ..status import collect_status
from .common import settings_from_args


def register(subparsers) -> None:
    parser = subparsers.add_parser("status", help="Show version, configured model and index state.")
    parser.set_defaults(func=run)


def run(args) -> int:
    print(json.dumps(collect_status(settings_from_args(args)), indent=2))
    return 0
