"""A real Kernel Gateway per module, and a jupyter_server that starts its kernels there
(``GatewayClient.url``), as ``jupyter server --GatewayClient.url=...`` does."""

from __future__ import annotations

import pytest

from tests.kernel_gateway import kernel_gateway


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    """(url, token, root): the gateway's kernels start in ``root``, its own directory,
    not the Jupyter server's root (as on another host)."""
    root = tmp_path_factory.mktemp("gateway-host")
    with kernel_gateway(root, root.parent / f"{root.name}.log") as (url, token):
        yield url, token, root


def gateway_config(gateway) -> dict:
    url, token, _ = gateway
    return {"GatewayClient": {"url": url, "auth_token": token, "request_timeout": 120.0}}


def _clear_gateway_client() -> None:
    from jupyter_server.gateway.gateway_client import GatewayClient
    from jupyter_server.gateway.managers import GatewayMappingKernelManager

    GatewayClient.clear_instance()
    GatewayMappingKernelManager._kernels.clear()  # a class attribute in jupyter_server


@pytest.fixture(autouse=True)
def _fresh_gateway_client():
    """GatewayClient is a process-wide singleton that the server configures only when it
    creates it: each test (and the tests after these) starts without one. Cleared before
    too, since a server's teardown may create an unconfigured one after ours ended."""
    _clear_gateway_client()
    yield
    _clear_gateway_client()
