import json
from pathlib import Path

import altair as alt
import polars as pl
import pytest
from altair.vegalite.v6.schema.core import Root

from pipeline.render import charts
from pipeline.render.accelerator_pages import _line_spec
from pipeline.render.benchmark_pages import _best_chart
from pipeline.render.history_views import history_chart
from pipeline.render.site_data import with_accelerators
from tests.unit.render.conftest import (
    AMD_V51,
    AMD_V60,
    H100_16_V51,
    H100_V51,
    frame,
    pair,
    pairs,
)


def _gains() -> pl.DataFrame:
    return pairs(
        pair(AMD_V51, AMD_V60),
        pair(
            H100_V51,
            H100_V51
            | {
                "release": "v6.0",
                "result_value": 31000.0 * 40,
                "result_key": "6.0-1:x",
            },
        ),
    ).with_columns(vendor=pl.Series(["AMD", "NVIDIA"]))


def _valid(spec: dict) -> dict:
    """The spec, after checking it against the Vega-Lite schema Altair ships."""
    Root.validate(spec)
    return spec


def _layers(spec: dict) -> list[dict]:
    return spec.get("layer", [spec])


def _ratio_chart(data: pl.DataFrame) -> tuple[dict, pl.DataFrame]:
    chart, frame = charts.pair_ratio_chart(
        data,
        title="t",
        label=pl.col("submitter_new"),
        ends=("older", "newer"),
        compare=pl.col("accelerator_name_new"),
        compare_title="accelerator",
    )
    return _valid(chart), frame


def test_pair_chart_has_a_log_ratio_axis_and_a_reference_line_at_one() -> None:
    spec, data = _ratio_chart(_gains())
    parity, points = _layers(spec)
    assert parity["mark"]["type"] == "rule" and parity["encoding"]["x"] == {"datum": 1}
    encoding = points["encoding"]
    assert encoding["x"]["scale"] == {"type": "log", "base": 2}
    assert encoding["x"]["title"] == "ratio, × better (log scale)"
    tooltips = {t["field"] for t in encoding["tooltip"]}
    assert {"result_key_old", "result_key_new", "value_old", "value_new"} <= tooltips
    assert {"flags", "reading"} <= tooltips
    assert spec["width"] == "container"
    assert data["result_key_old"].to_list() == [
        "5.1-0001:llama2-70b-99:Offline",
        "5.1-0100:llama2-70b-99:Offline",
    ]
    # Tooltip values carry their unit.
    assert data["value_old"].to_list() == ["27,803.9 Tokens/s", "31,000 Tokens/s"]


def test_pair_chart_colours_what_it_compares_and_never_uses_a_step_height() -> None:
    one_vendor = _gains().with_columns(
        accelerator_name_new=pl.Series(["NVIDIA H100", "NVIDIA H200"])
    )
    spec, _ = _ratio_chart(one_vendor)
    colour = _layers(spec)[1]["encoding"]["color"]
    assert colour["field"] == "compare"
    # Colour-blind-safe colours, distinct for each compared chip (not a vendor's
    # shades, not tableau's red/green pairs).
    assert colour["scale"] == {
        "domain": ["NVIDIA H100", "NVIDIA H200"],
        "range": ["#0072b2", "#d55e00"],
    }
    # A step height with width="container" makes Vega warn ("Dropping fit-y").
    assert spec["height"] == 2 * charts.ROW_HEIGHT
    # Past the palette's eight colours they repeat (shapes then tell lines apart).
    assert charts.style.series_colours(9)[8] == charts.SERIES_COLOURS[0]


