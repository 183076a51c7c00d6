"""LLM layer: any langchain chat model from a ``provider:model`` spec, a local
llama.cpp model that needs no key, a scripted model for tests, and a client
that times, retries and counts every call.

Heavy pieces (llama.cpp, provider packages) are imported only when used.
"""

from .client import Generation, LLMClient, LLMError, LLMKeyRejected, LLMNoAnswer, LLMStats, LLMTimeout
from .factory import ModelConfigError, make_chat_model, valid_forms
from .parsing import extract_code, extract_json
from .scripted import ScriptedChatModel

__all__ = [
    "Generation",
    "LLMClient",
    "LLMError",
    "LLMKeyRejected",
    "LLMNoAnswer",
    "LLMStats",
    "LLMTimeout",
    "ModelConfigError",
    "ScriptedChatModel",
    "extract_code",
    "extract_json",
    "make_chat_model",
    "valid_forms",
]
