"""Keep what logs in to the server out of files its kernels can read.

A kernel runs as the server's user, so it can read the server's runtime directory,
where jupyter_server leaves two ways in: the token, in ``jpserver-<pid>.json`` (for
``jupyter server list`` and ``stop``) and in ``jpserver-<pid>-open.html`` (the
redirect the browser opens at start), and the key its login cookies are signed with,
``jupyter_cookie_secret``, from which any cookie can be forged. jupyter_server has no
option to leave them out, and a runtime directory elsewhere is just as readable to the
same user. So, with ``strip_kernel_secrets`` on and local kernels:

* login cookies are signed with a key that exists only in the server's memory (a
  browser logs in again after each restart of the server);
* before each kernel starts (``SecretlessProvisioner``'s hook), the token leaves the
  info file (which keeps the URL and pid) and the browser-open file is removed: by
  then the browser has used it, and no kernel of this server runs while either holds
  the token.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from typing import Any

from jupyter_core.paths import secure_write

log = logging.getLogger(__name__)


def use_private_cookie_secret(serverapp: Any) -> None:
    """Sign this server's login cookies with a random key held only in its memory
    (jupyter_server's default key is read from ``jupyter_cookie_secret``)."""
    key = secrets.token_bytes(32)
    serverapp.cookie_secret = key
    serverapp.web_app.settings["cookie_secret"] = key


def forget_token_files(serverapp: Any) -> None:
    """The token out of the server's runtime files: the info file without it, the
    browser-open files removed. Idempotent, run before each kernel starts."""
    _drop_token(serverapp.info_file)
    for path in (serverapp.browser_open_file, serverapp.browser_open_file_to_run):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def _drop_token(info_file: str) -> None:
    try:
        with open(info_file, encoding="utf-8") as fh:
            info = json.load(fh)
    except FileNotFoundError:
        return  # not started by `jupyter server` (tests, embedding): nothing was written
    except (OSError, ValueError) as exc:
        log.warning("GeoAgent: could not read %s to take the token out: %s", info_file, exc)
        return
    if info.get("token"):
        info["token"] = ""  # `jupyter server list` still lists the URL, without a way in
        with secure_write(info_file) as fh:
            json.dump(info, fh, indent=2, sort_keys=True)
