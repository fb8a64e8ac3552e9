import polars as pl

from pipeline.labels import NO_NAME, display_name


def test_missing_and_blank_names_read_as_the_placeholder() -> None:
    assert [display_name(v) for v in (None, "  ", "H100", 8)] == [
        NO_NAME, NO_NAME, "H100", "8",
    ]  # fmt: skip
    frame = pl.DataFrame({"name": [None, " ", "H100"], "count": [None, 8, 1]})
    shown = frame.select(display_name(pl.col("name")), display_name(pl.col("count")))
    assert shown.rows() == [(NO_NAME, NO_NAME), (NO_NAME, "8"), ("H100", "1")]
