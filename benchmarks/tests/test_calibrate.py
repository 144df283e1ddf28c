"""The calibration fit: recovers known weights, keeps them non-negative, writes a loadable table."""

import importlib.util
import sys

import numpy as np

import calibrate
from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.discovery.scoring import FITTED_SIGNALS
from dbt_schema_link.links import Cardinality, Evidence, Link, Provenance, Signal


def _rows(weights, bias, n, rng):
    x = rng.uniform(-0.2, 1.0, size=(n, len(FITTED_SIGNALS)))
    p = 1.0 / (1.0 + np.exp(-(bias + x @ weights)))
    y = rng.uniform(size=n) < p
    return [calibrate.Row(xi, int(yi), 0.0) for xi, yi in zip(x, y)]


def test_fit_recovers_weights_and_bias():
    rng = np.random.default_rng(1)
    truth = np.linspace(0.5, 4.0, len(FITTED_SIGNALS))
    bias, weights = calibrate.fit(_rows(truth, -3.0, 20000, rng), l2=0.0)
    assert abs(bias + 3.0) < 0.4
    assert np.max(np.abs(weights - truth)) < 0.5


def test_fit_never_gives_a_signal_a_negative_weight():
    rng = np.random.default_rng(2)
    truth = np.full(len(FITTED_SIGNALS), 1.5)
    truth[2] = -2.0  # the data say "against": the fit clamps it at 0 instead
    _, weights = calibrate.fit(_rows(truth, -1.0, 5000, rng))
    assert weights.min() >= 0.0
    assert weights[2] == 0.0
    assert weights[0] > 0.5


def test_written_table_loads(tmp_path, monkeypatch):
    out = tmp_path / "calibration.py"
    monkeypatch.setattr(calibrate, "CALIBRATION_PY", out)
    weights = np.arange(len(FITTED_SIGNALS), dtype=float)
    calibrate.write_table({calibrate.MEASURED: (-2.5, weights, 10, 3),
                           calibrate.NAMES: (-1.5, weights + 1, 10, 3)}, "a test corpus")
    spec = importlib.util.spec_from_file_location("cal", out)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "cal", module)  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    assert module.MEASURED.bias == -2.5 and module.MEASURED.name_cap is None
    assert module.NAMES_ONLY.bias == -1.5
    assert [module.MEASURED.weights[s] for s in FITTED_SIGNALS] == list(range(len(FITTED_SIGNALS)))


def test_reliability_bins_count_shares():
    names, values = calibrate.Basis.NAMES_AND_VALUES, calibrate.Basis.VALUES_ALONE
    lines = calibrate.reliability([(0.95, True, True, names), (0.92, False, True, names), (0.6, False, False, values),
                                   (0.55, True, True, names)])
    assert "n=   2  declared FK 0.500  lenient 1.000" in lines[0]
    assert lines[1].strip().startswith(names.value) and "n=   2" in lines[1]  # the bin's one basis
    assert "n=0" in lines[2]
    assert "n=   2  declared FK 0.500" in lines[3]
    assert [line.split()[0] for line in lines[4:]] == ["names", "values"]
    assert "declared FK 1.000" in lines[4] and "declared FK 0.000" in lines[5]


def test_basis_of_a_link_is_what_its_confidence_rests_on():
    child, parent = ColumnRef("model.p.song", "provider"), ColumnRef("model.p.singer", "singer_id")

    def link(*signals: Signal, names_only: bool = False) -> Link:
        return Link(child, parent, Provenance.INFERRED, 0.6, Cardinality.MANY_TO_ONE,
                    tuple(Evidence(s, 1.0, "") for s in signals), names_only=names_only)

    assert calibrate.basis(link(Signal.TYPE_MATCH, Signal.EXACT_CONTAINMENT)) is calibrate.Basis.VALUES_ALONE
    assert calibrate.basis(link(Signal.NAME_EXACT, Signal.EXACT_CONTAINMENT)) is calibrate.Basis.NAMES_AND_VALUES
    assert calibrate.basis(link(Signal.SQL_JOIN, Signal.EXACT_CONTAINMENT)) is calibrate.Basis.NAMES_AND_VALUES
    assert calibrate.basis(link(Signal.NAME_EXACT, names_only=True)) is calibrate.Basis.NAMES_ONLY
