"""Errors the kernel service raises for bad input or an unusable kernel.

Outcomes of running code (an exception in the code, a timeout, a kernel that
dies *during* the run) are not raised: they come back as a result ``status``.
Preconditions that make a request impossible are raised, with a message a user
can act on.
"""

from __future__ import annotations


class KernelServiceError(RuntimeError):
    """Base class of everything the kernel service raises."""


class KernelNotFoundError(KernelServiceError, KeyError):
    """No running kernel with this id (or no session for this notebook)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class KernelDeadError(KernelServiceError):
    """The kernel process is not alive (crashed, killed or shut down)."""


class KernelBusyError(KernelServiceError):
    """The kernel stayed busy with someone else's request for too long."""


class KernelProtocolError(KernelServiceError):
    """The kernel did not answer as a Python (IPython) kernel should."""
