import json
from pathlib import Path

import altair as alt
import polars as pl

from pipeline.render import charts
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


def _layers(spec: dict) -> list[dict]:
    return spec.get("layer", [spec])


def test_pair_chart_uses_log_scale_when_ratios_span_orders_of_magnitude() -> None:
    chart, data = charts.pair_ratio_chart(
        _gains(), title="t", label=pl.col("submitter_new"), ends=("older", "newer")
    )
    spec = chart.to_dict()  # validates against the Vega-Lite schema
    points = _layers(spec)[1]["encoding"]
    assert points["x"]["scale"] == {"type": "log", "base": 10}
    tooltips = {t["field"] for t in points["tooltip"]}
    assert {
        "result_key_old",
        "result_key_new",
        "release_old",
        "release_new",
    } <= tooltips
    assert spec["width"] == "container"
    assert data["result_key_old"].to_list() == [
        "5.1-0001:llama2-70b-99:Offline",
        "5.1-0100:llama2-70b-99:Offline",
    ]


def test_linear_scale_for_small_spans_and_fixed_vendor_colours() -> None:
    chart, _ = charts.pair_ratio_chart(
        _gains().head(1), title="t", label=pl.col("submitter_new"), ends=("a", "b")
    )
    encoding = _layers(chart.to_dict())[1]["encoding"]
    assert encoding["x"]["scale"].get("type") is None
    assert encoding["color"]["scale"] == {"domain": ["AMD"], "range": ["#e4002b"]}
    scale = charts.vendor_scale(pl.Series(["Untether AI", "AMD", "NVIDIA", "Acme"]))
    assert scale.domain[:3] == ["NVIDIA", "AMD", "Untether AI"]
    assert scale.range[:3] == ["#76b900", "#e4002b", "#8e44ad"]
    assert charts.vendor_colour("Acme") == charts.vendor_colour("Acme")


def test_scaling_chart_is_log_log_with_efficiency_in_the_tooltip() -> None:
    data = pairs(
        pair(
            H100_V51, H100_16_V51, kind="scaling", ratio=60000 / 31000, efficiency=0.97
        )
    )
    chart, _ = charts.scaling_chart(
        data.with_columns(vendor=pl.lit("NVIDIA")), title="t"
    )
    segment = _layers(chart.to_dict())[0]["encoding"]
    assert segment["x2"]["field"] == "total_accelerators_new"
    assert "efficiency" in {t["field"] for t in segment["tooltip"]}


def test_best_per_accelerator_chart_shades_one_vendor() -> None:
    best = with_accelerators(frame(AMD_V51, AMD_V60, H100_V51)).with_columns(
        metric=pl.col("result_per_accelerator")
    )
    chart, _ = charts.best_per_accelerator_chart(
        best,
        title="t",
        metric_title="Tokens/s per accelerator",
        releases=["v5.1", "v6.0"],
    )
    encoding = chart.to_dict()["encoding"]
    assert encoding["x"]["sort"] == ["v5.1", "v6.0"]
    assert encoding["color"]["scale"]["domain"] == [
        "NVIDIA H100-SXM-80GB",
        "AMD Instinct MI300X 192GB HBM3",
    ]
    assert encoding["href"]["field"] == "url"
    assert charts.shades("#76b900", 1) == ["#76b900"]
    assert len(set(charts.shades("#76b900", 3))) == 3


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
