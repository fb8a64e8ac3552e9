"""``benchmark_tasks.toml``: what each benchmark asks a system to do, in plain words.

Pages say it in plain words under a benchmark's title, so a reader (and the site
search) finds "text-to-video generation" next to ``wan-2.2-t2v-a14b``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from pipeline.registry.loader import RegistryError, Table, load_registry

REGISTRY_FILE = "benchmark_tasks.toml"


class BenchmarkTasksError(RegistryError):
    """The tasks file is malformed; the message names the entry and the field."""


@dataclass(frozen=True)
class Task:
    """One benchmark's task, with where the words come from."""

    task: str
    reference: str
    dataset: str
    source_url: str


def parse_tasks(document: Mapping, source: str = REGISTRY_FILE) -> dict[str, Task]:
    """Canonical benchmark name -> its task; each name listed once."""
    root = Table.document(document, source, BenchmarkTasksError)
    root.only(("source", "task"))
    origin = root.table("source")
    origin.only(("repository", "path", "commit"))
    url = (
        f"https://github.com/{origin.string('repository')}/blob/"
        f"{origin.string('commit')}/{origin.string('path')}"
    )
    tasks: dict[str, Task] = {}
    for entry in root.tables("task", non_empty=True):
        entry.only(("benchmarks", "task", "reference", "dataset"))
        task = Task(
            entry.string("task"),
            entry.string("reference"),
            entry.string("dataset"),
            url,
        )
        for name in entry.strings("benchmarks", non_empty=True):
            if name in tasks:
                raise entry.fail("benchmarks", f"{name!r} is listed twice")
            tasks[name] = task
    return tasks


@cache
def load_tasks() -> dict[str, Task]:
    """The committed tasks (cached)."""
    return load_registry(REGISTRY_FILE, parse_tasks, BenchmarkTasksError)
