import polars as pl
import pytest

from pipeline.render.site_data import (
    SiteData,
    SiteDataError,
    release_order,
    with_accelerators,
)
from tests.unit.render.conftest import AMD_V51, CPU_V51, H100_V51, frame


def test_fallback_accelerators_without_the_analysis_columns() -> None:
    rows = with_accelerators(frame(AMD_V51, H100_V51, CPU_V51))
    assert rows.select(
        "accelerator_vendor", "accelerator_label", "is_cpu_only"
    ).rows() == [
        ("AMD", "AMD Instinct MI300X 192GB HBM3", False),
        ("NVIDIA", "NVIDIA H100-SXM-80GB", False),
        ("CPU only", "CPU only: Intel(R) Xeon(R) 6980P", True),
    ]


def test_analysis_columns_win_and_unmapped_fall_back_to_the_raw_name() -> None:
    rows = frame(AMD_V51, H100_V51).with_columns(
        accelerator_id=pl.Series(["amd-mi300x", None]),
        accelerator_vendor=pl.Series(["AMD", None]),
        accelerator_model=pl.Series(["Instinct MI300X", None]),
        is_cpu_only=pl.Series([False, False]),
    )
    shown = with_accelerators(rows).select(
        "accelerator_id", "accelerator_vendor", "accelerator_label"
    )
    assert shown.rows() == [
        ("amd-mi300x", "AMD", "AMD Instinct MI300X"),
        ("NVIDIA H100-SXM-80GB", "NVIDIA", "NVIDIA H100-SXM-80GB"),
    ]


def test_missing_columns_are_named(site_data: SiteData) -> None:
    with pytest.raises(
        SiteDataError, match="SiteData.gains is missing column\\(s\\): ratio"
    ):
        SiteData(**{**site_data.__dict__, "gains": site_data.gains.drop("ratio")})
    with pytest.raises(
        SiteDataError, match="snapshots is missing column\\(s\\): checks"
    ):
        SiteData(
            **{**site_data.__dict__, "snapshots": site_data.snapshots.drop("checks")}
        )


def test_releases_sort_by_version_number() -> None:
    assert release_order(["v10.0", "v6.1", "v4.1", "v6.0"]) == [
        "v4.1",
        "v6.0",
        "v6.1",
        "v10.0",
    ]


def test_a_system_label_never_states_a_size_the_result_lacks() -> None:
    from pipeline.render.site_data import system_label

    rows = pl.DataFrame(
        {
            "system_name": [
                "NVIDIA GB300 NVL72 (72x GB300-288GB_aarch64, TensorRT)",
                "NVIDIA GB300 NVL72 (72x GB300-288GB_aarch64, TensorRT)",
                "Dell R760 (2x Intel Xeon)",
            ],
            "total_accelerators": [288, 72, 0],
        }
    )
    assert rows.select(system_label()).to_series().to_list() == [
        "NVIDIA GB300 NVL72 (72x GB300-288GB_aarch64, TensorRT) "
        "[named for 72; this result: 288 accelerators]",
        "NVIDIA GB300 NVL72 (72x GB300-288GB_aarch64, TensorRT)",
        "Dell R760 (2x Intel Xeon)",
    ]
