"""GeoAgent for JupyterLab.

A Jupyter server extension (``geoagent_ext.app.GeoAgentApp``) that runs the
plan -> generate -> execute -> repair loop against the user's live kernel, and
a prebuilt JupyterLab extension (the side panel) that shows it.
"""

try:
    from ._version import __version__
except ImportError:  # running from a source tree that was never built
    __version__ = "0.0.0.dev0"


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "geoagent-ext"}]


def _jupyter_server_extension_points():
    from .app import GeoAgentApp

    return [{"module": "geoagent_ext", "app": GeoAgentApp}]
