"""GeoAgent's own corpus of deliverable contracts: requests, correct and broken deliverables.

See README.md in this folder. ``ENTRIES`` gathers every theme module's entries; ``materialise``
writes one deliverable (the reference or a named broken one) into a folder.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from . import (
    aggregate,
    crs_words,
    formats,
    heldout,
    heldout2,
    heldout3,
    heldout4,
    heldout5,
    heldout6,
    hygiene,
    json_outputs,
    leave_alone,
    measures,
    nearest,
)
from ._entry import Entry

__all__ = [
    "Entry",
    "ENTRIES",
    "HELDOUT",
    "HELDOUT2",
    "HELDOUT3",
    "HELDOUT4",
    "HELDOUT5",
    "HELDOUT6",
    "REPO",
    "group_of",
    "input_path",
    "materialise",
]

REPO = Path(__file__).resolve().parents[3]
DEV_PREFIX = "dev:"

ENTRIES: list[Entry] = [
    *measures.ENTRIES,
    *aggregate.ENTRIES,
    *nearest.ENTRIES,
    *json_outputs.ENTRIES,
    *formats.ENTRIES,
    *crs_words.ENTRIES,
    *hygiene.ENTRIES,
    *leave_alone.ENTRIES,
    *heldout.ENTRIES,
    *heldout2.ENTRIES,
    *heldout3.ENTRIES,
    *heldout4.ENTRIES,
    *heldout5.ENTRIES,
    *heldout6.ENTRIES,
]


# Entries written after the rules they measure were frozen, by someone who had not read them: the
# audit reports them as their own group ("heldout"), the measure of what the rules do on requests
# they were not built from. Once a reading is written to catch them, they measure nothing new.
HELDOUT = frozenset(e.id for e in heldout.ENTRIES)
# The first set has since had readings written against its misses, so it measures them no more. A
# second set, written later by someone blind to the rules, is reported as its own group ("heldout2"):
# the measure now, not to be tuned on either.
HELDOUT2 = frozenset(e.id for e in heldout2.ENTRIES)
# A third set, written later again by someone blind to the rules, reported as "heldout3"; not to be
# tuned on either.
HELDOUT3 = frozenset(e.id for e in heldout3.ENTRIES)
# A fourth set, written later again by someone blind to the rules, reported as "heldout4"; not to be
# tuned on either.
HELDOUT4 = frozenset(e.id for e in heldout4.ENTRIES)
# A fifth set, written later again by someone blind to the rules, reported as "heldout5"; not to be
# tuned on either.
HELDOUT5 = frozenset(e.id for e in heldout5.ENTRIES)
# A sixth set, written later again by someone blind to the rules, reported as "heldout6"; not to be
# tuned on either.
HELDOUT6 = frozenset(e.id for e in heldout6.ENTRIES)


def group_of(entry: Entry) -> str:
    """The audit group an entry counts in: "heldout", "heldout2" ... "heldout6" or "corpus"."""
    if entry.id in HELDOUT:
        return "heldout"
    if entry.id in HELDOUT2:
        return "heldout2"
    if entry.id in HELDOUT3:
        return "heldout3"
    if entry.id in HELDOUT4:
        return "heldout4"
    if entry.id in HELDOUT5:
        return "heldout5"
    if entry.id in HELDOUT6:
        return "heldout6"
    return "corpus"


def input_path(spec: str, repo: Path = REPO) -> Path:
    """A repo-relative input, or ``dev:<task>/inputs/<file>`` in the dev tasks beside the repo."""
    if spec.startswith(DEV_PREFIX):
        return repo.parent / "shared" / "bench" / "geoagentbench-dev" / spec[len(DEV_PREFIX) :]
    return repo / spec


def materialise(entry: Entry, folder: Path, which: str = "reference", repo: Path = REPO) -> None:
    """Copy the inputs into ``folder`` by base name and write the ``which`` deliverable there."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for spec in entry.inputs:
        source = input_path(spec, repo)
        shutil.copyfile(source, folder / source.name)
    write = entry.reference if which == "reference" else entry.broken[which]
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        write()
    finally:
        os.chdir(cwd)
