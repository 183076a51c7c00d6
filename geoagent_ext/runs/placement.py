"""Where the server's kernels run, and what that changes for GeoAgent.

With ``jupyter server --GatewayClient.url=...`` kernels live on the gateway's hosts
(Kernel Gateway, Enterprise Gateway on Kubernetes). Execution, fork trials (relayed
on the kernel's IOPub, see ``kernel/trial.py``), introspection, probes, interrupts
and restarts go through the gateway unchanged. What cannot is said here once, at
start-up (server log) and in ``GET /geoagent/status`` (``kernels``), never silently:

* ``strip_kernel_secrets``: the secretless provisioner runs where kernels are
  launched, i.e. on the gateway, not here. The gateway starts kernels with its own
  environment plus what this server sends: ``KERNEL_*`` variables and the names in
  ``GatewayClient.allowed_envs``; a secret-named one among them reaches the kernels.
* Files: the kernel reads and writes the gateway host's file system, in the working
  directory the gateway gives it (Enterprise Gateway honours ``KERNEL_WORKING_DIR``,
  Kernel Gateway starts kernels in its own directory).
"""

from __future__ import annotations

import logging
import os
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .kernel_env import secret_names

log = logging.getLogger(__name__)


def _gateway_config(kernel_manager: Any) -> Any:
    """jupyter_server's ``GatewayClient`` when ``kernel_manager`` starts kernels through it."""
    try:
        from jupyter_server.gateway.gateway_client import GatewayClient
        from jupyter_server.gateway.managers import GatewayMappingKernelManager
    except Exception:
        return None
    if not isinstance(kernel_manager, GatewayMappingKernelManager):
        return None
    return GatewayClient.instance()


def _public_url(url: str) -> str:
    """The URL without user:password (never shown or logged)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def kernel_placement(settings: Any, kernel_manager: Any, environ: dict[str, str] | None = None) -> dict[str, Any]:
    """``{"where": "local"|"gateway", "gateway": url, "trials": ..., "notes": [...]}``."""
    gc = _gateway_config(kernel_manager)
    if gc is None or not gc.url:
        return {"where": "local", "trials": "fork", "notes": []}
    env = os.environ if environ is None else environ
    allowed = [n for n in (gc.allowed_envs or "").split(",") if n]
    sent = [n for n in env if n.startswith("KERNEL_") or n in allowed]
    leaked = secret_names(sent, settings.kernel_secret_patterns)
    notes = []
    if settings.strip_kernel_secrets:
        notes.append(
            "strip_kernel_secrets has no effect on gateway kernels: the gateway launches them with "
            "its own environment (GeoAgent's secretless provisioner would have to run there); this "
            "server sends them only KERNEL_* variables and GatewayClient.allowed_envs."
        )
    if leaked:
        notes.append(
            f"This server sends {', '.join(leaked)} to every gateway kernel (KERNEL_* or "
            "GatewayClient.allowed_envs): code the model writes can read it. Remove it from "
            "allowed_envs, or rename it."
        )
    notes.append(
        "Kernels run on the gateway's hosts: the data a request names must be on their file "
        "system, in the kernel's working directory (Enterprise Gateway honours KERNEL_WORKING_DIR)."
    )
    return {
        "where": "gateway",
        "gateway": _public_url(gc.url),
        "trials": "fork, result relayed on the kernel's IOPub",
        "notes": notes,
    }


def log_placement(placement: dict[str, Any], logger: logging.Logger | None = None) -> None:
    """One start-up line for a gateway, and a warning per thing that works differently."""
    if placement["where"] != "gateway":
        return
    logger = logger or log
    logger.info(
        "GeoAgent: kernels run behind the gateway %s; trials fork in the kernel and relay their result on IOPub.",
        placement["gateway"],
    )
    for note in placement["notes"]:
        logger.warning("GeoAgent: %s", note)
