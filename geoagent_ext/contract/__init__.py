"""The deliverable contract: what the request's output files must satisfy, derived from the
request before planning, shown to the user, checked on the real files after each step that
writes them and at the end, and the ground truth for a run's status.

    contract = derive_contract(request, outputs, input_facts)
    payload = check_payload(contract)            # run in the kernel by the agent (agent/deliverables.py)
    results = read_answer(payload, answer)

This package knows requests and files, not runs or kernels: the agent imports it, never the reverse.
"""

from .check import check_payload, read_answer
from .model import Contract, OutputSpec, Requirement, RequirementEdit, RequirementResult
from .rules import apply_edits, derive_contract, user_requirement

__all__ = [
    "Contract",
    "OutputSpec",
    "Requirement",
    "RequirementEdit",
    "RequirementResult",
    "apply_edits",
    "check_payload",
    "derive_contract",
    "read_answer",
    "user_requirement",
]
