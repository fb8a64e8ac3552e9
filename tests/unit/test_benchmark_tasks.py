"""The reviewed benchmark tasks: what a page says a benchmark asks a system to do."""

from __future__ import annotations

import pytest

from pipeline.registry.benchmark_tasks import (
    BenchmarkTasksError,
    load_tasks,
    parse_tasks,
)
from pipeline.render.benchmark_pages import _task_line

SOURCE = {"repository": "mlcommons/inference", "path": "README.md", "commit": "a" * 40}


def test_committed_tasks_are_the_readmes_words() -> None:
    tasks = load_tasks()
    assert tasks["wan-2.2-t2v-a14b"].task == "text-to-video generation"
    assert tasks["gnmt"].task == "machine translation"
    assert tasks["resnet"].dataset == "imagenet2012"
    assert tasks["deepseek-r1"].source_url == (
        "https://github.com/mlcommons/inference/blob/"
        "b66003e10e2db4b8c36a448b0545ec90fcc6e9e9/README.md"
    )


def test_a_benchmark_page_names_its_task_in_searchable_words() -> None:
    line = _task_line("wan-2.2-t2v-a14b")
    assert line.startswith("**Task:** text-to-video generation (reference application ")
    assert "<code>text&#95;to&#95;video</code>" in line
    assert _task_line("no-such-benchmark") == ""


def test_a_benchmark_listed_twice_is_refused() -> None:
    task = {"benchmarks": ["resnet"], "task": "t", "reference": "r", "dataset": "d"}
    with pytest.raises(BenchmarkTasksError, match="'resnet' is listed twice"):
        parse_tasks({"source": SOURCE, "task": [task, task]})
