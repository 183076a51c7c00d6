"""A requirement no code can check: shown, never counted as passed ("not verified")."""

from ._kind import Params, RequirementKind

NOTE = RequirementKind(name="note", params=Params, check=None, advice="")
