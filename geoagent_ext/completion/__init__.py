"""Inline cell suggestions: complete the code at the cursor from the live kernel's
variables, the notebook's earlier cells and retrieved API docs.

``Completer`` is the one entry point (``GeoAgentServices.completer``, used by
``handlers/complete.py``); it reuses the services' cached chat models, kernel service
and knowledge index, so a completion never loads a second copy of a model or opens
the index twice.
"""

from .context import ContextGatherer, CursorContext
from .prompt import clean_completion, completion_messages
from .service import Completer, CompletionRequest

__all__ = [
    "CompletionRequest",
    "Completer",
    "ContextGatherer",
    "CursorContext",
    "clean_completion",
    "completion_messages",
]
