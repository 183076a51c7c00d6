"""The contract audit in CI: on the dev requests, their rewordings and the project's own corpus,
every requirement that gates ``succeeded`` holds on the correct deliverable (a wrong requirement
pushes a run away from a right answer), and the broken deliverables caught do not go back.

The figures are ``benchmarks/contract_audit.py``'s (``--details`` lists each wrong requirement and
each missed mistake). Raise a floor when the rules catch more; never lower one to let a change in.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from geoagent_ext.bench.contract_audit import Auditor, corpus_case, details, dev_cases, figures, table
from tests.contract.corpus import ENTRIES, group_of, input_path

# The audit derives and checks 170 requests' contracts on their correct and broken deliverables
# (about 10 minutes on two loaded cores), once for the module: more than the suite's 600 s per test.
pytestmark = pytest.mark.timeout(1800)

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "bench"

# Broken deliverables caught by a requirement that holds on the correct one, at least (the goal: 90 %).
CAUGHT_AT_LEAST = {
    "dev": 44,
    "rewording": 123,
    "corpus": 153,
    "heldout": 24,
    "heldout2": 26,
    "heldout3": 28,
    "heldout4": 17,
    "heldout5": 8,
    "heldout6": 21,
}


@pytest.fixture(scope="module")
def audited():
    cases = [corpus_case(entry, lambda spec: input_path(spec, ROOT), group_of(entry)) for entry in ENTRIES]
    if (SHARED / "geoagentbench-dev").is_dir():
        cases += dev_cases(SHARED / "geoagentbench-dev", SHARED / "paraphrases" / "dev.json")
    auditor = Auditor()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = [auditor.audit(case) for case in cases]
    print("\n" + table(results))
    return results


def test_every_request_is_sound(audited):
    unsound = [r for r in audited if not r.sound]
    assert not unsound, details(unsound)


@pytest.mark.parametrize("group", sorted(CAUGHT_AT_LEAST))
def test_the_mistakes_caught_do_not_go_back(audited, group):
    by_group = figures(audited)
    if group not in by_group:
        pytest.skip(f"no {group} cases here (../shared/bench is not beside the checkout)")
    got = by_group[group]
    assert got.caught >= CAUGHT_AT_LEAST[group], (
        f"{group}: {got.caught}/{got.broken} caught, fewer than {CAUGHT_AT_LEAST[group]}\n"
        + details([r for r in audited if r.case.group == group])
    )


def test_an_unsound_requirement_and_a_missed_mistake_are_reported(tmp_path):
    """The audit itself: a requirement the correct file fails makes the request unsound, and a broken
    file no sound requirement fails is missed (so the figures above can fail)."""
    import pandas as pd

    from geoagent_ext.bench.contract_audit import AuditCase

    source = tmp_path / "in.csv"
    pd.DataFrame({"site": ["a", "b"], "n": [1, 2]}).to_csv(source, index=False)

    def writer(frame):
        return lambda folder: frame.to_csv(folder / "out.csv", index=False)

    right = pd.DataFrame({"site": ["a", "b"], "n": [2, 1]})
    case = AuditCase(
        group="t",
        name="t",
        request="Write `out.csv` with `site` and `n`, sorted by `n` descending.",
        outputs=["out.csv"],
        inputs=[source],
        reference=writer(right),
        broken={"unsorted": writer(right.iloc[::-1]), "renamed": writer(right.rename(columns={"n": "m"}))},
    )
    result = Auditor().audit(case)
    assert result.sound and not result.missed and all(result.caught.values())
    wrong = AuditCase(**{**case.__dict__, "reference": writer(right.iloc[::-1]), "broken": {}})
    result = Auditor().audit(wrong)
    assert not result.sound and [r.kind for r, _ in result.wrong] == ["sorted"]
