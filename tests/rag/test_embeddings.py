"""The offline MiniLM embedding function: chromadb protocol and sane geometry."""

from __future__ import annotations

import numpy as np

from geoagent_ext.rag.embeddings import (
    DIMENSIONS,
    MiniLMEmbeddingFunction,
    embed_texts,
    model_file,
    tokenizer_file,
)


def test_model_files_come_from_the_packages():
    assert model_file().name == "model.onnx" and model_file().stat().st_size > 20_000_000
    assert tokenizer_file().name == "tokenizer.json"


def test_similar_sentences_are_closer_than_unrelated_ones():
    vectors = embed_texts(
        [
            "reproject the parcels to another coordinate reference system",
            "Transform geometries to a new coordinate reference system.",
            "A man is playing the guitar on stage.",
        ]
    )
    assert vectors.shape == (3, DIMENSIONS)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    related, unrelated = vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert related > unrelated + 0.2


def test_padding_does_not_change_a_vector():
    """Batches are padded to their longest member; the mask must hide the padding."""
    short = "buffer points by 100 metres"
    alone = embed_texts([short])[0]
    batched = embed_texts([short, "a much longer sentence " * 20])[0]
    np.testing.assert_allclose(alone, batched, atol=1e-4)


def test_chromadb_protocol():
    ef = MiniLMEmbeddingFunction()
    out = ef(["clip a raster", "dissolve polygons"])
    assert len(out) == 2 and len(out[0]) == DIMENSIONS
    assert ef.name() == "geoagent-minilm-onnx-int8"
    assert not ef.is_legacy()
    clone = MiniLMEmbeddingFunction.build_from_config(ef.get_config())
    np.testing.assert_allclose(clone(["x"])[0], ef(["x"])[0])