def test_more_than_40_pairs_are_grouped_by_scenario_and_level() -> None:
    # 41 pairs would be 41 labelled rows, taller than a screen: one row per scenario
    # and level instead, each pair still its own mark with its own tooltip.
    many = pairs(
        *(
            pair(
                AMD_V51 | {"result_key": f"old-{i}"},
                AMD_V60 | {"result_key": f"new-{i}", "submitter": f"Team {i:02d}"},
                scenario="Offline" if i % 2 else "Server",
            )
            for i in range(charts.MAX_LABELLED_ROWS + 1)
        )
    )
    spec, data = _ratio_chart(many)
    points = _layers(spec)[1]["encoding"]
    assert points["y"]["field"] == "group"
    assert sorted(data["group"].unique()) == ["Offline · system", "Server · system"]
    assert spec["height"] == 2 * charts.ROW_HEIGHT
    assert data.height == 41 and data["label"].n_unique() == 41
    # At 40 pairs every pair keeps a labelled row.
    spec, _ = _ratio_chart(many.head(charts.MAX_LABELLED_ROWS))
    assert _layers(spec)[1]["encoding"]["y"]["field"] == "short"
    assert spec["height"] == charts.MAX_LABELLED_ROWS * charts.ROW_HEIGHT


def test_long_labels_are_shortened_whole_in_the_tooltip_and_never_alike() -> None:
    long_name = "A very long system name that Vega would cut " * 2
    data = _gains().with_columns(
        system_name_new=pl.lit(long_name), scenario=pl.lit("Offline")
    )
    chart, frame = charts.pair_ratio_chart(
        data,
        title="t",
        label=pl.format("{} · {}", pl.col("scenario"), pl.col("system_name_new")),
        ends=("older", "newer"),
        compare=pl.col("accelerator_name_new"),
        compare_title="accelerator",
    )
    shorts = frame["short"].to_list()
    assert len(set(shorts)) == 2 and shorts[1].endswith(" #2")
    assert all(len(s) <= charts.LABEL_CHARS + 3 for s in shorts)
    assert frame["label"][0] == f"Offline · {long_name}"
    y = _layers(_valid(chart))[1]["encoding"]["y"]
    assert y["field"] == "short" and y["axis"]["labelLimit"] == 0


def test_flagged_pairs_are_faint_and_say_why() -> None:
    data = _gains().with_columns(
        flags=pl.Series([["large_software_gain"], []]),
        flag_reasons=pl.Series(["software-only gain above 3x", None]),
    )
    spec, frame = _ratio_chart(data)
    assert frame["status"].to_list() == ["flagged", "unflagged"]
    assert frame["flags"].to_list() == ["software-only gain above 3x", "none"]
    opacity = _layers(spec)[1]["encoding"]["opacity"]
    assert opacity["condition"]["test"] == "datum.status == 'flagged'"
    assert spec["title"]["subtitle"] == "faint: pairs with a plausibility warning"
    # A label (preview) is a disclosure, not a doubt: drawn like any pair.
    labelled = data.with_columns(flags=pl.Series([["preview_end"], []]))
    assert _ratio_chart(labelled)[1]["status"].to_list() == ["unflagged"] * 2


def _scaling_pairs() -> pl.DataFrame:
    server = {"scenario": "Server", "result_unit": "Queries/s"}
    return pairs(
        pair(
            H100_V51, H100_16_V51, kind="scaling", ratio=60000 / 31000, efficiency=0.97
        ),
        pair(
            H100_V51 | server,
            H100_16_V51 | server,
            kind="scaling",
            ratio=1.9,
            efficiency=0.95,
        ),
    )


def test_a_chart_never_puts_two_units_on_one_axis() -> None:
    data = _scaling_pairs()
    with pytest.raises(ValueError, match="Queries/s, Tokens/s"):
        charts.scaling_chart(data, title="t")
    parts = charts.split_by_unit(data)
    assert [(s, u, p.height) for s, u, p in parts] == [
        ("Offline", "Tokens/s", 1),
        ("Server", "Queries/s", 1),
    ]
    for scenario, unit, part in parts:
        spec = _valid(charts.scaling_chart(part, title=scenario)[0])
        assert _layers(spec)[1]["encoding"]["y"]["title"] == unit


