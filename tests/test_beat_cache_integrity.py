"""The beat cache serves only what it wrote: its keys cover every source file a beat's
pixels depend on, a damaged or planted entry is discarded and drawn again (never served,
never a failure, said in one line), kept texts are unpickled only when they are ours and
whole, and nothing in the cache is followed through a symlink."""
from __future__ import annotations

import json
import os
import pickle
import shutil
import stat
from pathlib import Path

import pytest

from attention_explainer.scenes.pipeline import sources
from attention_explainer.scenes.pipeline.beat_cache import BeatCache, own_name
from attention_explainer.scenes.pipeline.cache_files import FIELDS, Damaged, check_entry, parse_manifest
from tests.conftest import ROOT, run_process

BEATS = "title,embed"
DAMAGED = "embed"            # the film's last beat: its key frame is the poster
OUTPUTS = ("film.mp4", "film.png", "film.srt")
PASSWD = Path("/etc/passwd").read_bytes()


# ---- the key covers every input of a beat's pixels --------------------------------------
@pytest.fixture
def package_copy(tmp_path) -> Path:
    """The package's tree (every package of it, the top-level modules) in tmp_path."""
    copy = tmp_path / "attention_explainer"
    skip = shutil.ignore_patterns("__pycache__", "data", "*.pyc")
    for init in sorted(ROOT.glob("*/__init__.py")):
        if init.parent.name != "tests":
            shutil.copytree(init.parent, copy / init.parent.name, ignore=skip)
    for path in ROOT.glob("*.py"):
        shutil.copy2(path, copy / path.name)
    return copy


