"""Stills for lecture repos: `frames` is deterministic and equals a saved trace's, the
golden numbers and frames of this project are unchanged, a check fails on a few changed
pixels, the pytest helper passes, and the pixel comparison and contact sheets behave."""
import shutil

import numpy as np
import pytest
from PIL import Image

from attention_explainer.attention_core import compute_trace
from attention_explainer.attention_core.trace import ARRAY_FIELDS, AttentionTrace
from attention_explainer.scenes.film.registry import FILM_BEATS
from attention_explainer.scenes.pipeline.regression import check_against, compare, contact_sheet, diff_image, similarity
from tests.conftest import DEFAULT, run_process
from tests.make_golden import FRAME_ARGS, GOLDEN, SENTENCE, TRACE

SMALL = ["--resolution", "320x180", "--fps", "10"]


def frames(*args):
    return run_process("frames", *args)


@pytest.mark.slow
def test_same_arguments_give_byte_identical_pngs(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        proc = frames(DEFAULT, "--beat", "sparks", "--at", "0.5,2,end", *SMALL, "--out", out)
        assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in a.glob("*.png"))
    assert names == ["sparks-0.50s.png", "sparks-2.00s.png", "sparks-end.png"]
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert Image.open(a / names[0]).size == (320, 180)


@pytest.mark.slow
def test_saved_trace_draws_the_same_stills(tmp_path, run_cli):
    npz = tmp_path / "t.npz"
    code, _, err = run_cli("inspect", DEFAULT, "--focus", "fish", "--npz", npz)
    assert code == 0, err
    model, saved = tmp_path / "model", tmp_path / "saved"
    assert frames(DEFAULT, "--focus", "fish", "--beat", "pull", "--at", "key,end", *SMALL,
                  "--out", model).returncode == 0
    assert frames("--trace", npz, "--beat", "pull", "--at", "key,end", *SMALL,
                  "--out", saved).returncode == 0
    for name in ("pull-key.png", "pull-end.png"):
        assert (model / name).read_bytes() == (saved / name).read_bytes()


@pytest.mark.slow
def test_contact_sheet_of_every_beat(tmp_path):
    sheet = tmp_path / "sheet.png"
    proc = frames(DEFAULT, "--beat", "all", "--at", "key", *SMALL, "--out", tmp_path / "f",
                  "--contact-sheet", sheet)
    assert proc.returncode == 0, proc.stderr
    image = Image.open(sheet)
    assert image.width > 3 * 320 * 0.9 and image.height > 3 * 180 * 0.9   # 3 across, rows down
    assert len(list((tmp_path / "f").glob("*-key.png"))) == len(FILM_BEATS)


def test_bad_frames_arguments(run_cli, tmp_path):
    for args, needle in ((["--beat", "dance"], "not a beat"), (["--at", "soon"], "not a time"),
                         (["--resolution", "321x180"], "odd"),
                         (["--check", tmp_path / "missing"], "not a folder")):
        code, out, err = run_cli("frames", DEFAULT, *args, "--out", tmp_path / "o")
        assert code == 2 and len(err.strip().splitlines()) == 1, (args, err)
        assert needle in err


@pytest.mark.slow
def test_stills_are_bit_identical_across_runs(default_trace):
    from attention_explainer.scenes.pipeline.render import render_stills
    times = [0.0, 2.5, "key", "end"]
    a = render_stills(default_trace, beat="pull", times=times, width=160, height=90, fps=5)
    b = render_stills(default_trace, beat="pull", times=times, width=160, height=90, fps=5)
    assert list(a) == ["0.00s", "2.50s", "key", "end"]
    for label in a:
        assert np.array_equal(np.asarray(a[label]), np.asarray(b[label])), label
    assert np.asarray(a["key"]).max() > 0
    with pytest.raises(ValueError, match="long"):
        render_stills(default_trace, beat="pull", times=[999.0], width=160, height=90, fps=5)


