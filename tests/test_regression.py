"""Pixel comparison, diff images and contact sheets (no rendering here)."""
import numpy as np
from PIL import Image

from scenes.regression import check_against, compare, contact_sheet, diff_image, similarity


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
