"""The curated corpus in ``rag_index/``: task recipes and one intro per library.

Why we write it ourselves: harvested docstrings say what a function does, not
which three calls solve a task or which pitfall (geographic CRS areas, the
``index_right`` column after ``sjoin``) breaks it. Recipes are Markdown files
with YAML front matter (title, task, libraries, apis) and fenced code: a
```` ```python setup```` block fabricates inputs, the ```` ```python```` block is the
solution. tests/rag runs every recipe so the corpus cannot rot.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .records import ApiRecord

CORPUS_SOURCE = "corpus"

_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n(.*)\Z", re.S)
_FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```\s*$", re.S | re.M)


class CorpusError(ValueError):
    """A corpus file is malformed; the message names the file and the problem."""


@dataclass
class Recipe:
    name: str
    title: str
    task: str
    libraries: list[str]
    apis: list[str]
    notes: str
    code: str
    setup: str = ""
    run: str = "yes"  # "yes", or "compile" (needs network/credentials: syntax-checked only)
    path: Path | None = None
    extra: dict = field(default_factory=dict)


@dataclass
class Intro:
    library: str
    title: str
    text: str
    path: Path | None = None


def corpus_dir() -> Path:
    """``$GEOAGENT_CORPUS_DIR``, the repository's ``rag_index/``, or one packaged beside us."""
    override = os.environ.get("GEOAGENT_CORPUS_DIR")
    candidates = [Path(override)] if override else []
    here = Path(__file__).resolve()
    candidates += [here.parents[2] / "rag_index", here.parents[1] / "rag_index"]
    for path in candidates:
        if (path / "recipes").is_dir():
            return path
    raise CorpusError(
        "curated corpus not found (looked in "
        + ", ".join(map(str, candidates))
        + "); set GEOAGENT_CORPUS_DIR to the rag_index folder"
    )


def _split(path: Path) -> tuple[dict, str]:
    match = _FRONT.match(path.read_text(encoding="utf-8"))
    if not match:
        raise CorpusError(f"{path}: missing '---' YAML front matter")
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise CorpusError(f"{path}: bad front matter: {exc}") from exc
    return meta, match.group(2)


def load_recipe(path: Path) -> Recipe:
    meta, body = _split(path)
    missing = [k for k in ("title", "task", "libraries", "apis") if not meta.get(k)]
    if missing:
        raise CorpusError(f"{path}: front matter lacks {', '.join(missing)}")
    code, setup = "", ""
    for info, block in _FENCE.findall(body):
        words = info.split()
        if not words or words[0] != "python":
            continue
        if "setup" in words[1:]:
            setup += block
        elif not code:
            code = block
    if not code.strip():
        raise CorpusError(f"{path}: no ```python solution block")
    notes = _FENCE.sub("", body).strip()
    return Recipe(
        name=path.stem,
        title=str(meta["title"]).strip(),
        task=str(meta["task"]).strip(),
        libraries=list(meta["libraries"]),
        apis=list(meta["apis"]),
        notes=notes,
        code=code,
        setup=setup,
        run=str(meta.get("run", "yes")),
        path=path,
        extra={k: v for k, v in meta.items() if k not in ("title", "task", "libraries", "apis", "run")},
    )


def load_recipes(root: Path | None = None) -> list[Recipe]:
    root = root or corpus_dir()
    return [load_recipe(p) for p in sorted((root / "recipes").glob("*.md"))]


def load_intros(root: Path | None = None) -> list[Intro]:
    root = root or corpus_dir()
    intros = []
    for path in sorted((root / "intros").glob("*.md")):
        meta, body = _split(path)
        if not meta.get("library"):
            raise CorpusError(f"{path}: front matter lacks library")
        intros.append(Intro(str(meta["library"]), str(meta.get("title", "")), body.strip(), path))
    return intros


def corpus_version(root: Path | None = None) -> str:
    """A content hash: the corpus is re-indexed exactly when a file changes."""
    root = root or corpus_dir()
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.md")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def recipe_record(recipe: Recipe, version: str) -> ApiRecord:
    apis = "\n".join(f"- {a}" for a in recipe.apis)
    text = (
        f"Recipe: {recipe.title}\nTask: {recipe.task}\n\n{recipe.notes}\n\n"
        f"APIs used:\n{apis}\n\n```python\n{recipe.code.rstrip()}\n```"
    )
    return ApiRecord(
        id=ApiRecord.make_id("recipe", recipe.name),
        qualified_name=f"recipe/{recipe.name}",
        library=recipe.libraries[0],
        version=version,
        kind="recipe",
        signature="",
        summary=f"{recipe.title}. {recipe.task}",
        text=text,
        libraries=recipe.libraries,
        apis=recipe.apis,
        source=CORPUS_SOURCE,
    )


def intro_record(intro: Intro, version: str) -> ApiRecord:
    return ApiRecord(
        id=ApiRecord.make_id("intro", intro.library),
        qualified_name=intro.library,
        library=intro.library,
        version=version,
        kind="intro",
        summary=intro.title,
        text=intro.text,
        libraries=[intro.library],
        source=CORPUS_SOURCE,
    )


def corpus_records(root: Path | None = None, libraries: list[str] | None = None) -> list[ApiRecord]:
    """Records for recipes and intros touching ``libraries`` (all when None)."""
    root = root or corpus_dir()
    version = corpus_version(root)
    wanted = set(libraries) if libraries is not None else None
    records = []
    for recipe in load_recipes(root):
        if wanted is None or wanted.intersection(recipe.libraries):
            records.append(recipe_record(recipe, version))
    for intro in load_intros(root):
        if wanted is None or intro.library in wanted:
            records.append(intro_record(intro, version))
    return records
