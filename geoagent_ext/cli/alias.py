"""The deprecated ``geoagent`` command, kept only where it clashes with nothing.

``geoagent`` is also the console script of the unrelated GeoAgent package on PyPI
(opengeos). Two distributions that declare one script overwrite each other's file
without a word, whichever is installed last. So the wheel declares only
``jupyter-geoagent`` (``jupyter geoagent …``), and ``scripts/setup.sh`` runs
``python -m geoagent_ext.cli.alias`` to write this alias beside it, unless another
installed distribution declares ``geoagent`` or a file that is not ours is there.
"""

from __future__ import annotations

import re
import sys
import sysconfig
from importlib.metadata import entry_points
from pathlib import Path

from .main import PROG, main

NAME = "geoagent"
MARKER = "# geoagent_ext: deprecated alias of `jupyter geoagent`"
OUR_DISTRIBUTION = "geoagent-ext"


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def other_owners() -> list[str]:
    """Installed distributions other than ours that declare a ``geoagent`` command."""
    return sorted(
        {
            f"{ep.dist.name} {ep.dist.version}"
            for ep in entry_points(group="console_scripts", name=NAME)
            if ep.dist is not None and _canonical(ep.dist.name) != OUR_DISTRIBUTION
        }
    )


def _is_ours(path: Path) -> bool:
    try:
        return MARKER in path.read_text(errors="replace")
    except OSError:
        return False


def install(bin_dir: Path | str | None = None) -> tuple[bool, str]:
    """Write (or refresh, or remove) the alias in ``bin_dir``; say what was done and why."""
    path = Path(bin_dir or sysconfig.get_path("scripts")) / NAME
    owners = other_owners()
    if owners:
        if _is_ours(path):
            path.unlink()
        return False, (
            f"not installing the deprecated `{NAME}` alias: `{NAME}` is the command of "
            f"{', '.join(owners)}; use `{PROG}`"
        )
    if path.exists() and not _is_ours(path):
        return False, f"not installing the deprecated `{NAME}` alias: {path} is not ours; use `{PROG}`"
    # No distribution's RECORD lists this file, so uninstalling geoagent_ext leaves it behind.
    path.write_text(
        f"#!{sys.executable}\n{MARKER}\nimport sys\n"
        "try:\n    from geoagent_ext.cli.alias import deprecated_main\n"
        "except ImportError:\n    sys.exit(f'geoagent_ext is not installed: remove {__file__}')\n"
        "sys.exit(deprecated_main())\n"
    )
    path.chmod(0o755)
    return True, f"`{NAME}` still works as a deprecated alias of `{PROG}`"


def deprecated_main(argv: list[str] | None = None) -> int:
    """Run the CLI, telling the user the name to use from now on."""
    print(
        f"warning: `{NAME}` is deprecated and will be removed; use `{PROG}` "
        f"(`{NAME}` is also the command of the unrelated GeoAgent package on PyPI)",
        file=sys.stderr,
    )
    owners = other_owners()
    if owners:
        print(
            f"warning: {', '.join(owners)} is installed too and declares `{NAME}`: "
            "whichever was installed last owns the command",
            file=sys.stderr,
        )
    return main(argv)


if __name__ == "__main__":  # pragma: no cover
    print(install(sys.argv[1] if len(sys.argv) > 1 else None)[1])