def _edit_inside_a_function(path: Path, name: str) -> None:
    """Add a line to the body of function ``name`` (after its def line)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if line.startswith(f"def {name}("))
    lines.insert(at + 1, "    # the same number, another source\n")
    path.write_text("".join(lines), encoding="utf-8")


def test_the_source_hash_covers_the_numbers_a_beat_draws(package_copy):
    before = sources.scenes_source_hash(package_copy)
    assert before == sources.scenes_source_hash(ROOT)       # the copy is the tree as it is
    reached = {p.relative_to(package_copy).as_posix()
               for p in sources.drawing_sources(package_copy)}
    assert {"attention_core/derived.py", "attention_core/projection.py",
            "scenes/film/beats/mask.py", "scenes/vocabulary/style.py", "__init__.py"} <= reached
    _edit_inside_a_function(package_copy / "attention_core" / "derived.py", "qk_dot")
    assert sources.scenes_source_hash(package_copy) != before


def test_the_source_hash_ignores_modules_the_drawing_never_imports(package_copy):
    reached = {p.relative_to(package_copy).as_posix()
               for p in sources.drawing_sources(package_copy)}
    assert "app/course.py" not in reached and "cli.py" not in reached
    before = sources.scenes_source_hash(package_copy)
    with (package_copy / "app" / "course.py").open("a", encoding="utf-8") as file:
        file.write("\n# a course runner's change draws nothing\n")
    assert sources.scenes_source_hash(package_copy) == before
    # the fonts' configuration is read by the drawing, not imported: it counts
    (package_copy / "scenes" / "vocabulary" / "fonts.conf").write_text("<fontconfig/>\n")
    assert sources.scenes_source_hash(package_copy) != before


def test_beat_keys_and_kept_texts_change_with_the_drawing_source(monkeypatch, tmp_path):
    from attention_explainer.scenes.pipeline import beat_cache, text_store

    store = text_store.TextStore(tmp_path)
    key = ("Text", "cat", (), 160, 14.2)
    names = (beat_cache.entry_key(beat="x"), store.file(key))
    monkeypatch.setattr(beat_cache, "scenes_source_hash", lambda root=None: "changed")
    monkeypatch.setattr(text_store, "scenes_source_hash", lambda root=None: "changed")
    assert beat_cache.entry_key(beat="x") != names[0]
    assert store.file(key) != names[1]


# ---- the manifest is checked whole -----------------------------------------------------
def test_the_manifest_holds_exactly_the_stored_fields_of_a_segment(tmp_path):
    from attention_explainer.scenes.pipeline.segments import BeatSegment

    assert set(FIELDS) == set(BeatSegment("b", tmp_path, 1, 5, 0.0, 0.2).manifest())


@pytest.mark.parametrize("change", [
    lambda m: m.update(extra=1), lambda m: m.pop("files"), lambda m: m.update(frames="9"),
    lambda m: m.update(fps=True), lambda m: m["shown_numbers"].append({"beat": "x"}),
    lambda m: m["files"]["key.png"].update(sha256="0" * 63),
    lambda m: m["captions"].append([0, 1]), lambda m: m.update(key_time=float("nan")),
    lambda m: m.pop("handoff_time")])
def test_a_manifest_of_other_keys_or_types_is_damaged(change):
    good = {"beat": "title", "frames": 3, "fps": 5, "key_time": 0.2, "handoff_time": 0.4,
            "captions": [[0.0, 0.4, "a"]], "audit_log": [], "screen_texts": ["a"],
            "shown_numbers": [{"beat": "title", "kind": "d_k", "index": [0], "decimals": 0,
                               "signed": False, "text": "32"}],
            "files": {name: {"size": 1, "sha256": "a" * 64}
                      for name in ("segment.mp4", "key.png")}}
    assert parse_manifest(json.dumps(good).encode()) == good
    change(good)
    with pytest.raises(Damaged):
        parse_manifest(json.dumps(good, allow_nan=True).encode())


# ---- damaged entries, through the real command ------------------------------------------
def _render(work: Path, xdg: Path, out: Path, trace: Path):
    env = dict(os.environ, XDG_CACHE_HOME=str(xdg))
    return run_process("render", "--trace", trace, "--beats", BEATS, "--resolution", "160x90",
                       "--fps", "5", "--jobs", "1", "-o", out / "film.mp4", env=env,
                       cwd=work, umask=0o002)   # group-writable by default: still ours only


def _entries(xdg: Path) -> dict[str, Path]:
    """beat -> its entry folder."""
    beats = xdg / "attention-explainer" / "beats"
    return {json.loads((p / "segment.json").read_text())["beat"]: p
            for p in beats.iterdir() if not p.name.startswith(".")}


@pytest.fixture(scope="module")
def pristine(default_trace, tmp_path_factory):
    """A first render into an empty cache: (its folder, the trace file, the outputs'
    bytes, the cache folder)."""
    root = tmp_path_factory.mktemp("integrity")
    trace = default_trace.save(root / "trace.npz")
    done = _render(root, root / "xdg", root / "first", trace)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "beat cache:" not in done.stderr
    return root, trace, {name: (root / "first" / name).read_bytes() for name in OUTPUTS}, \
        root / "xdg"


def _truncate(entry):
    path = entry / "segment.mp4"
    path.write_bytes(path.read_bytes()[:path.stat().st_size // 2])


def _flip(entry):
    path = entry / "segment.mp4"
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(b ^ 0xFF for b in data[middle:middle + 64])
    path.write_bytes(bytes(data))


def _key_frame_to_passwd(entry):
    (entry / "key.png").unlink()
    (entry / "key.png").symlink_to("/etc/passwd")


def _video_a_folder(entry):
    (entry / "segment.mp4").unlink()
    (entry / "segment.mp4").mkdir()


def _video_a_fifo(entry):
    (entry / "segment.mp4").unlink()
    os.mkfifo(entry / "segment.mp4")


def _manifest_not_json(entry):
    (entry / "segment.json").write_bytes(b'{"beat": "embed", "frames": ')


def _manifest_extra_key(entry):
    manifest = json.loads((entry / "segment.json").read_text())
    (entry / "segment.json").write_text(json.dumps(dict(manifest, extra=1)))


def _entry_a_symlink(entry):
    shutil.rmtree(entry)
    title = next(p for p in entry.parent.iterdir() if p != entry and not p.name.startswith("."))
    entry.symlink_to(title)          # a whole, valid entry: of another beat


def _group_writable(entry):
    entry.chmod(0o770)


def _file_group_writable(entry):
    (entry / "key.png").chmod(0o664)


def _unexpected_file(entry):
    (entry / "notes.txt").write_text("left here")


def _another_users(entry):
    for path in (entry, *entry.iterdir()):
        os.chown(path, 65534, 65534, follow_symlinks=False)


def _entry_a_file(entry):
    shutil.rmtree(entry)
    entry.write_bytes(b"not a folder")


# each rendered again through the command line
DAMAGE = {
    "truncated": (_truncate, "segment.mp4: "),
    "flipped bytes": (_flip, "segment.mp4: sha256 differs"),
    "key frame a symlink to /etc/passwd": (_key_frame_to_passwd, "key.png: a symlink"),
    "video a folder": (_video_a_folder, "segment.mp4: a folder"),
    "manifest not JSON": (_manifest_not_json, "segment.json: not JSON"),
    "manifest with an extra key": (_manifest_extra_key, "segment.json: unexpected key 'extra'"),
    "entry a symlink to another entry": (_entry_a_symlink, "the entry is a symlink"),
    "entry group-writable": (_group_writable, "the entry is writable by group or others"),
}
# each only looked up (the same path to a render as above, without its seconds)
MORE_DAMAGE = {
    "video a fifo": (_video_a_fifo, "segment.mp4: not a regular file"),
    "file group-writable": (_file_group_writable, "key.png: writable by group or others"),
    "unexpected file": (_unexpected_file, "unexpected file 'notes.txt'"),
    "key frame missing": (lambda e: (e / "key.png").unlink(), "key.png: missing"),
    "manifest missing": (lambda e: (e / "segment.json").unlink(), "segment.json: missing"),
    "entry a file": (_entry_a_file, "the entry is not a folder"),
    "another user's entry": (_another_users, "the entry is owned by another user"),
}


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_entry_is_discarded_and_the_beat_rendered_again(pristine, kind, tmp_path):
    root, trace, first, cache = pristine
    damage, reason = DAMAGE[kind]
    xdg = tmp_path / "xdg"
    shutil.copytree(cache, xdg, symlinks=True)
    entries = _entries(xdg)
    damage(entries[DAMAGED])
    done = _render(root, xdg, tmp_path / "out", trace)
    assert done.returncode == 0, done.stderr[-2000:]
    said = [line for line in done.stderr.splitlines() if "beat cache" in line]
    assert len(said) == 1, done.stderr
    assert said[0].startswith(f"beat cache: the entry of the {DAMAGED} beat was damaged "
                              f"({reason}"), said[0]
    assert said[0].endswith("); discarded and rendered again"), said[0]
    assert "1 of 2 beats from the cache" in done.stderr
    # the same films, byte for byte: the beat drawn again encodes to the same bytes
    for name in OUTPUTS:
        data = (tmp_path / "out" / name).read_bytes()
        assert data == first[name], name
        assert PASSWD not in data
    # healed: a whole entry of ours under the key's name; the other beat's untouched
    assert check_entry(entries[DAMAGED])["beat"] == DAMAGED
    assert check_entry(entries["title"])["beat"] == "title"
    assert Path("/etc/passwd").read_bytes() == PASSWD
    beats = xdg / "attention-explainer" / "beats"
    assert sorted(p.name for p in beats.iterdir()) == sorted(p.name for p in entries.values())


@pytest.mark.parametrize("kind", MORE_DAMAGE)
def test_a_damaged_entry_is_discarded_on_look_up(pristine, kind, tmp_path):
    damage, reason = MORE_DAMAGE[kind]
    if kind == "another user's entry" and os.getuid() != 0:
        pytest.skip("making another user's entry needs root")
    shutil.copytree(pristine[3], tmp_path / "xdg", symlinks=True)
    entries = _entries(tmp_path / "xdg")
    damage(entries[DAMAGED])
    cache = BeatCache(tmp_path / "xdg" / "attention-explainer")
    found = cache.lookup(entries[DAMAGED].name)
    assert (found.folder, found.discarded) == (None, f"damaged ({reason}); discarded")
    assert not os.path.lexists(entries[DAMAGED])
    assert cache.lookup(entries["title"].name).folder == entries["title"]
    assert sorted(p.name for p in cache.folder.joinpath("beats").iterdir()) == \
        [entries["title"].name]


# ---- another user's entry that cannot be removed ---------------------------------------
def test_an_entry_not_ours_to_remove_is_ignored_and_ours_kept_beside_it(default_trace, tmp_path,
                                                                        monkeypatch):
    """A shared cache where another user's entry holds the key's name: the beat is drawn
    into an entry of our own name beside it, which later renders use; when that name is
    taken too, the fresh build is served from the render's scratch folder."""
    from attention_explainer.app.film import render_video

    size = dict(width=160, height=90, fps=5, progress=False, jobs=1, beats=BEATS)
    cache = BeatCache(tmp_path / "cache")
    first = render_video(default_trace, output=tmp_path / "a" / "film.mp4", cache=cache, **size)
    entry = {json.loads((p / "segment.json").read_text())["beat"]: p
             for p in cache.entries()}[DAMAGED]
    entry.chmod(0o770)
    monkeypatch.setattr(BeatCache, "discard", lambda self, folder, seen: False)

    def render(name):
        result = render_video(default_trace, output=tmp_path / name / "film.mp4",
                              cache=BeatCache(cache.folder), **size)
        for kind in ("video", "poster", "captions"):
            assert getattr(result, kind).read_bytes() == getattr(first, kind).read_bytes()
        return result

    ignored = render("b")
    assert ignored.discarded == {DAMAGED: "damaged (the entry is writable by group or "
                                          "others); ignored"}
    ours = entry.parent / own_name(entry.name)
    assert check_entry(ours)["beat"] == DAMAGED and entry.is_dir()
    assert render("c").cached_beats == ["title", DAMAGED]       # ours, silently
    ours.chmod(0o770)                                            # both names taken
    served = render("d")
    assert served.cached_beats == ["title"] and DAMAGED in served.discarded


