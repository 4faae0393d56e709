"""The beat cache's folder and the user's files never overlap: no output is written inside
it, and `cache clear` removes only what it recognises as its own (by name and layout)."""
from tests.conftest import DEFAULT, ROOT
from tests.make_golden import TRACE

KEY = "0123456789abcdef0123456789abcdef01234567"


def _one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_no_output_goes_inside_the_cache_folder(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    beats = tmp_path / "xdg" / "attention-explainer" / "beats"
    beats.mkdir(parents=True)
    for argv in (["pack", "--trace", TRACE, "--out", beats / "mypack"],
                 ["render", "--trace", TRACE, "-o", beats / "talk.mp4"],
                 ["frames", "--trace", TRACE, "--beat", "title", "--out", beats / "stills"],
                 ["batch", ROOT / "examples" / "course.toml", "--out", tmp_path / "c" / "out",
                  "--cache-dir", tmp_path / "c", "--dry-run"]):
        code, _, err = run_cli(*argv)
        assert code == 2 and _one_line(err) and "inside the beat cache" in err, (argv, err)
    assert list(beats.iterdir()) == []
    assert not (tmp_path / "c").exists()


def test_cache_clear_removes_only_its_own_entries_texts_and_traces(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    cache = tmp_path / "xdg" / "attention-explainer"
    (cache / "beats" / KEY).mkdir(parents=True)
    (cache / "beats" / KEY / "segment.mp4").write_bytes(b"an entry of ours")
    (cache / "beats" / "mypack").mkdir()
    (cache / "beats" / "mypack" / "explainer.mp4").write_bytes(b"a lecturer's pack")
    (cache / "texts" / "ab").mkdir(parents=True)
    (cache / "texts" / "ab" / ("c" * 30 + ".pickle")).write_bytes(b"a kept text")
    (cache / "texts" / "notes.txt").write_text("someone's notes")
    (cache / "traces" / "cd").mkdir(parents=True)
    (cache / "traces" / "cd" / ("e" * 30 + ".npz")).write_bytes(b"a kept trace")
    (cache / "traces" / "cd" / "mine.npz").write_bytes(b"a trace of someone's")
    code, out, err = run_cli("cache", "clear")
    assert code == 0, err
    assert "removed 1 cached beats" in out
    assert not (cache / "beats" / KEY).exists()
    assert (cache / "beats" / "mypack" / "explainer.mp4").read_bytes() == b"a lecturer's pack"
    assert (cache / "texts" / "notes.txt").read_text() == "someone's notes"
    assert not (cache / "texts" / "ab").exists()
    assert [p.name for p in (cache / "traces").rglob("*")] == ["cd", "mine.npz"]


def test_a_render_beside_the_cache_still_works(tmp_path, run_cli, monkeypatch):
    """A folder next to the cache (same parent, a name that starts alike) is not inside it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    code, _, err = run_cli("frames", DEFAULT, "--trace", TRACE, "--beat", "title", "--at", "key",
                           "--resolution", "160x90", "--fps", "5",
                           "--out", tmp_path / "xdg" / "attention-explainer-stills")
    assert code == 2 and "cannot be used with --trace" in err    # refused for the sentence,
    code, _, err = run_cli("frames", "--trace", TRACE, "--beat", "title", "--at", "key",
                           "--resolution", "160x90", "--fps", "5",
                           "--out", tmp_path / "xdg" / "attention-explainer-stills")
    assert code == 0, err                                        # not for the place
