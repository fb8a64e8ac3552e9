"""One loader for every registry file: one message for a broken file and a bad field."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pipeline.analysis import plausibility
from pipeline.registry import (
    REGISTRY_DIR,
    RegistryError,
    Table,
    accelerators,
    accuracy,
    benchmark_tasks,
    claims,
    descriptions,
    endpoints,
    latency_limits,
    load_registry,
    precisions,
    releases,
    rounds,
    submitter_summaries,
    system_fields,
    upstream_commits,
)
from pipeline.registry.benchmarks import (
    CompatibilityError,
    parse_compatibility,
    parse_unit_corrections,
)
from pipeline.registry.vocabulary import parse_vocabulary

PIPELINE = Path(__file__).parents[2] / "pipeline"


def _benchmarks(path: Path) -> object:
    # benchmarks.toml holds unit corrections and the compatibility rules: read both.
    return load_registry(path, parse_unit_corrections), load_registry(
        path, parse_compatibility, CompatibilityError
    )


#: How each registry file is read from a path (the committed one, or a copy).
LOADERS: dict[str, tuple[Callable[[Path], Any], type[RegistryError]]] = {
    "accuracy.toml": (accuracy.load_accuracy_rules, accuracy.AccuracyRulesError),
    "accelerators.toml": (accelerators.load_accelerators,
                          accelerators.AcceleratorRegistryError),
    "benchmarks.toml": (_benchmarks, RegistryError),
    "benchmark_tasks.toml": (
        lambda path: load_registry(path, benchmark_tasks.parse_tasks,
                                   benchmark_tasks.BenchmarkTasksError),
        benchmark_tasks.BenchmarkTasksError,
    ),
    "claims.toml": (claims.load_claims, claims.ClaimsRegistryError),
    "descriptions.toml": (descriptions.load_descriptions,
                          descriptions.DescriptionsError),
    "endpoints.toml": (endpoints.load_endpoint_rules, endpoints.EndpointsRulesError),
    "latency_limits.toml": (latency_limits.load_latency_limits,
                            latency_limits.LatencyLimitsError),
    "plausibility.toml": (plausibility.load_plausibility_rules,
                          plausibility.PlausibilityRulesError),
    "precisions.toml": (precisions.load_precisions, precisions.PrecisionsError),
    "releases.toml": (releases.load_manifest, releases.ManifestError),
    "rounds.toml": (rounds.load_round_rules, rounds.RoundRulesError),
    "upstream_commits.toml": (upstream_commits.load_commits,
                              upstream_commits.ProvenanceError),
    "submitter_summaries.toml": (
        lambda path: load_registry(path, submitter_summaries.parse_explanations),
        RegistryError,
    ),
    "vocabulary.toml": (lambda path: load_registry(path, parse_vocabulary), RegistryError),
    "system_fields.toml": (system_fields.load_system_fields,
                           system_fields.SystemFieldsError),
}  # fmt: skip


def test_every_registry_file_has_a_loader() -> None:
    assert sorted(p.name for p in REGISTRY_DIR.glob("*.toml")) == sorted(LOADERS)


def copy_with(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of a committed registry file with one text changed (once)."""
    text = (REGISTRY_DIR / name).read_text()
    assert old in text, old
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_a_syntax_error_names_the_file_and_line(tmp_path: Path, name: str) -> None:
    text = (REGISTRY_DIR / name).read_text()
    header = re.search(r"^\[\[\w+\]\]$", text, re.MULTILINE)
    assert header is not None
    line = text.count("\n", 0, header.start()) + 1
    broken = header.group()[:-1]  # "[[claim]": the array header is not closed
    path = tmp_path / name
    path.write_text(text[: header.start()] + broken + text[header.end() :])
    load, error = LOADERS[name]
    with pytest.raises(error) as caught:
        load(path)
    assert str(caught.value) == (
        f"{name}: line {line}, column {len(broken)}: not valid TOML: "
        "Expected ']]' at the end of an array declaration"
    )


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_a_missing_file_is_one_registry_error(tmp_path: Path, name: str) -> None:
    load, error = LOADERS[name]
    with pytest.raises(error) as caught:
        load(tmp_path / name)
    assert str(caught.value) == f"{name}: no such registry file: {tmp_path / name}"
    assert isinstance(caught.value, RegistryError)


