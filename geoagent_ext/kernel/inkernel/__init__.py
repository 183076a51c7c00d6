"""GeoAgent's helper *inside* the user's kernel, as source text.

The service sends this source into the kernel once and installs it as a module
object under ONE private name, ``__geoagent__`` (see ``probe.py``). It must
therefore work in any Python >= 3.8 kernel: standard library only at import
time; geopandas, rasterio, xarray and IPython are used only if present.
Nothing here imports ``geoagent_ext`` (the kernel may live in another env).

The helper is kept in small files, one concern each, executed IN ORDER in the
same module namespace (later parts use names of earlier ones):

``_00_core``        the JSON entry point :func:`call`, the user namespace
``_10_introspect``  members, closest names, profiles, variable summaries
``_15_geocolumns``  where a plain table keeps its geometry (variable hints and file profiles)
``_20_state``       namespace fingerprints, history, memory limits
``_30_sandbox``     overlay / mirror sandboxes for the files trials write
``_40_trial``       fork trials: isolation of the child, running the cell
``_50_contract``    the deliverable contract's checks on files read back from disk: the contract
                    package's (``contract.kinds.checker_source()``: its checker and each
                    requirement kind's check), shipped here as this part
``_60_crs_advisor`` which CRS to measure, map or deliver a layer in, from its extent and the EPSG database
``_70_data_probes`` the agent's data probes: data files' profiles, input facts, the checks after a step
``_90_api``         the table of functions :func:`call` may run

Every entry point is reached through ``call``, which the service evaluates as a
``user_expressions`` entry of a silent execute: the answer comes back in the
shell reply (no IOPub, no history, no ``Out``/``_`` cache changes).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ...contract.kinds import checker_source

PARTS = sorted(p for p in Path(__file__).parent.glob("_[0-9][0-9]_*.py"))
_TEXTS = {p.stem: p.read_text() for p in PARTS} | {"_50_contract": checker_source()}
SOURCE = "\n\n".join(_TEXTS[name] for name in sorted(_TEXTS))
VERSION = hashlib.sha256(SOURCE.encode()).hexdigest()[:16]


def load(name: str = "__geoagent__"):
    """Build the helper module in *this* process (for tests and local use)."""
    import types

    module = types.ModuleType(name)
    exec(compile(SOURCE, f"<{name}>", "exec"), module.__dict__)
    module.__dict__["VERSION"] = VERSION  # the stamp the installer writes into the kernel's copy
    return module
