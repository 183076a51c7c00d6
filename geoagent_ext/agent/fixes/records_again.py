"""A loop that appends again the records an earlier step collected: the list is started empty."""

from __future__ import annotations

from typing import Any

from .. import codeinfo
from ..probes import run_probe
from .base import Diagnosis, Failure, Rule, TrialFacts, for_each


class RecordsAgain(Rule):
    """A step re-run after an earlier step already filled its list (a step inserted to create the
    list did the whole loop) appends every record a second time, and the table made of them has
    each row twice. The trial fails a step that leaves a list it appends to (and does not rebind)
    with all its earlier records appended again, and the list is started empty in the step: its own
    records hold every earlier one, so nothing is lost."""

    strategy = "records_again"
    order = 46

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        bound = set(codeinfo.analyse(code).assigned)
        names = [name for name in codeinfo.appended_lists(code) if name not in bound]
        before = (await run_probe(kernel, "record_reprs", names) if names else None) or {}
        return for_each(
            before,
            "_geoagent_name, _geoagent_old",
            [
                "_geoagent_f = globals().get(_geoagent_name)",
                "if isinstance(_geoagent_f, list) and len(_geoagent_f) >= 2 * len(_geoagent_old) "
                "and [repr(r) for r in _geoagent_f[: len(_geoagent_old)]] == _geoagent_old:",
                "    _geoagent_new = [repr(r) for r in _geoagent_f[len(_geoagent_old) :]]",
                "    if all(r in _geoagent_new for r in _geoagent_old):",
                "        " + self.trip({"name": "_geoagent_name"}),
                "        raise ValueError(f'`{_geoagent_name}`: this step appended again the '",
                "            f'{len(_geoagent_old)} records it already held (an earlier step collected them), '",
                "            'so each is in the list twice. Start the list empty in the step that fills it: '",
                "            f'{_geoagent_name} = []')",
            ],
        )

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        seen = self.tripped(failure)
        if seen is None:
            return None
        return self.diagnosis(failure, name=seen["name"], fixed_code=f"{seen['name']} = []\n{failure.code}")

    def said(self, diagnosis: Diagnosis) -> str:
        return f"started `{diagnosis.name}` empty in the step (its loop appended an earlier step's records again)"
