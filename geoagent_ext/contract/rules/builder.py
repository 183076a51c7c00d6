"""Where the readings add requirements: ``_Builder`` keeps them in order, once each, joins an
output's lists of columns, and records the words each is read from and whether surely
(``reading``); ``_output_words`` are the words that name an output, for a requirement the data
implies rather than a sentence.
"""

from __future__ import annotations

from ..model import Requirement


class _Builder:
    """Collects requirements; ``said`` and ``sure`` are the words being read and whether their
    reading is certain, set by the reader before it adds what those words ask."""

    def __init__(self, outputs: list[str]):
        self.requirements: list[Requirement] = []
        self.outputs = outputs
        self.said, self.sure = "", True
        self.carried: set[tuple[str, str]] = set()  # (output, column) kept as the input has it: its name says nothing
        self.listed: set[str] = set()  # outputs whose every column a sentence lists as a plain list of names

    def columns_of(self, output: str) -> list[str]:
        """The columns (or keys) the requirements so far ask of ``output``, in their order."""
        return [n for r in self.requirements if r.output == output and r.kind == "columns" for n in r.params["names"]]

    def reading(self, said: str, sure: bool = True) -> _Builder:
        self.said, self.sure = " ".join(said.split())[:400], sure
        return self

    def add(self, output: str, kind: str, text: str, **params) -> None:
        if not self.said:
            return  # no words of the request support it: no requirement
        for r in self.requirements:
            if r.output == output and r.kind == kind and r.params == params:
                if self.sure and not r.sure:  # said again, surely: it gates now
                    r.sure, r.said = True, self.said
                return
            if r.sure != self.sure:  # an unsure reading never joins a sure one
                continue
            if r.output == output and r.kind == kind == "columns":  # one list of columns per output
                r.params["names"] += [n for n in params["names"] if n not in r.params["names"]]
                label = "keys" if r.text.startswith("has the keys") else "columns"
                r.text = f"has the {label} {', '.join(r.params['names'])}"
                return
            if r.output == output and r.kind == kind == "geometry_types":  # two sentences: both hold
                both = [t for t in r.params["allowed"] if t in params["allowed"]]
                if both:
                    r.params["allowed"] = both
                    r.text = f"every feature is a {' or '.join(both)}"
                    return
        self.requirements.append(
            Requirement(
                id=f"r{len(self.requirements) + 1}",
                output=output,
                kind=kind,
                text=text,
                params=params,
                said=self.said,
                sure=self.sure,
            )
        )


def _output_words(b: _Builder, out: str) -> str:
    """The words that name ``out`` (its "exists" requirement's), for a requirement the data implies."""
    return next((r.said for r in b.requirements if r.output == out and r.kind == "exists"), out)