def test_scaling_chart_draws_linear_scaling_and_names_log_axes() -> None:
    chart, frame = charts.scaling_chart(_scaling_pairs().head(1), title="t")
    spec = _valid(chart)
    linear, segment, *_ = _layers(spec)
    assert linear["mark"]["strokeDash"] == [4, 4]
    assert linear["encoding"]["y2"]["field"] == "linear"
    assert frame["linear"].to_list() == [62000.0]  # 31,000 × 16/8
    assert segment["encoding"]["x2"]["field"] == "total_accelerators_new"
    assert "efficiency" in {t["field"] for t in segment["encoding"]["tooltip"]}
    # 8 -> 16 chips and 31k -> 62k do not span orders of magnitude: linear axes,
    # and their titles do not say "log".
    assert "log" not in segment["encoding"]["x"]["title"]
    assert segment["encoding"]["y"]["title"] == "Tokens/s"
    assert "linear scaling" in spec["title"]["subtitle"]
    assert spec["height"] == 280


def test_efficiency_chart_has_a_reference_line_at_linear_scaling() -> None:
    chart, _ = charts.efficiency_chart(_scaling_pairs(), title="t")
    spec = _valid(chart)
    linear, points = _layers(spec)
    assert linear["mark"]["type"] == "rule" and linear["encoding"]["y"] == {"datum": 1}
    assert points["encoding"]["y"]["axis"]["format"] == "%"
    assert points["encoding"]["x"]["title"].endswith("(log scale)")


def test_best_per_accelerator_chart_lists_vendors_in_order_with_distinct_colours() -> (
    None
):
    best = with_accelerators(frame(AMD_V51, AMD_V60, H100_V51)).with_columns(
        metric=pl.col("result_per_accelerator")
    )
    chart, _ = _best_chart(
        best, title="t", metric="Tokens/s per accelerator", releases=["v5.1", "v6.0"]
    )
    encoding = _valid(chart)["encoding"]
    assert encoding["x"]["sort"] == ["v5.1", "v6.0"]
    assert encoding["color"]["scale"]["domain"] == [
        "NVIDIA H100-SXM-80GB",
        "AMD Instinct MI300X 192GB HBM3",
    ]
    # Two colours of the palette, not two shades of one vendor's hue.
    assert encoding["color"]["scale"]["range"] == ["#0072b2", "#d55e00"]
    assert encoding["href"]["field"] == "url"


def test_write_chart_inlines_small_data_and_splits_large_data(tmp_path: Path) -> None:
    small = pl.DataFrame({"x": [1.0, 2.0]})
    chart = alt.Chart(alt.NamedData(name=charts.DATA_NAME)).mark_point().encode(x="x:Q")
    files = charts.write_chart(chart, small, tmp_path, "small", svg=True)
    spec = json.loads(files.spec.read_text())
    assert spec["data"] == {"values": [{"x": 1.0}, {"x": 2.0}]} and files.data is None
    assert files.svg is not None and files.svg.read_text().startswith("<svg")
    large = pl.DataFrame({"x": [float(i) for i in range(5000)]})
    files = charts.write_chart(chart, large, tmp_path, "large")
    spec = json.loads(files.spec.read_text())
    assert spec["data"] == {"url": "data/large.json", "format": {"type": "json"}}
    assert files.data == tmp_path / "data" / "large.json"
    assert len(json.loads(files.data.read_text())) == 5000


def test_fill_replaces_whole_slots_embedded_slots_and_omits() -> None:
    template = {
        "scale": "{{scale}}",
        "title": "{{end}} result key",
        "layers": ["{{gone}}", {"size": 80}],
        "shape": "{{gone}}",
    }
    spec = charts.fill(
        template,
        {"scale": {"type": "log", "base": 2}, "end": "older", "gone": charts.OMIT},
    )
    assert spec == {
        "scale": {"type": "log", "base": 2},
        "title": "older result key",
        "layers": [{"size": 80}],
    }
    # The template is untouched: the next chart fills it again.
    assert template["scale"] == "{{scale}}" and template["layers"][0] == "{{gone}}"


def test_fill_never_reads_slots_inside_upstream_values() -> None:
    spec = charts.fill(
        {"title": "{{title}}", "tooltip": "{{end}} result key"},
        {"title": "{{end}}", "end": "system {{title}}"},
    )
    assert spec == {"title": "{{end}}", "tooltip": "system {{title}} result key"}


def test_fill_names_a_slot_without_value() -> None:
    with pytest.raises(KeyError, match="chart template slot 'height' has no value"):
        charts.fill({"height": "{{height}}"}, {})


