"""Server-side ownership of agent runs: start, find, list, act on, persist."""

from .manager import RunManager, RunManagerError
from .schemas import ActionRequest, DeleteVariablesRequest, StartRunRequest

__all__ = ["ActionRequest", "DeleteVariablesRequest", "RunManager", "RunManagerError", "StartRunRequest"]
