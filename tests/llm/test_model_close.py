"""The local model is freed before the interpreter tears its modules down.

``Llama.__del__`` run during that teardown finds llama_cpp's functions gone and prints a
TypeError traceback; ``close_engines`` (at exit and on the server's stop) frees the models
first. With the small 0.5B model the test set-up installs; skipped without it.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import textwrap

import pytest
import requests

from geoagent_ext.config import GeoAgentSettings
from geoagent_ext.llm.llama_engine import EngineClosed, close_engines, get_engine
from geoagent_ext.llm.weights import ensure_weights, get_spec, weights_available
from tests.scripted_server import free_port, wait_up

MODEL_ID = "qwen2.5-coder-0.5b"
SPEC = f"local:{MODEL_ID}"


def _weights() -> str:
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        pytest.skip("llama-cpp-python is not installed")
    settings = GeoAgentSettings()
    spec = get_spec(MODEL_ID)
    if not weights_available(spec, settings.model_cache_dir):
        pytest.skip("the local 0.5B model is not installed (bash scripts/install_local_model.sh 0.5b)")
    return str(ensure_weights(spec, settings.model_cache_dir))


# A process that loads the model and exits. Like a Jupyter server, something long-lived holds
# the engine's module (there: the extension manager holds geoagent_ext), so without the close
# at exit its engines are freed only when that module is torn down, after llama_cpp.
LOAD_AND_EXIT = textwrap.dedent(f"""
    import sys
    from geoagent_ext.config import GeoAgentSettings
    from geoagent_ext.llm import llama_engine
    from geoagent_ext.llm.local import LocalChatModel

    LocalChatModel(model_id={MODEL_ID!r}, cache_dir=GeoAgentSettings().model_cache_dir, n_ctx=512).engine()
    sys.geoagent_engines_holder = llama_engine
    print("loaded")
""")


def _no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr[-3000:]


def test_a_process_that_loaded_the_model_exits_without_a_traceback():
    _weights()
    done = subprocess.run([sys.executable, "-c", LOAD_AND_EXIT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "loaded", done.stderr[-3000:]
    _no_traceback(done.stderr)


def test_a_closed_engine_refuses_calls_and_the_next_get_loads_anew():
    path = _weights()
    engine = get_engine(path, instance="close-test", n_ctx=256)
    close_engines()
    assert engine.closed
    with pytest.raises(EngineClosed):
        next(engine.stream([{"role": "user", "content": "hi"}], max_tokens=2))
    again = get_engine(path, instance="close-test", n_ctx=256)
    try:
        assert again is not engine and not again.closed
    finally:
        again.close(wait=5)


def test_an_engine_busy_with_a_call_is_left_loaded():
    path = _weights()
    engine = get_engine(path, instance="busy-test", n_ctx=256)
    with engine.lock:  # a call in progress
        assert engine.close(wait=0.1) is False
    assert not engine.closed
    assert engine.close(wait=5) is True and engine.closed


def test_a_server_that_loaded_the_inline_model_shuts_down_without_a_traceback(tmp_path):
    _weights()
    port, token = free_port(), secrets.token_hex(16)
    (tmp_path / "root").mkdir()
    config = {
        "ServerApp": {
            "port": port,
            "ip": "127.0.0.1",
            "allow_root": True,
            "open_browser": False,
            "root_dir": str(tmp_path / "root"),
            "port_retries": 0,
            "jpserver_extensions": {"geoagent_ext": True},
        },
        "IdentityProvider": {"token": token},
        "GeoAgentSettings": {"model": SPEC, "inline_model": SPEC, "inline_warm": False},
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    env = {
        **os.environ,
        "JUPYTER_NO_CONFIG": "1",
        "GEOAGENT_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    log_path = tmp_path / "server.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "jupyter_server", f"--config={tmp_path / 'config.json'}"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base, auth = f"http://127.0.0.1:{port}", {"Authorization": f"token {token}"}
    try:
        wait_up(f"{base}/geoagent/status", auth, process, log_path)
        # A real suggestion: the inline instance is loaded and has generated.
        answer = requests.post(
            f"{base}/geoagent/complete",
            headers=auth,
            timeout=240,
            json={"cell_text_before": "import geopandas as gpd\nparcels = gpd."},
        )
        assert answer.ok, answer.text
        assert requests.post(f"{base}/api/shutdown", headers=auth, timeout=30).status_code == 200
        assert process.wait(timeout=60) == 0, log_path.read_text()[-3000:]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    _no_traceback(log_path.read_text())
