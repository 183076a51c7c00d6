"""Opt-in: launch kernels without the server's secret environment variables.

Kernels inherit the server's environment (standard Jupyter), so an API key the
server needs for the LLM is readable by any code the model writes and the
kernel runs. Redaction (``geoagent_ext.redact``) keeps such a value out of
events, logs, chat and notebooks, but cannot stop code that encodes it first;
only a kernel that never had the key can.

jupyter_client builds every kernel's environment in its provisioner
(``KernelProvisionerBase.pre_launch`` -> ``_finalize_env``), so a LocalProvisioner
subclass that drops matching names is the one hook that needs neither a
replaced KernelManager/SessionManager class (other extensions replace those) nor
a patched method. It becomes the default provisioner, which kernelspecs that
name their own provisioner (remote kernels, gateways) bypass by design; when a
deployment already chose another default, we leave it alone and say so.
"""

from __future__ import annotations

import fnmatch
import logging
import os
from collections.abc import Callable, Iterable
from typing import Any

from jupyter_client.provisioning import KernelProvisionerFactory, LocalProvisioner

log = logging.getLogger(__name__)

PROVISIONER_NAME = "geoagent-secretless-provisioner"
_STOCK_DEFAULT = "local-provisioner"


def secret_names(env: Iterable[str], patterns: Iterable[str]) -> list[str]:
    """Names in ``env`` matching any pattern (case-insensitive fnmatch)."""
    upper = [p.upper() for p in patterns]
    return sorted(n for n in env if any(fnmatch.fnmatchcase(n.upper(), p) for p in upper))


class SecretlessProvisioner(LocalProvisioner):
    """The local provisioner, minus environment variables named like secrets; runs
    ``before_launch`` (taking the token out of the server's runtime files) first."""

    patterns: tuple[str, ...] = ()  # set by use_secretless_kernels from GeoAgentSettings
    before_launch: tuple[Callable[[], None], ...] = ()

    async def pre_launch(self, **kwargs: Any) -> dict[str, Any]:
        for prepare in self.before_launch:
            prepare()  # an error fails the start: no kernel runs beside what it should remove
        return await super().pre_launch(**kwargs)

    def _finalize_env(self, env: dict[str, str]) -> None:
        super()._finalize_env(env)
        for name in secret_names(env, self.patterns):
            del env[name]


def use_secretless_kernels(
    kernel_manager: Any, patterns: Iterable[str], before_launch: Iterable[Callable[[], None]] = ()
) -> bool:
    """Make SecretlessProvisioner the default for kernels started from now on, calling
    ``before_launch`` before each starts.

    Returns False (and logs why) when that would override a deployment's own
    default provisioner or when the entry point is not installed (switching then
    would make every kernel start fail).
    """
    SecretlessProvisioner.patterns = tuple(patterns)
    SecretlessProvisioner.before_launch = tuple(before_launch)
    factory = KernelProvisionerFactory.instance(parent=getattr(kernel_manager, "parent", None))
    current = factory.default_provisioner_name
    if current not in (_STOCK_DEFAULT, PROVISIONER_NAME):
        log.warning(
            "GeoAgent: strip_kernel_secrets is on, but the default kernel provisioner is %r "
            "(not %r); leaving it alone, kernels keep the server's environment.",
            current,
            _STOCK_DEFAULT,
        )
        return False
    if PROVISIONER_NAME not in factory.get_provisioner_entries():
        log.error(
            "GeoAgent: strip_kernel_secrets is on, but the %r entry point is not installed "
            "(reinstall geoagent_ext); kernels keep the server's environment.",
            PROVISIONER_NAME,
        )
        return False
    factory.default_provisioner_name = PROVISIONER_NAME
    log.info(
        "GeoAgent: kernels start without %s",
        ", ".join(secret_names(os.environ, patterns)) or f"variables matching {list(patterns)} (none set now)",
    )
    return True


def restore_default_provisioner() -> None:
    """Undo use_secretless_kernels (tests; the factory is a process-wide singleton)."""
    if KernelProvisionerFactory.initialized():
        factory = KernelProvisionerFactory.instance()
        if factory.default_provisioner_name == PROVISIONER_NAME:
            factory.default_provisioner_name = _STOCK_DEFAULT
    SecretlessProvisioner.before_launch = ()