def test_golden_numbers_unchanged():
    """A difference here is a MODEL change (torch, weights, tokenizer or our forward)."""
    golden = AttentionTrace.load(TRACE)
    fresh = compute_trace(SENTENCE)
    assert fresh.tokens == golden.tokens, "model change: tokens differ"
    assert fresh.heads == golden.heads and fresh.layer == golden.layer, \
        "model change: a different layer/head is chosen"
    for name in ARRAY_FIELDS:
        a, b = getattr(fresh, name), getattr(golden, name)
        diff = float(np.abs(a.astype(float) - b.astype(float)).max())
        assert diff <= 1e-5, f"model change: {name} differs from the golden trace by {diff:.2e}"


@pytest.fixture(scope="module")
def fresh_key_frames(tmp_path_factory):
    out = tmp_path_factory.mktemp("fresh")
    proc = frames("--trace", TRACE, *FRAME_ARGS, "--out", out, "--check", GOLDEN)
    return out, proc


def test_golden_frames_unchanged(fresh_key_frames):
    """Drawn from the golden trace, so a difference here is a DRAWING change."""
    out, proc = fresh_key_frames
    assert sorted(p.name for p in GOLDEN.glob("*.png")) == sorted(f"{b}-key.png" for b in FILM_BEATS)
    assert proc.returncode == 0, "drawing change:\n" + proc.stderr
    assert not list(out.glob("*.diff.png"))


def test_check_fails_on_a_few_changed_pixels(fresh_key_frames, tmp_path):
    out, _ = fresh_key_frames
    altered = tmp_path / "golden"
    shutil.copytree(GOLDEN, altered)
    pixels = np.asarray(Image.open(altered / "pull-key.png").convert("RGB")).copy()
    pixels[10:12, 10:13] = [255, 0, 255]          # six pixels
    Image.fromarray(pixels).save(altered / "pull-key.png")
    fresh = tmp_path / "fresh"
    proc = frames("--trace", TRACE, "--beat", "pull", "--at", "key", "--resolution", "320x180",
                  "--fps", "10", "--out", fresh, "--check", altered)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "pull-key.png" in lines[0] and "similarity" in lines[0]
    assert (fresh / "pull-key.diff.png").is_file()


def test_pytest_helper_matches_golden():
    from attention_explainer.testing import assert_frame_matches

    assert_frame_matches(GOLDEN / "softmax-key.png", beat="softmax", trace=TRACE, fps=10)


