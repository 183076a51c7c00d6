"""Settings shared by the server extension and the ``jupyter geoagent`` CLI.

One traitlets ``Configurable`` so that ``jupyter_server_config.py``
(``c.GeoAgentSettings.model = "openai:gpt-4o"``), the command line
(``--GeoAgentSettings.model=...``) and environment defaults all meet in one
place. Secrets are never settings: API keys are read by the provider libraries
from the server's environment and never copied anywhere else.
"""

from __future__ import annotations

import os
from pathlib import Path

from jupyter_core.paths import jupyter_data_dir
from traitlets import Bool, Float, Int, List, Unicode, default
from traitlets.config import Configurable

DEFAULT_MODEL = "local:qwen2.5-coder-1.5b"


class GeoAgentSettings(Configurable):
    """Everything a deployment may want to change, with offline defaults."""

    model = Unicode(
        DEFAULT_MODEL,
        help=(
            "Chat model as 'provider:model' (openai:gpt-4o, anthropic:claude-sonnet-4-5, "
            "ollama:qwen2.5-coder, local:qwen2.5-coder-0.5b, local:qwen2.5-coder-1.5b)."
        ),
    ).tag(config=True)

    # Unset (None), llm.choices.inline_model_spec picks the default: config knows no models.
    inline_model = Unicode(
        None,
        allow_none=True,
        help=(
            "Model for inline cell suggestions, as 'provider:model'. Default: "
            "local:qwen2.5-coder-0.5b when it is installed, else the main model. It gets its own "
            "instance (a local model its own llama.cpp context and lock, even for the main "
            "model's file), so suggestions never wait for a run's calls. Empty: the main model."
        ),
    ).tag(config=True)

    inline_warm = Bool(
        False,
        help=(
            "Load the inline model in the background when the server starts (for deployments "
            "that turn inline suggestions on for everyone). Otherwise it is loaded when "
            "JupyterLab says suggestions are on (Settings > Inline Completer > GeoAgent), or at "
            "the first suggestion; either way it is then kept."
        ),
    ).tag(config=True)

    openai_base_url = Unicode(
        "",
        help=(
            "Base URL of an OpenAI-compatible server for 'openai:<model>' specs, with its /v1 "
            "(vLLM, llama.cpp's server, LM Studio, Ollama: http://localhost:11434/v1). Empty: the "
            "OPENAI_BASE_URL environment variable, else OpenAI itself. The key (OPENAI_API_KEY) "
            "is sent to this server; a server that checks none needs no key."
        ),
    ).tag(config=True)

    extra_models = List(
        Unicode(),
        default_value=[],
        help=(
            "Further 'provider:model' specs the model picker offers (and requests may choose), beyond "
            "the default, the local models and one or two examples per installed cloud provider. "
            "Requests can only pick listed models: a spec such as scripted:/path.py loads code "
            "into the server, so only configuration may name it."
        ),
    ).tag(config=True)

    data_dir = Unicode(help="Where GeoAgent keeps its index, model weights and caches.").tag(config=True)

    @default("data_dir")
    def _default_data_dir(self) -> str:
        return os.environ.get("GEOAGENT_DATA_DIR") or str(Path(jupyter_data_dir()) / "geoagent")

    index_dir = Unicode(help="chromadb PersistentClient directory (default: <data_dir>/index).").tag(config=True)

    @default("index_dir")
    def _default_index_dir(self) -> str:
        return os.environ.get("GEOAGENT_INDEX_DIR") or str(Path(self.data_dir) / "index")

    model_cache_dir = Unicode(help="Where joined local model weights are cached.").tag(config=True)

    @default("model_cache_dir")
    def _default_model_cache_dir(self) -> str:
        return os.environ.get("GEOAGENT_MODEL_DIR") or str(Path.home() / ".cache" / "geoagent" / "models")

    chroma_host = Unicode(
        "",
        help=(
            "Host of a shared chroma server (`chroma run`) holding the API index for a team; "
            "empty uses the local PersistentClient in index_dir."
        ),
    ).tag(config=True)
    chroma_port = Int(8000, help="Port of the shared chroma server.").tag(config=True)
    chroma_ssl = Bool(False, help="Talk to the shared chroma server over HTTPS.").tag(config=True)
    chroma_timeout = Float(
        10.0,
        help=(
            "Seconds one request to the shared chroma server may take; past it (or when the "
            "server is gone) runs go on with degraded retrieval and a warning."
        ),
    ).tag(config=True)

    runs_dir = Unicode(
        "", help="Where run event logs (JSONL) go; empty means '.geoagent/runs' beside the notebook."
    ).tag(config=True)

    approval_mode = Bool(
        False, help="Wait for the user's approval before any step's code touches the live kernel."
    ).tag(config=True)

    crs_advisor = Bool(
        True,
        help=(
            "Advise the CRS to measure, map and deliver each layer in, from its extent and pyproj's "
            "EPSG database (shown in the data overview, named in the contract and in CRS repairs). "
            "Off: for measuring the advisor's effect."
        ),
    ).tag(config=True)

    check_contract = Bool(
        True,
        help=(
            "Derive the deliverable contract from the request (output files, CRS, columns, types, "
            "row counts...), check it on the written files after each step and at the end, repair "
            "what fails, and report a run as succeeded only when every checkable requirement holds. "
            "Off: the status only says whether the steps ran (for measuring the contract's effect)."
        ),
    ).tag(config=True)

    propose_requirements = Bool(
        None,
        allow_none=True,
        help=(
            "With the contract: the model also reads the request for requirements the rules did not "
            "find (one LLM call before the plan). A proposal is kept only when the rules can check it "
            "and the request writes every column, code and value it names. Off: the rules' contract only. "
            "Unset: off: on the contract audit they added requirements the right answer fails on 6 of 104 "
            "requests (read_request is the grounded reading used instead)."
        ),
    ).tag(config=True)

    read_request = Bool(
        None,
        allow_none=True,
        help=(
            "With the contract: the model also reads the request into a typed form (per output file: "
            "CRS, geometry type, columns, one-row-per key, sort), under the form's JSON schema (one LLM "
            "call before the plan). A field becomes a requirement only when the request writes its names "
            "and the words that ask for it and the rules' requirements agree. Off: the rules' contract "
            "only. Unset: on, except with the bundled local models (local:...), whose reading caught 1 "
            "broken deliverable of 318 beyond the rules on the contract audit, for ~30 s a run."
        ),
    ).tag(config=True)

    max_attempts = Int(5, help="Attempts per subtask before it is handed to the human.").tag(config=True)

    llm_timeout = Int(600, help="Seconds one LLM call may take before it is retried.").tag(config=True)

    execute_timeout = Int(300, help="Seconds one agent execution may take before the kernel is interrupted.").tag(
        config=True
    )

    strip_kernel_secrets = Bool(
        False,
        help=(
            "Start this server's kernels without the environment variables named by "
            "kernel_secret_patterns, so model-written code cannot read API keys; the variables also "
            "leave the server's environment (see server_kept_secrets), and the server's token and "
            "cookie key stay out of files its kernels can read (README, Security). Off by default: "
            "it applies to every kernel whose kernelspec names no provisioner of its own (not only "
            "GeoAgent's), and notebook code often needs tokens (leafmap's MAPBOX_TOKEN, HF_TOKEN, "
            "JUPYTERHUB_API_TOKEN for dask-gateway)."
        ),
    ).tag(config=True)

    kernel_secret_patterns = List(
        Unicode(),
        default_value=["*_API_KEY", "*_TOKEN", "*_SECRET"],
        help="fnmatch patterns (case-insensitive) of variable names that strip_kernel_secrets removes.",
    ).tag(config=True)

    server_kept_secrets = List(
        Unicode(),
        default_value=["JUPYTERHUB_*", "JPY_API_TOKEN"],
        help=(
            "With strip_kernel_secrets, the variables matching kernel_secret_patterns also leave the "
            "server's own environment at start-up, so terminals, language servers and other processes "
            "it starts do not inherit them (GeoAgent keeps their values in memory for its model "
            "providers). fnmatch patterns (case-insensitive) of the ones that stay, because code inside "
            "the server reads them at run time: JupyterHub's single-user server and its extensions read "
            "JUPYTERHUB_API_TOKEN. Kernels still start without them; the server's other children inherit them."
        ),
    ).tag(config=True)

    mcp_run_wait = Int(
        240,
        help=(
            "Seconds the MCP tool geoagent_run (and geoagent_run_status) waits for a run to end or "
            "need the user before answering with its progress so far; the run goes on either way. "
            "A caller may ask for less, never more (MCP clients time out long calls)."
        ),
    ).tag(config=True)

    mcp_trust_personas = Bool(
        True,
        help=(
            "Let a Jupyter AI persona call GeoAgent's MCP tools without the server's token while it "
            "answers a chat message (jupyter_server_mcp's port is outside Jupyter's auth; Jupyter AI "
            "names the chat and persona in headers, and only a message sent through the authenticated "
            "chat makes a persona busy). Off: every call needs 'Authorization: token <server token>'."
        ),
    ).tag(config=True)
