"""Raw trees' accuracy.txt, read as each round's checker reads it, on small trees."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.extract.accuracy_txt import (
    MAX_BYTES,
    AccuracyTextError,
    parse_accuracy_txt,
)
from pipeline.extract.raw_tree import files_read, scan_raw_tree
from pipeline.registry.accuracy import accuracy_rule_for
from pipeline.source import NotPublished
from tests.unit.test_raw_tree import RUN, log, system

V10 = accuracy_rule_for("v1.0")
V05 = accuracy_rule_for("v0.5")
V21 = accuracy_rule_for("v2.1")
#: What bert's accuracy.txt holds (upstream's accuracy-squad.py and the hash line).
BERT = b'{"exact_match": 83.6802270577105, "f1": 90.87487229720105}\nhash=1a2b3c\n'


def test_the_committed_patterns_name_their_checker_commit() -> None:
    assert V10 is not None and V05 is not None and V21 is not None
    assert V10.url == (
        "https://github.com/mlcommons/inference/blob/"
        "8b58587c93af2a5ee67722064f2540a2db15d42f/tools/submission/"
        "submission-checker.py"
    )
    # Rounds with a summary publishing Accuracy read no accuracy.txt.
    assert accuracy_rule_for("v5.1") is None
    assert accuracy_rule_for("v6.0") is None


def test_a_model_reads_its_own_metric_as_the_checker_maps_it() -> None:
    assert V10.metric("bert-99") == "F1"
    assert V10.metric("resnet50") == "acc"  # model_mapping
    assert V10.metric("ssd-resnet34") == "mAP"
    assert V21.metric("ssd-resnet34") == "mAP"  # retinanet in v2.1
    assert V21.model("ssd-resnet34") == "retinanet"
    # get_mlperf_model's guesses: v2.1 maps an open bert variant, v1.0 does not.
    assert V21.metric("bert-99_obert-large") == "F1"
    assert V10.metric("bert-99_obert-large") is None
    assert V10.metric("efficientnet-lite0-quantized") == "acc"
    assert V10.metric("gnmt") is None


def test_bert_gives_its_f1_as_the_checker_writes_it() -> None:
    where = "v1.0 closed/A/results/s/bert-99/Offline/accuracy/accuracy.txt"
    value = parse_accuracy_txt(BERT, rule=V10, model="bert-99", where=where)
    assert value == "F1: 90.87487229720105"


def test_v21_reads_single_quoted_squad_output_v10_does_not() -> None:
    quoted = b"{'exact_match': 83.68, 'f1': 90.875}\nhash=ab\n"
    assert parse_accuracy_txt(quoted, rule=V21, model="bert-99", where="w") == (
        "F1: 90.875"
    )
    with pytest.raises(AccuracyTextError) as caught:
        parse_accuracy_txt(quoted, rule=V10, model="bert-99", where="w")
    assert str(caught.value) == "w: no line matches the F1 pattern of 'bert-99'"


def test_a_per_model_reading_stops_once_value_and_hash_are_seen() -> None:
    text = b"accuracy=70.0%\nhash=ab\naccuracy=99.0%\n"
    assert parse_accuracy_txt(text, rule=V10, model="resnet50", where="w") == (
        "acc: 70.0"
    )
    # Before the hash line the later match wins, as the checker's loop does.
    text = b"accuracy=70.0%\naccuracy=76.1%\nhash=ab\n"
    assert parse_accuracy_txt(text, rule=V10, model="resnet50", where="w") == (
        "acc: 76.1"
    )


def test_v05_takes_the_first_line_matching_any_pattern() -> None:
    text = b"header\nmAP=22.3%\naccuracy=1.0\n"
    assert parse_accuracy_txt(text, rule=V05, model="anything", where="w") == (
        "mAP: 22.3"
    )
    assert parse_accuracy_txt(b"BLEU: 23.9\n", rule=V05, model="gnmt", where="w") == (
        "bleu: 23.9"
    )


@pytest.mark.parametrize(
    ("content", "model", "message"),
    [
        (
            b"nothing here\n",
            "bert-99",
            "w: no line matches the F1 pattern of 'bert-99'",
        ),
        (
            BERT,
            "gnmt",
            "w: the v1.0 checker's table names no accuracy metric for model 'gnmt'",
        ),
        (b"accuracy=...\nhash=a\n", "resnet", "w: the acc value '...' is not a number"),
        (b"\xff\xfe accuracy", "resnet", "w: not UTF-8 text (invalid start byte)"),
        (
            b"accuracy=1\n" * (MAX_BYTES // 11 + 1),
            "resnet",
            "w: 1,000,010 bytes, more than the 1,000,000 read",
        ),
    ],
)
def test_an_unreadable_accuracy_txt_says_why(
    content: bytes, model: str, message: str
) -> None:
    with pytest.raises(AccuracyTextError) as caught:
        parse_accuracy_txt(content, rule=V10, model=model, where="w")
    assert str(caught.value) == message


# -- the scan: accuracy_upstream and accuracy_note of a raw-tree round ---------------

FOLDER = "closed/Acme/results/box/{}/Offline"
OFFLINE = log("Offline", "Samples per second: 1000\n").encode()
TREE: dict[str, bytes] = {
    "closed/Acme/systems/box.json": system(),
    **{f"{FOLDER.format(b)}/{RUN}": OFFLINE for b in ("bert-99", "resnet50", "rnnt")},
    **{
        f"{FOLDER.format(b)}/{RUN}": OFFLINE
        for b in ("3d-unet-99", "dlrm-99")  # no accuracy.txt / gone when read
    },
    f"{FOLDER.format('bert-99')}/accuracy/accuracy.txt": BERT,
    f"{FOLDER.format('resnet50')}/accuracy/accuracy.txt": b"accuracy=76.1%\nhash=a\n",
    # Hostile: no line matches rnnt's WER pattern; huge; listed but gone.
    f"{FOLDER.format('rnnt')}/accuracy/accuracy.txt": b"<script>alert(1)</script>",
    f"{FOLDER.format('dlrm-99')}/accuracy/accuracy.txt": b"",
}


def read(path: str) -> bytes:
    if path.startswith(FOLDER.format("dlrm-99") + "/accuracy"):
        raise NotPublished(f"https://example.org/{path}: not published (HTTP 404)")
    return TREE[path]


def test_the_scan_reads_accuracy_txt_or_says_why_not() -> None:
    results, rejected = scan_raw_tree(
        list(TREE), read, release="v1.0", repository="mlcommons/inference_results_v1.0"
    )
    assert rejected.is_empty()  # an accuracy problem never rejects a result
    got = {
        row["benchmark_upstream"]: (row["accuracy_upstream"], row["accuracy_note"])
        for row in results.iter_rows(named=True)
    }
    where = "v1.0 closed/Acme/results/box/{}/Offline/accuracy/accuracy.txt"
    assert got == {
        "bert-99": ("F1: 90.87487229720105", None),
        "resnet50": ("acc: 76.1", None),
        "rnnt": (
            None,
            where.format("rnnt") + ": no line matches the WER pattern of 'rnnt'",
        ),
        # Not in the listing (as in the mirror): no accuracy, nothing to explain.
        "3d-unet-99": (None, None),
        "dlrm-99": (
            None,
            where.format("dlrm-99")
            + ": unreadable (https://example.org/"
            + FOLDER.format("dlrm-99")
            + "/accuracy/accuracy.txt: not published (HTTP 404))",
        ),
    }


def test_accuracy_txt_is_fetched_only_in_rounds_whose_patterns_are_known() -> None:
    paths = list(TREE)
    wanted = files_read(paths, release="v1.0")
    assert f"{FOLDER.format('bert-99')}/accuracy/accuracy.txt" in wanted
    # A round that publishes a summary with Accuracy: the same tree reads no
    # accuracy.txt, so a mirror build's reads do not change.
    later = files_read(paths, release="v5.1")
    assert not [p for p in later if p.endswith("accuracy.txt")]
    assert sorted(set(wanted) - set(later)) == sorted(
        p for p in paths if p.endswith("accuracy.txt")
    )


def test_a_round_without_patterns_leaves_accuracy_null() -> None:
    results, _ = scan_raw_tree(
        list(TREE), read, release="v5.1", repository="mlcommons/inference_results_v5.1"
    )
    assert results["accuracy_upstream"].null_count() == results.height
    assert results["accuracy_note"].null_count() == results.height
    assert results.schema["accuracy_note"] == pl.String
