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
