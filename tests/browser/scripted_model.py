"""The model behind the browser tests' JupyterLab (``scripted:<this file>``).

It answers like a real model would for four scripted journeys, keyed on what
the prompts contain, so the whole agent (planner, loop, search, repair,
completion) runs for real against a real kernel:

- "parcel areas": 3 steps; step 2 always fails (a column that does not exist),
  so the user must fix it in the panel; step 3 makes an ipyleaflet map.
- "search demo": 1 step solved by tree search: the first answer fails and so
  does its repair, the second answer fails too and its repair works (three
  failed nodes, the chosen one under the second).
- "`parcels.csv`" (deliverable contract): 1 step; its first answer writes `area_ha`
  with two decimals, so a requirement the user added in review ("`area_ha` holds
  integer hectares") fails on the file; the repair that names it writes integers.
- "undo demo": 2 steps that create `undo_table` and `undo_total`; the second sleeps a
  few seconds, so the user edits the notebook while the run writes (issue 20).
- inline completion: ``parcels.to_`` -> ``to_crs(epsg=3035)`` when the prompt
  shows that ``parcels`` is a GeoDataFrame whose members include ``to_crs``.
"""

import itertools

_calls = itertools.count()
_search_answers = itertools.count()  # fresh (non-repair) answers of the search demo, in order

PLAN_AREAS = """1. Make a table of the parcels with their areas in square metres.
2. Add up the parcel areas in hectares.
3. Show the parcels on a map."""

STEP1 = """```python
import pandas as pd
parcels = pd.DataFrame({"parcel": ["A", "B", "C"], "area_m2": [12000.0, 34000.0, 5600.0]})
print(parcels)
```"""

# Both attempts use a column the table does not have: the step needs the user.
STEP2_FIRST = """```python
total_ha = parcels["area_ha"].sum()
print(f"total: {total_ha:.2f} ha")
```"""

STEP2_REPAIR = """Cause: the column is not called area_ha.
```python
total_ha = parcels["area"].sum() / 10_000
print(f"total: {total_ha:.2f} ha")
```"""

STEP3 = """```python
from ipyleaflet import Map, Marker
m = Map(center=(52.52, 13.40), zoom=11)
for lat, lon in [(52.52, 13.40), (52.50, 13.45), (52.54, 13.36)]:
    m.add(Marker(location=(lat, lon)))
m
```"""

SEARCH_FAILING = [
    "total = parcels.area_sqm.sum()\nprint(total)",  # AttributeError on the table
    'total = parcels["area_m2"].sum() / 10_000\nprint(total.in_hectares())',  # AttributeError -> repaired below
    'total = parcels["size"].sum()\nprint(total)',  # KeyError
]
SEARCH_REPAIR = 'total = parcels["area_m2"].sum() / 10_000\nprint(f"{total:.2f} ha")'

PLAN_CONTRACT = "1. Compute the area of each parcel of `parcels.geojson` in hectares and write `parcels.csv`."
# File order (C, A, B), not sorted by `parcel`: a "sorted" requirement would fail on it.
CONTRACT_STEP = """import geopandas as gpd
parcels = gpd.read_file("parcels.geojson").to_crs(25833)
parcels["area_ha"] = (parcels.area / 10_000).round(2)
parcels[["parcel", "area_ha"]].to_csv("parcels.csv", index=False)
print(parcels[["parcel", "area_ha"]])"""
CONTRACT_REPAIR = CONTRACT_STEP.replace(".round(2)", ".round().astype(int)")


PLAN_UNDO = "1. Make a lookup table.\n2. Add up the table."
UNDO_STEP1 = 'undo_table = {"a": 1, "b": 2}\nprint(undo_table)'
UNDO_STEP2 = 'import time\ntime.sleep(4)\nundo_total = sum(undo_table.values())\nprint("total", undo_total)'


def _code(code: str) -> str:
    return f"```python\n{code}\n```"


def reply(messages):
    system, user = messages[0].text, messages[-1].text
    n = next(_calls)
    if "code completion" in system:
        if "parcels: " in user and "GeoDataFrame" in user and "to_crs(" in user:
            return "```python\nparcels.to_crs(epsg=3035)\n```"
        return ""  # nothing to suggest: no ghost text
    if "plans Python analyses" in system:
        if "search demo" in user:
            return "1. Compute the total parcel area in hectares."
        if "undo demo" in user:
            return PLAN_UNDO
        if "`parcels.csv`" in user:
            return PLAN_CONTRACT
        return PLAN_AREAS
    if "reviewing a geospatial analysis" in system:
        return "OK"
    if "search demo" in user:
        if "previous attempt failed" in user:
            if "in_hectares" in user:
                return "Cause: floats have no in_hectares method.\n" + _code(SEARCH_REPAIR)
            # Other repairs stay broken, each differently (no duplicates in the tree).
            broken = 'total = parcels["col_%d"].sum()' % n
            return "Cause: unknown.\n" + _code(broken)
        return _code(SEARCH_FAILING[next(_search_answers) % len(SEARCH_FAILING)])
    if "undo demo" in user:
        return _code(UNDO_STEP1 if "Your step (1 of 2)" in user else UNDO_STEP2)
    if "`parcels.csv`" in user:
        # The contract is in every prompt; only a failed check says "must satisfy: ... Seen: ...".
        if "must satisfy: `area_ha` holds integer hectares" in user:
            return "Cause: `area_ha` had decimals; the file must hold integers.\n" + _code(CONTRACT_REPAIR)
        return _code(CONTRACT_STEP)
    if "Your step (1 of 3)" in user:
        return STEP1
    if "Your step (2 of 3)" in user:
        return STEP2_REPAIR if "previous attempt failed" in user else STEP2_FIRST
    if "Your step (3 of 3)" in user:
        return STEP3
    return _code("print('scripted model: no reply for this prompt')")
