"""The Jupyter AI chat face of GeoAgent (entry point ``jupyter_ai.personas``: ``geoagent``)."""

from .persona import GeoAgentPersona

__all__ = ["GeoAgentPersona"]
