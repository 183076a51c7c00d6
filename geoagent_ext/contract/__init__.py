"""The deliverable contract: what the request's output files must satisfy, derived from the
request before planning, shown to the user, checked on the real files after each step that
writes them and at the end, and the ground truth for a run's status.

    contract = derive_contract(request, outputs, input_facts)
    results = await check_contract(kernel, contract)
"""

from .check import check_contract
from .model import Contract, OutputSpec, Requirement, RequirementResult
from .rules import derive_contract

__all__ = ["Contract", "OutputSpec", "Requirement", "RequirementResult", "check_contract", "derive_contract"]
