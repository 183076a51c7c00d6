"""The layer of an input of several layers that a request names (`layer "roads"`, "the parks_official
layer of parks.gpkg"): the readings see that layer's facts as the input's, and every requirement
that reads the input names the layer (param ``input_layers``), so its check reads the layer the
request is about, not the file's first. An input of one layer, or one whose request names none or
several of its layers, is read as before (its first layer)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable

from .model import Contract

_LAYER_WORD = re.compile(r"\blayers?\b", re.IGNORECASE)


def named_layers(
    sentences: Iterable[str],
    inputs: dict[str, dict],
    files: Callable[[str], list[str]],
    affirmed: Callable[[str], str],
) -> dict[str, str]:
    """{input: layer} for each input of several layers of which the request names exactly one: by
    its exact name, in the clauses that negate nothing of a sentence that says "layer" and names
    the input file."""
    sentences = list(sentences)
    chosen: dict[str, str] = {}
    for path, facts in inputs.items():
        layers = facts.get("layer_facts") or {}
        if len(layers) < 2:
            continue
        found: set[str] = set()
        for sentence in sentences:
            if not _LAYER_WORD.search(sentence):
                continue
            if posixpath.basename(path) not in {posixpath.basename(f) for f in files(sentence)}:
                continue
            said = affirmed(sentence)
            found |= {
                name
                for name in layers
                if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-]|\.\w)", said, re.IGNORECASE)
            }
        if len(found) == 1 and layers[next(iter(found))]:  # a layer whose facts could be read
            chosen[path] = found.pop()
    return chosen


def layer_inputs(inputs: dict[str, dict], chosen: dict[str, str]) -> dict[str, dict]:
    """The inputs' facts as the readings see them: a chosen layer's own facts for its file (with the
    file's number of layers, and ``layer``: its name)."""
    return {
        path: (
            {**facts["layer_facts"][chosen[path]], "layers": facts.get("layers"), "layer": chosen[path]}
            if path in chosen
            else facts
        )
        for path, facts in inputs.items()
    }


def on_layers(contract: Contract, chosen: dict[str, str]) -> Contract:
    """Each requirement whose params name a chosen input reads its layer (``input_layers``), and
    its text says which; one that names the file twice (points and polygons of one file) reads
    two layers, so it is left as it was."""
    for req in contract.requirements:
        values = _param_values(req.params)
        named = {p: layer for p, layer in chosen.items() if values.count(p) == 1}
        if named:
            req.params["input_layers"] = named
            for path, layer in named.items():
                said = f"`{path}`"
                req.text = (
                    req.text.replace(said, f"{said} (layer `{layer}`)", 1)
                    if said in req.text
                    else f"{req.text} (read from {said} (layer `{layer}`))"
                )
    return contract


def _param_values(params: dict) -> list[str]:
    """The text values of the params, a list's items each."""
    return [v for v in params.values() if isinstance(v, str)] + [
        x for v in params.values() if isinstance(v, list) for x in v if isinstance(x, str)
    ]
