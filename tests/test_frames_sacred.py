"""`frames` keeps the rules of `render` and `pack`: existing stills or a contact sheet are
refused without --force (and replaced as a set with it), and nothing is written anywhere
inside a --check folder, at any depth."""
from tests.make_golden import GOLDEN, TRACE

TINY = ["--resolution", "160x90", "--fps", "5"]
ARGS = ["frames", "--trace", str(TRACE), "--beat", "title", "--at", "key", *TINY]


def _one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_an_existing_still_is_refused_without_force_and_replaced_with_it(tmp_path, run_cli):
    out = tmp_path / "stills"
    out.mkdir()
    (out / "title-key.png").write_bytes(b"a lecturer's own picture")
    code, _, err = run_cli(*ARGS, "--out", out)
    assert code == 2 and _one_line(err) and "--force" in err, err
    assert (out / "title-key.png").read_bytes() == b"a lecturer's own picture"
    code, _, err = run_cli(*ARGS, "--out", out, "--force")
    assert code == 0, err
    assert (out / "title-key.png").read_bytes()[:4] == b"\x89PNG"


def test_an_existing_contact_sheet_is_refused_without_force(tmp_path, run_cli):
    sheet = tmp_path / "sheet.png"
    sheet.write_bytes(b"last term's sheet")
    code, _, err = run_cli(*ARGS, "--out", tmp_path / "stills", "--contact-sheet", sheet)
    assert code == 2 and _one_line(err) and "--force" in err, err
    assert sheet.read_bytes() == b"last term's sheet"
    assert not (tmp_path / "stills").exists()           # nothing of the set was written


def test_nothing_is_written_anywhere_inside_the_check_folder(tmp_path, run_cli):
    golden = tmp_path / "golden"
    (golden / "deep").mkdir(parents=True)
    (golden / "title-key.png").write_bytes((GOLDEN / "title-key.png").read_bytes())
    before = sorted(p.relative_to(golden) for p in golden.rglob("*"))
    for extra in (["--out", golden / "sub"], ["--out", golden / "deep" / "er"],
                  ["--out", tmp_path / "fresh", "--contact-sheet", golden / "deep" / "s.png"],
                  ["--out", tmp_path / "fresh", "--contact-sheet",
                   tmp_path / "x" / ".." / "golden" / "s.png"]):
        code, _, err = run_cli(*ARGS, *extra, "--check", golden)
        assert code == 2 and _one_line(err) and "golden folder" in err, (extra, err)
    assert sorted(p.relative_to(golden) for p in golden.rglob("*")) == before
    assert not (tmp_path / "fresh").exists()
