"""The registry of requirement kinds (``contract/kinds``) is whole and in sync: every kind has its
typed params, its advice and its in-kernel check (a note has none), the checks run in the helper on
names it defines, the helper dispatches on every checkable kind, and the panel's TypeScript types
list the same kinds. A requirement's params are validated against its kind's model."""

from __future__ import annotations

import ast
import builtins
import dataclasses
import dis
import re
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from geoagent_ext.contract import Requirement
from geoagent_ext.contract.kinds import CHECKABLE, KIND_NAMES, KINDS, RequirementKind
from geoagent_ext.contract.model import Kind
from geoagent_ext.kernel import inkernel

GENERATED_TS = Path(__file__).resolve().parents[2] / "labextension" / "src" / "runs" / "events.generated.ts"


@pytest.fixture(scope="module")
def helper():
    return inkernel.load()


@pytest.mark.parametrize("name", KIND_NAMES)
def test_every_kind_has_params_advice_and_check(name):
    kind = KINDS[name]
    assert isinstance(kind, RequirementKind) and kind.name == name
    assert issubclass(kind.params, BaseModel)
    if name == "note":
        assert kind.check is None and kind.mend is None
        return
    assert kind.advice.strip(), f"{name} has no repair advice"
    assert kind.check is not None and kind.check.__name__ == f"_kind_{name}"
    assert kind.reads in ("file", "table", "column")


def _globals_loaded(code) -> set[str]:
    names = {i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            names |= _globals_loaded(const)
    return names


def test_the_helper_dispatches_every_checkable_kind_to_its_check(helper):
    table = helper._CONTRACT_KINDS
    assert set(table) == set(CHECKABLE) == {n for n in KIND_NAMES if n != "note"}
    for name, (reads, geometry, check) in table.items():
        assert (reads, geometry, check.__name__) == (KINDS[name].reads, KINDS[name].geometry, f"_kind_{name}")


@pytest.mark.parametrize("name", sorted(CHECKABLE))
def test_a_check_and_its_helpers_use_only_names_the_helper_defines(helper, name):
    """They run in the user's kernel, where only the helper's names exist (no geoagent_ext): a
    function of the kind's module the check calls must be one of its ``helpers``."""
    kind = KINDS[name]
    for function in (kind.check, *kind.helpers):
        shipped = helper.__dict__[function.__name__]
        missing = {
            n for n in _globals_loaded(shipped.__code__) if n not in helper.__dict__ and not hasattr(builtins, n)
        }
        assert not missing, f"{function.__name__} ({name}) uses names the in-kernel helper lacks: {sorted(missing)}"


def test_the_helper_source_is_python_3_8():
    ast.parse(inkernel.SOURCE, feature_version=(3, 8))


def test_frame_mends_run_in_one_order():
    orders = [k.mend_order for k in KINDS.values() if k.mend is not None and not k.mends_json]
    assert len(orders) == len(set(orders)), "two kinds' mends share a place in the order"


def test_the_panel_types_list_the_registry_kinds():
    ts = GENERATED_TS.read_text()
    body = re.search(r"^export interface Requirement \{\n(.*?)^\}", ts, re.MULTILINE | re.DOTALL)
    assert body, "no Requirement interface in events.generated.ts"
    union = re.search(r"^  kind:\n(.*?);$", body.group(1), re.MULTILINE | re.DOTALL)
    assert union and re.findall(r"\| '(\w+)'", union.group(1)) == list(KIND_NAMES), (
        "the kinds changed: run `cd labextension && jlpm build:types` and commit src/runs/events.generated.ts"
    )
    assert Kind.__args__ == KIND_NAMES  # type: ignore[attr-defined]


def test_params_are_validated_against_the_kind_and_kept_as_given():
    req = Requirement(id="r1", output="o.gpkg", text="t", kind="crs_epsg", params={"epsg": 3035})
    assert req.model_dump(mode="json")["params"] == {"epsg": 3035}
    with pytest.raises(ValidationError, match="epsg"):
        Requirement(id="r1", output="o.gpkg", text="t", kind="crs_epsg", params={})
    with pytest.raises(ValidationError, match="espg"):
        Requirement(id="r1", output="o.gpkg", text="t", kind="crs_epsg", params={"epsg": 3035, "espg": 3035})
    with pytest.raises(ValidationError, match="name"):
        Requirement(id="r1", output="o.csv", text="t", kind="sorted", params={"descending": True})
    with pytest.raises(ValidationError):
        Requirement(id="r1", output="o.csv", text="t", kind="no_such_kind")


def test_a_kinds_own_reading_is_asked_for_every_request(monkeypatch):
    """A kind's module may hold its reading (``read``): the derivation hands it the request's
    sentences and the builder, and what it adds is in the contract."""
    from geoagent_ext.contract import derive_contract

    seen = []

    def read(request, b):
        seen.append([(sentence, outs) for sentence, outs, _ in request.sentences])
        b.reading(request.sentences[0][0]).add(request.outputs[0], "note", "read by the kind's module")

    monkeypatch.setitem(KINDS, "note", dataclasses.replace(KINDS["note"], read=read))
    contract = derive_contract("Write `out.csv` with the `name` column.", ["out.csv"])
    assert seen == [[("Write `out.csv` with the `name` column.", ["out.csv"])]]
    assert [r.text for r in contract.requirements if r.kind == "note"] == ["read by the kind's module"]
