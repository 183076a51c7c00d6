"""Typed results of the kernel service (pydantic, so every face can serialise them).

``ExecutionResult.outputs`` are nbformat v4 output dicts, ready to be put into a
notebook cell as they are; ``stdout``/``stderr`` repeat the stream text for code
that only wants the text.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Status = Literal["ok", "error", "timeout", "dead", "interrupted"]


class ExecutionError(BaseModel):
    """An exception raised by the executed code, raw and shortened."""

    ename: str
    evalue: str
    traceback: list[str] = Field(default_factory=list)  # raw, with ANSI colours
    message: str  # short, ANSI-free: "NameError: name 'x' is not defined (line 3: y = x + 1)"
    lineno: int | None = None  # line in the submitted cell, when known
    hints: list[str] = Field(default_factory=list)  # GIS hints (see kernel.errors)


class ExecutionResult(BaseModel):
    status: Status
    stdout: str = ""
    stderr: str = ""
    outputs: list[dict] = Field(default_factory=list)
    error: ExecutionError | None = None
    execution_count: int | None = None
    duration_s: float = 0.0


class TrialResult(ExecutionResult):
    """A run in a throw-away copy of the kernel state.

    ``defined``/``changed``/``deleted`` are user-namespace names. ``files`` are
    paths (relative to the kernel's working directory) the trial wrote, never in
    the user's directory; ``sandbox`` says how (see ``inkernel/_30_sandbox.py``):
    ``overlay``, the trial's own view of the whole file system and no network, its
    writes gone with the trial (``sandbox_dir`` None); ``mirror``, Python writes
    into the working directory only, kept under ``sandbox_dir``; ``sandbox_note``
    says what the trial could still change ('' when nothing). ``mode`` says how
    the copy was made: ``fork`` (copy-on-write child of the kernel) or ``replay``
    (history replayed in a fresh kernel, the slow fallback).
    """

    defined: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)
    deleted: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    files_deleted: list[str] = Field(default_factory=list)
    sandbox_dir: str | None = None
    sandbox: str | None = None  # overlay | mirror | none
    sandbox_note: str = ""
    mode: Literal["fork", "replay"] = "fork"
    timings: dict[str, float] = Field(default_factory=dict)  # seconds per phase (fork trials)


class Member(BaseModel):
    """One attribute of a live object, for the repair prompt and completions."""

    name: str
    kind: str  # function | method | property | attribute | class | module | instance
    signature: str = ""  # "to_crs(crs=None, epsg=None, inplace=False)"
    doc: str = ""  # first line of the docstring


class VariableSummary(BaseModel):
    name: str
    type: str  # "geopandas.GeoDataFrame"
    summary: str  # one line: "GeoDataFrame 120 rows x 5 cols, EPSG:4326 (degree), Polygon"
