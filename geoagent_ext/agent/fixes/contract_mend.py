"""The contract's mechanical mend of a file a step wrote that fails a requirement."""

from __future__ import annotations

from .base import Diagnosis, Rule


class ContractMend(Rule):
    """A written file that fails the contract gets the contract's mend (``contract.mend``) appended.
    Which mends apply is the run's state (the requirements a subtask's files failed, the mends tried
    already), so ``SubtaskWork`` finds them; this rule names the strategy and says what it did."""

    strategy = "mend"
    order = 0

    def said(self, diagnosis: Diagnosis) -> str:
        return "appended the contract's mechanical mend of the file it wrote"
