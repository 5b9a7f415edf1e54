"""The RP2040 estimator (counts, calibration, conversion) and the docs/perf.md sections it feeds."""

import os

import pytest

from host_tools.bench import perf_docs, rp2040_estimate as est

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_calibration_points_agree_with_the_range_they_give():
    for point in est.CALIBRATION:
        lo, mid, hi = est.k_of(point)
        assert est.K_LOW <= lo <= mid <= hi <= est.K_HIGH, point[0]
    assert est.K_LOW < est.K_CENTRAL < est.K_HIGH
    # the conversion gives back each emulated time from its instruction count
    for name, (lo_ms, hi_ms), ir in est.CALIBRATION:
        assert lo_ms * 0.97 <= est.ms(ir, est.k_of((name, (lo_ms, hi_ms), ir))[1]) <= hi_ms * 1.03


@pytest.mark.parametrize("ir, k, mhz, want", [
    (125000, 1.0, 125.0, 1.0),
    (1000000, 2.0, 125.0, 16.0),
    (0, 1.74, 125.0, 0.0),
    (250000, 1.0, 250.0, 1.0),
])
def test_ms_is_instructions_times_k_over_the_clock(ir, k, mhz, want):
    assert est.ms(ir, k, mhz) == pytest.approx(want)


CALLGRIND = """version: 1
creator: callgrind-3.19.0
events: Ir
fn=(1) main_
0 100
cfn=(2) gc_collect
calls=3 0
0 40
cfn=(3) mp_call
calls=1 0
0 7
fn=(2)
0 40
totals: 187
"""


def test_callgrind_totals_and_the_collections_in_them(tmp_path):
    path = tmp_path / "out"
    path.write_text(CALLGRIND)
    assert est._parse_callgrind(str(path)) == (187, 3, 40)


def test_a_callgrind_file_without_totals_is_refused(tmp_path):
    path = tmp_path / "out"
    path.write_text("events: Ir\nfn=(1) main_\n0 5\n")
    with pytest.raises(est.EstimateError):
        est._parse_callgrind(str(path))


@pytest.mark.micropython
def test_a_counted_loop_is_net_of_its_baseline_and_repeats_exactly(tmp_path):
    base = tmp_path / "base.py"
    work = tmp_path / "work.py"
    base.write_text("n = 0\n")
    work.write_text("n = 0\nfor i in range(2000):\n    n += i\n")
    first = est.measure(str(work), baseline=str(base))
    again = est.measure(str(work), baseline=str(base))
    assert first["ir_net"] == again["ir_net"] > 2000 * 10
    assert first["rp2040_ms_low"] < first["rp2040_ms_est"] < first["rp2040_ms_high"]
    assert first["gc_collections"] == 0


def test_a_section_of_perf_md_is_replaced_between_its_markers():
    text = "intro\n<!-- bench:x begin -->\nold\n<!-- bench:x end -->\nafter\n"
    new = perf_docs.replace_section(text, "x", "new table")
    assert new == "intro\n<!-- bench:x begin -->\nnew table\n<!-- bench:x end -->\nafter\n"
    assert perf_docs.section(new, "x") == "new table"
    with pytest.raises(ValueError):
        perf_docs.replace_section(text, "y", "z")


def test_perf_md_has_every_bench_commands_section_filled():
    with open(perf_docs.PERF_MD) as f:
        text = f.read()
    for name, command in (("rules", "bench"), ("drivers", "benchdrivers"), ("board", "benchboard")):
        body = perf_docs.section(text, name)
        assert "python -m host_tools %s --write-docs" % command in body, name
        assert "| " in body and "not measured yet" not in body, name


def test_no_figure_in_the_docs_uses_the_old_factor():
    """The estimates were re-measured with the calibrated k: no doc still converts with 2.2."""
    for name in ("README.md", "docs/perf.md", "docs/hardware.md"):
        with open(os.path.join(REPO, name)) as f:
            text = f.read()
        assert "k = 2.2 cycles" not in text and "mpy_cost.py" not in text, name
