"""Code and JSON extraction from the replies small models actually give."""

from geoagent_ext.llm.parsing import extract_code, extract_json, fenced_blocks


def test_python_fence():
    text = "Here you go:\n```python\nimport geopandas as gpd\ngdf = gpd.read_file('a.gpkg')\n```\nDone."
    assert extract_code(text) == "import geopandas as gpd\ngdf = gpd.read_file('a.gpkg')"


def test_several_python_fences_are_joined_in_order():
    text = "```py\na = 1\n```\nthen\n```python\nb = a + 1\n```"
    assert extract_code(text) == "a = 1\n\nb = a + 1"


def test_unclosed_fence_runs_to_the_end():
    # what a reply cut by max_tokens looks like
    assert extract_code("```python\nx = 1\ny = 2\n") == "x = 1\ny = 2"


def test_untagged_fence_counts_only_when_it_is_python_code():
    assert extract_code("```\nprint('hi')\n```") == "print('hi')"
    assert extract_code('```\n{"a": 1}\n```') is None  # a literal, not code
    assert extract_code("```\nthis is not python at all\n```") is None


def test_no_code_gives_none():
    assert extract_code("I cannot help with that.") is None
    assert extract_code("") is None
    assert extract_code("```bash\npip install geopandas\n```") is None
    assert extract_code("```python\n\n```") is None


def test_tagged_python_wins_over_other_blocks():
    text = "```bash\nls\n```\n```python\nz = 3\n```"
    assert extract_code(text) == "z = 3"


def test_fenced_blocks_tags():
    assert fenced_blocks("```JSON\n[1]\n```") == [("json", "[1]")]


def test_json_plain_and_fenced():
    assert extract_json('{"steps": ["a", "b"]}') == {"steps": ["a", "b"]}
    assert extract_json('Plan:\n```json\n{"steps": [1, 2]}\n```\nHope it helps!') == {"steps": [1, 2]}


def test_json_with_trailing_text_and_trailing_commas():
    assert extract_json('{"a": 1, "b": [1, 2,],} and some words {') == {"a": 1, "b": [1, 2]}
    assert extract_json('Sure! [{"x": 1}] is the answer.') == [{"x": 1}]


def test_json_python_literal_quirks():
    assert extract_json("{'a': True, 'b': None}") == {"a": True, "b": None}


def test_json_skips_braces_that_are_not_json():
    assert extract_json('Use {curly} braces. Result: {"ok": 1}') == {"ok": 1}


def test_json_none_when_absent():
    assert extract_json("no json here") is None
    assert extract_json("") is None
    assert extract_json("{broken") is None


def test_unfenced_code_after_a_cause_line_is_found_and_prose_is_not():
    reply = (
        "Cause: The column 'county' does not exist in the data.\n"
        "units = london_admin[london_admin['subtype'] == 'county']\nprint(len(units))\n"
        "This selects the borough features."
    )
    assert extract_code(reply) == "units = london_admin[london_admin['subtype'] == 'county']\nprint(len(units))"
    assert (
        extract_code("import geopandas as gpd\ngdf = gpd.read_file('a.gpkg')")
        == "import geopandas as gpd\ngdf = gpd.read_file('a.gpkg')"
    )
    assert extract_code("Cause: the file is missing. Check the path (it is relative).") is None
    assert extract_code("Note (important): use a projected CRS for areas.") is None
    assert extract_code("x") is None and extract_code("[1, 2, 3]") is None
    # A fenced reply in another language still means no Python code.
    assert extract_code("```bash\npip install geopandas\n```\nimport os") is None
