"""The pictures of a translation's film in docs/own-model.md: the posters (the alignment,
then the answer's frame) of a tiny random Marian built as the tests build it, and of the
scratch encoder–decoder, by the real command.

    .venv/bin/python docs/make_translation_pictures.py
"""
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests import tiny_models  # noqa: E402

FILMS = {
    "translation-marian.png": ["The chef cooked for the guests.", "--target",
                               "Le chat a mangé.", "--model", "{marian}"],
    "translation-scratch.png": ["The cat ate the fish", "--target",
                                "Die Katze hat den Fisch gegessen", "--focus", "Katze"],
}

with tempfile.TemporaryDirectory() as work:
    marian = tiny_models.build_marian(Path(work) / "marian")
    for name, argv in FILMS.items():
        film = Path(work) / name.replace(".png", ".mp4")
        subprocess.run([str(ROOT / ".venv/bin/attention-explainer"), "translate",
                        *[a.format(marian=marian) for a in argv], "--resolution", "720p",
                        "--fps", "10", "-o", str(film), "--quiet"], check=True)
        Image.open(film.with_suffix(".png")).save(ROOT / "docs" / name, optimize=True)

# issue 57: a contact sheet of a whole translation film, a lecturer's pair on the scratch
# encoder–decoder: twelve frames spread evenly over it, each labelled with its time
SHEET = ("translation-sheet.png", ["The old man saw the boat on the river", "--target",
                                   "Le vieil homme a vu le bateau sur la rivière",
                                   "--focus", "bateau"])
FRAMES = 12


def film_frames(film: Path, count: int) -> list:
    """``count`` frames spread evenly over ``film`` (the last one its last), with times."""
    import av

    with av.open(str(film)) as container:
        stream = container.streams.video[0]
        frames = [(float(f.time), f.to_image()) for f in container.decode(stream)]
    picks = [round(n * (len(frames) - 1) / (count - 1)) for n in range(count)]
    return [frames[n] for n in picks]


with tempfile.TemporaryDirectory() as work:
    from attention_explainer.scenes.pipeline.regression import contact_sheet

    name, argv = SHEET
    film = Path(work) / "sheet.mp4"
    subprocess.run([str(ROOT / ".venv/bin/attention-explainer"), "translate", *argv,
                    "--resolution", "640x360", "--fps", "10", "-o", str(film), "--quiet"],
                   check=True)
    frames = [(f"{t:.1f} s", image) for t, image in film_frames(film, FRAMES)]
    contact_sheet(frames, columns=4, thumb_width=640).save(ROOT / "docs" / name,
                                                           optimize=True)