class _NoAltair:
    """Stands in for the altair module: any use of it fails the test."""

    def __getattr__(self, name: str) -> None:
        raise AssertionError(f"alt.{name} used while filling a chart template")


def _every_chart_kind() -> list[tuple[dict, pl.DataFrame]]:
    gains = _gains()
    lines = with_accelerators(frame(AMD_V51, AMD_V60)).with_columns(
        value=pl.col("result_per_accelerator"),
        step_ratio=pl.lit(None, pl.Float64),
        line_label=pl.lit("llama2-70b-99 · Offline · closed"),
    )
    best = with_accelerators(frame(AMD_V51, AMD_V60, H100_V51)).with_columns(
        metric=pl.col("result_per_accelerator")
    )
    scaling = _scaling_pairs()
    return [
        _ratio_chart(gains),
        charts.ratio_strip_chart(
            gains,
            title="t",
            ends=("older", "newer"),
            compare=pl.col("accelerator_name_new"),
            compare_title="accelerator",
        ),
        charts.scaling_chart(scaling.head(1), title="t"),
        charts.efficiency_chart(scaling, title="t"),
        _best_chart(
            best, title="t", metric="Tokens/s per accelerator", releases=["v5.1"]
        ),
        _line_spec(lines, title="t", unit="Tokens/s", releases=["v5.1", "v6.0"]),
        history_chart(
            lines.with_columns(
                chart_label=pl.lit("AMD MI300X · llama2-70b-99 Offline"),
                accelerator_vendor=pl.lit("AMD"),
            ),
            title="t",
            unit="Tokens/s",
            releases=["v5.1", "v6.0"],
        ),
        charts.interactivity_chart(
            pl.DataFrame(
                {
                    "system": ["AMD · box"] * 2,
                    "scenario": ["Offline", "Interactive"],
                    "target_tokens_per_user": [0.0, 25.0],
                    "tpot_ms": [None, 40.0],
                    "per_accelerator": [3000.0, 1500.0],
                    "value": [24000.0, 12000.0],
                    "total_accelerators": [8, 8],
                    "result_key": ["a", "b"],
                    "result_url": ["https://example.org/a", None],
                }
            ),
            title="t",
        ),
        charts.cost_chart(
            [
                {"scale": "x1", "rows": 100.0, "seconds": 1.0},
                {"scale": "x10", "rows": 1000.0, "seconds": 4.0},
            ],
            title="t",
            target_s=10.0,
        ),
    ]


def test_chart_specs_are_filled_from_templates_without_altair(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Altair builds each kind's template once; later charts only fill slots, so no
    # Altair object (and none of its deep copies or schema checks) is made per chart.
    first = _every_chart_kind()
    for module in (charts.lines, charts.pairs, charts.spec, charts.style):
        monkeypatch.setattr(module, "alt", _NoAltair())
    again = _every_chart_kind()
    assert [spec for spec, _ in again] == [spec for spec, _ in first]
    for spec, _ in again:
        _valid(spec)


def test_the_phone_picture_fits_names_as_charts_js_does() -> None:
    spec = {
        "width": "container",
        "encoding": {"y": {"field": "short", "axis": {"labelLimit": 0}}},
        "layer": [{"encoding": {"color": {"legend": {"labelLimit": 10000}}}}],
        "data": {"values": [{"y": {"axis": {"labelLimit": 0}}}]},
    }
    narrow = charts.spec.fit_to_width(spec, 358)
    # Names on the y axis get 45% of 358 px, legend labels what is left beside them.
    assert narrow["width"] == 358
    assert narrow["autosize"] == {"type": "fit-x", "contains": "padding"}
    assert narrow["encoding"]["y"]["axis"]["labelLimit"] == 161
    assert narrow["layer"][0]["encoding"]["color"]["legend"]["labelLimit"] == 157
    # Data is never walked, and the spec given is left as it was.
    assert narrow["data"]["values"][0]["y"]["axis"]["labelLimit"] == 0
    assert spec["encoding"]["y"]["axis"]["labelLimit"] == 0