def test_an_unreadable_file_is_one_registry_error(tmp_path: Path) -> None:
    path = tmp_path / "rounds.toml"
    path.write_bytes(b'evidence = "caf\xe9"\n')  # Latin-1, not UTF-8
    with pytest.raises(rounds.RoundRulesError) as caught:
        rounds.load_round_rules(path)
    assert (
        str(caught.value) == "rounds.toml: not UTF-8 text (invalid continuation byte)"
    )
    folder = tmp_path / "claims.toml"
    folder.mkdir()
    with pytest.raises(claims.ClaimsRegistryError) as caught_folder:
        claims.load_claims(folder)
    assert str(caught_folder.value) == (
        f"claims.toml: is a folder, not a registry file: {folder}"
    )


#: One wrong-typed field per registry, in a copy of the committed file.
WRONG_FIELDS = [
    (
        "accelerators.toml",
        ("memory_gb = 32\n", 'memory_gb = "32 GB"\n'),
        "accelerators.toml: [accelerator 1 (nvidia-v100-sxm)] memory_gb: expected a "
        "positive number, got '32 GB'",
    ),
    (
        "benchmarks.toml",
        ('releases = ["v5.1", "v6.0", "v6.1"]', 'releases = "v5.1"'),
        "benchmarks.toml: [unit_correction 1] releases: expected a list of trimmed, "
        "non-empty strings (at least one), got 'v5.1'",
    ),
    (
        "benchmarks.toml",
        ('division = "open"\nmatch = ["model_upstream"]',
         'division = "open"\nmatch = "model_upstream"'),
        "benchmarks.toml: [compatibility 1] match: expected a list, each item one of "
        "'model_upstream', 'weight_data_types', 'submitter', 'model_lineage' (at least one), got 'model_upstream'",
    ),
    (
        "claims.toml",
        ("date = 2025-09-09", 'date = "9 Sept 2025"'),
        "claims.toml: [claim 1 (nvidia-gb300-vs-gb200-dsr1-45pct-v51)] date: "
        "expected a date (YYYY-MM-DD), got '9 Sept 2025'",
    ),
    (
        "endpoints.toml",
        ('field = "tps"', 'field = "tokens"'),
        "endpoints.toml: [result 1] field: expected one of 'qps', 'tps', got 'tokens'",
    ),
    (
        "latency_limits.toml",
        ("ttft_ms = 2000", 'ttft_ms = "2 s"'),
        "latency_limits.toml: [limit 1 (v4.1 llama2-70b-99 Server)] ttft_ms: "
        "expected a positive number of milliseconds, got '2 s'",
    ),
    (
        "latency_limits.toml",
        ('id = "checker-v4.1"\nrepository = "mlcommons/inference"',
         'id = "checker-v4.1"\nrepository = ["mlcommons/inference"]'),
        "latency_limits.toml: [source 1 (checker-v4.1)] repository: expected a "
        "repository owner/name, got ['mlcommons/inference']",
    ),
    (
        "plausibility.toml",
        ('kinds = ["scaling"]', 'kinds = "scaling"'),
        "plausibility.toml: [flag 1 (superlinear_scaling)] kinds: expected a list, "
        "each item one of 'software_gain', 'generation_ratio', 'scaling' (at least "
        "one), got 'scaling'",
    ),
    (
        "releases.toml",
        ('repository = "mlcommons/inference_results_v0.5"', "repository = 5"),
        "releases.toml: [release 1 (v0.5)] repository: expected a non-empty string, "
        "got 5",
    ),
    (
        "rounds.toml",
        ('divisions = ["closed", "open"]', 'divisions = "closed"'),
        "rounds.toml: [rule 1 (from v0.5)] divisions: expected a list of trimmed, "
        "non-empty strings (at least one), got 'closed'",
    ),
    (
        "accuracy.toml",
        ('reading = "any"', 'reading = "first"'),
        "accuracy.toml: [round 1 (v0.5)] reading: expected one of 'any', "
        "'per_model', got 'first'",
    ),
    (
        "upstream_commits.toml",
        ('commit = "f5acb8be"', 'commit = "HEAD"'),
        "upstream_commits.toml: [round 1 (v0.5)] commit: expected 7 to 40 lower-case "
        "hex digits, got 'HEAD'",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("name", "change", "message"), WRONG_FIELDS)
def test_a_wrong_typed_field_reads_the_same_in_every_registry(
    tmp_path: Path, name: str, change: tuple[str, str], message: str
) -> None:
    path = copy_with(tmp_path, name, *change)
    load, error = LOADERS[name]
    with pytest.raises(error) as caught:
        load(path)
    assert str(caught.value) == message


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_the_committed_file_loads(name: str) -> None:
    load, _ = LOADERS[name]
    assert load(REGISTRY_DIR / name)


def test_committed_registries_are_parsed_once_per_process() -> None:
    assert accelerators.load_accelerators() is accelerators.load_accelerators()
    assert plausibility.load_plausibility_rules() is (
        plausibility.load_plausibility_rules()
    )
    assert rounds.load_round_rules() is rounds.load_round_rules()
    assert latency_limits.load_latency_limits() is (
        latency_limits.load_latency_limits()
    )


#: Registries still read outside ``pipeline/registry``, and why. plausibility.toml's
#: parser checks the pair kinds of ``pipeline.analysis.pairing``, and importing that
#: package runs ``pipeline.analysis.plausibility``, which would import it back.
READ_ELSEWHERE = {"plausibility.toml": "pipeline/analysis/plausibility.py"}


def test_each_registry_file_has_its_loader_module_next_to_it() -> None:
    files = {path.name for path in REGISTRY_DIR.glob("*.toml")}
    modules = {
        f"{path.stem}.toml"
        for path in REGISTRY_DIR.glob("*.py")
        if path.stem not in ("__init__", "loader")
    }
    assert files - modules == set(READ_ELSEWHERE)
    assert modules - files == set()
    assert set(LOADERS) == files


def test_no_module_outside_the_registry_package_reads_a_registry() -> None:
    readers = sorted(
        str(path.relative_to(PIPELINE.parent))
        for path in PIPELINE.rglob("*.py")
        if REGISTRY_DIR not in path.parents
        and re.search(r"\b(load_registry|read_document)\(", path.read_text())
    )
    assert readers == sorted(READ_ELSEWHERE.values())


def test_only_the_loader_imports_tomllib() -> None:
    loader = PIPELINE / "registry" / "loader.py"
    users = sorted(
        str(path.relative_to(PIPELINE))
        for path in PIPELINE.rglob("*.py")
        if path != loader and re.search(r"\btomllib\b", path.read_text())
    )
    assert users == []


@pytest.mark.parametrize(
    ("read", "message"),
    [
        (
            lambda t: t.string("name"),
            "x.toml: [entry 1] name: expected a non-empty string, got nothing",
        ),
        (
            lambda t: t.integer("count", minimum=1),
            "x.toml: [entry 1] count: expected a whole number of at least 1, got 1.5",
        ),
        (
            lambda t: t.boolean("flag"),
            "x.toml: [entry 1] flag: expected true or false, got 'yes'",
        ),
        (
            lambda t: t.choice("kind", ("a", "b")),
            "x.toml: [entry 1] kind: expected one of 'a', 'b', got 'c'",
        ),
        (
            lambda t: t.strings("tags", unique=True),
            "x.toml: [entry 1] tags: lists 't' twice",
        ),
        (
            lambda t: t.table("sub"),
            "x.toml: [entry 1] sub: expected a table, got [1]",
        ),
        (
            lambda t: t.only(("name",)),
            "x.toml: [entry 1] count: unknown field (known: name)",
        ),
    ],
)
def test_field_readers_share_one_message_format(
    read: Callable[[Table], object], message: str
) -> None:
    document = {
        "entry": [
            {"count": 1.5, "flag": "yes", "kind": "c", "tags": ["t", "t"], "sub": [1]}
        ]
    }
    (entry,) = Table.document(document, "x.toml").tables("entry")
    with pytest.raises(RegistryError) as caught:
        read(entry)
    assert str(caught.value) == message