def test_the_helper_reads_the_settings_the_cli_wrote_its_goldens_with(tmp_path, monkeypatch):
    """A lecture repo whose settings say light theme, 10 fps and a focus: goldens written
    by `frames` there pass the pytest helper there, and a failure writes nothing inside
    golden/ (its pictures go beside it)."""
    from attention_explainer.attention_core.errors import InputError
    from attention_explainer.testing import assert_frame_matches

    repo = tmp_path / "lecture"
    repo.mkdir()
    (repo / "attention-explainer.toml").write_text('theme = "light"\nfps = 10\n'
                                                   'focus = "fish"\n')
    for name in ("ATTENTION_EXPLAINER_THEME", "ATTENTION_EXPLAINER_FPS",
                 "ATTENTION_EXPLAINER_FOCUS"):
        monkeypatch.delenv(name, raising=False)
    proc = run_process("frames", DEFAULT, "--beat", "softmax", "--at", "key",
                       "--resolution", "320x180", "--out", "golden", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    monkeypatch.chdir(repo)
    golden = repo / "golden" / "softmax-key.png"
    assert_frame_matches(golden, beat="softmax", sentence=DEFAULT)
    # from the folder above (pytest run from a parent, the lecture one of many), the
    # settings are still the lecture's: found from the golden's folder upward
    monkeypatch.chdir(tmp_path)
    assert_frame_matches(golden, beat="softmax", sentence=DEFAULT)
    # a settings file named by the call wins, and a failure names the one it used
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('theme = "3b1b"\nfps = 10\nfocus = "fish"\n')
    with pytest.raises(AssertionError, match=f"settings: {wrong}"):
        assert_frame_matches(golden, beat="softmax", sentence=DEFAULT, settings=wrong,
                             failures=tmp_path / "failed")
    monkeypatch.chdir(repo)
    # what the call gives wins over the settings, as on the command line
    with pytest.raises(AssertionError):
        assert_frame_matches(golden, beat="softmax", sentence=DEFAULT, theme="3b1b")
    with pytest.raises(InputError, match="not one of|invalid choice"):
        assert_frame_matches(golden, beat="softmax", sentence=DEFAULT, theme="sepia")
    changed = np.asarray(Image.open(golden).convert("RGB")).copy()
    changed[20:40, 20:60] = 255 - changed[20:40, 20:60]
    Image.fromarray(changed).save(golden)
    with pytest.raises(AssertionError, match="golden-changed"):
        assert_frame_matches(golden, beat="softmax", sentence=DEFAULT)
    assert sorted(p.name for p in (repo / "golden").iterdir()) == ["softmax-key.png"]
    assert sorted(p.name for p in (repo / "golden-changed").iterdir()) == [
        "softmax-key.diff.png", "softmax-key.fresh.png"]


def _frame(seed=0, size=(90, 160)):
    rng = np.random.default_rng(seed)
    img = np.zeros(size + (3,), np.uint8)
    img[20:60, 30:120] = rng.integers(0, 255, (40, 90, 3))
    return Image.fromarray(img)


def test_identical_frames_pass():
    r = compare("a.png", _frame(), _frame())
    assert r.passed and r.identical and r.differing_share == 0 and r.similarity == 1.0


def test_a_few_changed_pixels_fail_and_are_located(tmp_path):
    golden = _frame()
    changed = np.asarray(golden).copy()
    changed[5:8, 5:8] = 255
    fresh = Image.fromarray(changed)
    r = compare("a.png", fresh, golden)
    assert not r.passed and r.differing_share == 9 / (90 * 160) and r.max_difference == 255
    assert r.similarity < 1.0
    diff = np.asarray(diff_image(fresh, golden))
    assert (diff[5:8, 5:8, 0] > 200).all() and diff[50, 150, 0] < 50
    # a tolerance above the change accepts it; a share above the change accepts it too
    assert compare("a.png", fresh, golden, tolerance=255).passed
    assert compare("a.png", fresh, golden, max_share=0.01).passed


def test_check_against_writes_diff_only_for_failures(tmp_path):
    fresh_dir, golden_dir = tmp_path / "fresh", tmp_path / "golden"
    fresh_dir.mkdir()
    golden_dir.mkdir()
    _frame(0).save(fresh_dir / "same.png")
    _frame(0).save(golden_dir / "same.png")
    _frame(1).save(fresh_dir / "moved.png")
    _frame(0).save(golden_dir / "moved.png")
    _frame(0).save(fresh_dir / "new.png")
    results = {r.name: r for r in check_against(fresh_dir, golden_dir,
                                                ["same.png", "moved.png", "new.png"])}
    assert results["same.png"].passed
    assert not results["moved.png"].passed and (fresh_dir / "moved.diff.png").is_file()
    assert not results["new.png"].passed and "no golden" in results["new.png"].line()
    assert not (fresh_dir / "same.diff.png").exists()


def test_similarity_orders_changes():
    a = np.asarray(_frame(0)).astype(float)
    small = a.copy()
    small[0:2, 0:2] += 40
    assert similarity(a, a) == 1.0
    assert 1.0 > similarity(a, small) > similarity(a, np.asarray(_frame(1)).astype(float))


def test_contact_sheet_grid():
    sheet = contact_sheet([(f"beat {n}", _frame(n)) for n in range(5)], columns=3, thumb_width=160)
    assert sheet.width == 12 + 3 * (160 + 12)
    assert sheet.height == 12 + 2 * (90 + 34 + 12)