# ---- kept texts ------------------------------------------------------------------------
class _Planted:
    """A pickle that would run code of another user's choosing when loaded."""

    def __reduce__(self):
        return (Path.touch, (Path(os.environ["PLANTED_MARKER"]),))


@pytest.fixture
def kept_text(tmp_path, monkeypatch):
    """A text kept on disk by the real code: (its key, its file)."""
    from attention_explainer.scenes.pipeline.text_store import TextStore
    from attention_explainer.scenes.vocabulary import text

    store = TextStore(tmp_path / "texts")
    monkeypatch.setenv("PLANTED_MARKER", str(tmp_path / "ran"))
    key = ("Text", "kept", (("font_size", 20),), 160, 14.2)
    store.keep(key, text.Text("kept", font_size=20))
    yield store, key, store.file(key)


def _with_header(payload: bytes) -> bytes:
    import hashlib

    from attention_explainer.scenes.pipeline.text_store import HEADER
    return HEADER + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload


@pytest.mark.parametrize("plant", ["raw pickle", "wrong sha256", "symlink", "group-writable",
                                   "another user's"])
def test_a_kept_text_is_unpickled_only_if_ours_and_whole(kept_text, plant, tmp_path):
    store, key, path = kept_text
    assert store.load(key) is not None             # the real file loads
    if plant == "another user's" and os.getuid() != 0:
        pytest.skip("making another user's file needs root")
    evil = pickle.dumps(_Planted())
    if plant == "raw pickle":
        path.write_bytes(evil)
    elif plant == "wrong sha256":
        path.write_bytes(_with_header(b"other").partition(b"\n")[0] + b"\n" + evil)
    elif plant == "symlink":
        elsewhere = tmp_path / "elsewhere.pickle"
        elsewhere.write_bytes(_with_header(evil))
        path.unlink()
        path.symlink_to(elsewhere)
    else:
        path.write_bytes(_with_header(evil))
        if plant == "group-writable":
            path.chmod(0o664)
        else:
            os.chown(path, 65534, 65534)
    assert store.load(key) is None
    assert not (tmp_path / "ran").exists()


# ---- the cache's housekeeping never follows a symlink ----------------------------------
def test_trim_clear_and_sizes_never_follow_a_symlink(tmp_path):
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "x.pickle").write_bytes(b"x" * 1000)
    (outside / "big").write_bytes(b"y" * 10_000)
    cache = BeatCache(tmp_path / "cache", cap_bytes=0)
    beats = cache.folder / "beats"
    real, planted = "a" * 40, "b" * 40          # named as entries are
    (beats / real).mkdir(parents=True)
    (beats / real / "link").symlink_to(outside / "big")
    (beats / planted).symlink_to(outside)
    (beats / ".building-planted").symlink_to(outside)
    cache.texts.mkdir()
    (cache.texts / "ab").symlink_to(outside / "sub")
    assert [p.name for p in cache.entries()] == [real]
    assert cache.kept_files() == [] and cache.size() == 0
    cache.trim()
    cache.clear()
    assert sorted(p.name for p in outside.rglob("*")) == ["big", "sub", "x.pickle"]
    assert not os.path.lexists(beats / planted) and not os.path.lexists(cache.texts)
    assert not os.path.lexists(beats / ".building-planted")
    assert stat.S_ISREG(os.lstat(outside / "big").st_mode)
