import dataclasses

import pytest

from dbt_schema_link.discovery import DiscoverySettings, DiscoverySettingsError
from dbt_schema_link.errors import SchemaLinkError


def test_defaults_are_valid_and_documented():
    s = DiscoverySettings()
    assert s.min_confidence == 0.5
    assert s.parent_min_uniqueness == 0.98
    assert s.max_parents_per_child == 1
    # every field states its meaning and default in the class source (attribute docstrings)
    import inspect
    source = inspect.getsource(DiscoverySettings)
    names = [f.name for f in dataclasses.fields(DiscoverySettings)]
    for name, following in zip(names, names[1:] + ["def __post_init__"]):
        chunk = source.split(f"    {name}:", 1)[1].split(f"    {following}", 1)[0]
        assert '"""' in chunk and "Default" in chunk, f"{name} has no docstring with its default"


def test_from_mapping_overrides_and_keeps_the_rest():
    s = DiscoverySettings.from_mapping({"min_confidence": 0.8, "max_verify_total": 10})
    assert s.min_confidence == 0.8 and s.max_verify_total == 10
    assert s.lsh_threshold == DiscoverySettings().lsh_threshold
    assert DiscoverySettings.from_mapping(None) == DiscoverySettings()
    assert DiscoverySettings.from_mapping({}) == DiscoverySettings()


def test_unknown_key_is_rejected_with_one_line_naming_it():
    with pytest.raises(DiscoverySettingsError) as err:
        DiscoverySettings.from_mapping({"min_confidnce": 0.8})
    message = str(err.value)
    assert "min_confidnce" in message and "min_confidence" in message  # names the valid keys
    assert "\n" not in message
    assert isinstance(err.value, SchemaLinkError)


@pytest.mark.parametrize("key, value", [
    ("min_confidence", 1.5),
    ("min_confidence", -0.1),
    ("parent_min_uniqueness", 0.2),
    ("max_verify_per_child", -1),
    ("lsh_m", 1),
    ("min_confidence", float("nan")),
])
def test_out_of_range_values_are_rejected(key, value):
    with pytest.raises(DiscoverySettingsError) as err:
        DiscoverySettings.from_mapping({key: value})
    assert key in str(err.value) and "[" in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("key, value", [
    ("min_confidence", "0.5"),
    ("min_confidence", True),
    ("max_verify_total", 2.5),
    ("use_values", "yes"),
    ("table_prefixes", "stg_"),
])
def test_wrong_types_are_rejected(key, value):
    with pytest.raises(DiscoverySettingsError):
        DiscoverySettings.from_mapping({key: value})


def test_whole_floats_become_ints_and_lists_become_tuples():
    s = DiscoverySettings.from_mapping({"max_verify_total": 10.0, "table_prefixes": ["STG_", "dim_"]})
    assert s.max_verify_total == 10 and isinstance(s.max_verify_total, int)
    assert s.table_prefixes == ("stg_", "dim_")


def test_direct_construction_is_validated_too_and_frozen():
    with pytest.raises(DiscoverySettingsError):
        DiscoverySettings(min_confidence=2.0)
    s = DiscoverySettings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.min_confidence = 0.1  # type: ignore[misc]


def test_mapping_round_trip():
    s = DiscoverySettings(min_confidence=0.7, use_sql=False, table_prefixes=("x_",))
    assert DiscoverySettings.from_mapping(s.to_mapping()) == s
