"""Server-side ownership of agent runs: start, find, list, act on, persist."""

from .manager import RunManager, RunManagerError
from .schemas import ActionRequest, StartRunRequest

__all__ = ["ActionRequest", "RunManager", "RunManagerError", "StartRunRequest"]
