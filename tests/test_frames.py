"""`frames`: deterministic stills, --trace equals the model, contact sheet, bad input."""
import subprocess
import sys

from PIL import Image

from tests.conftest import DEFAULT, ROOT

SMALL = ["--resolution", "320x180", "--fps", "10"]


def frames(*args):
    return subprocess.run([sys.executable, "-c", "import cli; cli.main()", "frames", *map(str, args)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


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


def test_contact_sheet_of_every_beat(tmp_path):
    sheet = tmp_path / "sheet.png"
    proc = frames(DEFAULT, "--beat", "all", "--at", "key", *SMALL, "--out", tmp_path / "f",
                  "--contact-sheet", sheet)
    assert proc.returncode == 0, proc.stderr
    image = Image.open(sheet)
    assert image.width > 3 * 320 * 0.9 and image.height > 3 * 180 * 0.9   # a 3 x 3 grid
    assert len(list((tmp_path / "f").glob("*-key.png"))) == 9


def test_bad_frames_arguments(run_cli, tmp_path):
    for args, needle in ((["--beat", "dance"], "not a beat"), (["--at", "soon"], "not a time"),
                         (["--resolution", "321x180"], "odd"),
                         (["--check", tmp_path / "missing"], "not a folder")):
        code, out, err = run_cli("frames", DEFAULT, *args, "--out", tmp_path / "o")
        assert code == 2 and len(err.strip().splitlines()) == 1, (args, err)
        assert needle in err
