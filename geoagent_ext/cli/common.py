"""Helpers shared by CLI sub-commands."""

from __future__ import annotations

import argparse

from traitlets.config import Config

from ..config import GeoAgentSettings


def settings_from_args(args: argparse.Namespace) -> GeoAgentSettings:
    """Build settings from ``--config key=value`` pairs (traitlets does the casting)."""
    config = Config()
    for item in getattr(args, "config", []) or []:
        if "=" not in item:
            raise SystemExit(f"--config expects KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        if not GeoAgentSettings.class_traits(config=True).get(key):
            known = ", ".join(sorted(GeoAgentSettings.class_traits(config=True)))
            raise SystemExit(f"unknown setting {key!r}; known: {known}")
        trait = GeoAgentSettings.class_traits()[key]
        config.GeoAgentSettings[key] = trait.from_string(value)
    return GeoAgentSettings(config=config)
