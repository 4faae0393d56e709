"""The facts several parts of the program share, written once: the command line, the
course runner, the lecture pack, the rendering API and the drawing code all read them
here. Plain Python, no imports of ours and no manim (``--help`` stays fast); a test fails
if any of them is written out a second time anywhere in the project.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEFAULT_SENTENCE", "TRACE_ENV", "DEFAULT_TOLERANCE", "DEFAULT_MAX_SHARE", "BEATS", "BEAT_NAMES", "BeatFacts", "beat_facts", "FILM_BEATS", "TRACE_BEATS", "GIF_MAX_FPS",
    "GIF_MAX_WIDTH",
    "VIDEO_SUFFIXES", "DEFAULT_STILLS_DIR", "DEFAULT_FPS", "DEFAULT_MAX_TOKENS", "DEFAULT_OUTPUT_DIR", "JOBS_RANGE",
    "DEFAULT_PACE", "DEFAULT_PAUSES", "DEFAULT_QUALITY", "DEFAULT_RESOLUTION", "DEFAULT_THEME", "DTYPES", "FPS_RANGE",
    "MAX_SIZE", "MAX_TOKENS_DRAWN", "MAX_TOKENS_RANGE", "MIN_SIZE", "PACES", "PAUSES", "QUALITIES",
    "RESOLUTIONS", "THEMES", "TRACE_DEFAULTS", "TRACE_DECIDES", "LENGTHS", "LENGTH_RANGE",
    "KEPT_FIRST", "STILL_FORMATS", "EXPERIMENT_DEFAULTS", "EXPERIMENT_RANGES",
    "TRANSLATION_BEATS", "WRITING_BEATS", "STORYBOARDS", "MAX_WRITING_STEPS", "TRANSLATION_DEFAULTS", "MAX_NEW_TOKENS_RANGE", "WRITING_DEFAULTS",
    "WRITING_TOKENS_RANGE", "SEED_RANGE",
]

# ---- colour themes: name -> what its roles follow (the palettes are in vocabulary.style)
THEMES = {
    "3b1b": "3Blue1Brown's",
    "illustrated": "the Illustrated Transformer's (query red, key blue, value green)",
    "colorblind": "colour-blind safe",
    "light": "light, for a lit room or a white slide (dark ink on white)",
}
DEFAULT_THEME = "3b1b"

# ---- the video -------------------------------------------------------------------------
QUALITIES = ("final", "draft")            # x264 settings: pipeline.encoding
DEFAULT_QUALITY = "final"
# how fast a caption may be read, in characters a second: it stays up at least its length
# over this (then the picture waits); slow leaves time to read the numbers on screen too
PACES = {"normal": 18.0, "slow": 15.0}
DEFAULT_PACE = "normal"
# where a lecture pack's deck and slides stop for the lecturer's key: never (the film
# plays on), after each beat, or after each step of a beat (its captions: a caption
# begins a step, once the step before it is drawn and held)
PAUSES = ("none", "beats", "steps")
DEFAULT_PAUSES = "beats"
RESOLUTIONS = {
    "480p": (854, 480), "720p": (1280, 720), "1080p": (1920, 1080),
    "1440p": (2560, 1440), "4k": (3840, 2160),
}
DEFAULT_RESOLUTION = "1080p"
MIN_SIZE, MAX_SIZE = (64, 36), (7680, 4320)
FPS_RANGE = (1, 120)
DEFAULT_FPS = 30
# the variable naming the trace a plain `manim render` of a beat draws (a settings variable
# of that name would make every command draw it: the commands give it none)
TRACE_ENV = "ATTENTION_EXPLAINER_TRACE"
# the golden check's default comparison (`frames --check`), chosen by measurement
# (bench/bench_goldens.py, bench/RESULTS.md "goldens"): every variation of the machine
# measured moves a channel by at most 9/255 (an antialiased edge redrawn; none at all since
# the renderer pins its fonts and snaps its coordinates), every genuine change measured
# moves some pixel by far more. A pixel counts as changed past DEFAULT_TOLERANCE levels;
# one changed pixel (a share of DEFAULT_MAX_SHARE) fails the frame.
DEFAULT_TOLERANCE = 16
DEFAULT_MAX_SHARE = 0.0
# the README's sentence, every command's when none is given: "ate" attends to "cat" and "fish"
DEFAULT_SENTENCE = "The cat ate the fish"
DEFAULT_OUTPUT_DIR = "renders"    # where outputs go when no path is given
DEFAULT_STILLS_DIR = "renders/frames"      # where `frames` puts its stills by default
JOBS_RANGE = (1, 256)             # worker processes (or a course's Dask workers) at once
# the film's container by the output's suffix: H.264 MP4 (lecture software), VP9 WebM and
# a GIF (web pages) re-encoded from it
VIDEO_SUFFIXES = {".mp4": "H.264 MP4", ".webm": "VP9 WebM", ".gif": "GIF"}
GIF_MAX_FPS = 12            # a GIF's frame rate is capped (browsers slow faster ones down)
GIF_MAX_WIDTH = 640         # ... and its width: a GIF compresses poorly, frame by frame
STILL_FORMATS = ("png", "svg", "pdf")    # a still as pixels, or as vector graphics (print)

# ---- what is drawn ---------------------------------------------------------------------
MAX_TOKENS_DRAWN = 16       # beyond this a window of tokens around the focus is drawn
MAX_TOKENS_RANGE = (2, 512)  # --max-tokens: the longest sentence a command agrees to draw
DEFAULT_MAX_TOKENS = 64
# sizes read before anything is parsed (issue 37): a 10 MB sentence was tokenized for 28 s
# and 2.6 GB before it was called too long, a 159 MB tokenizer.json parsed for as long
MAX_SENTENCE_CHARS = 100_000     # far beyond any model's positions, in any script
MAX_TOKENIZER_BYTES = 64 << 20   # the largest released tokenizer.json files are ~35 MB
MAX_RECORDING_BYTES = 512 << 20  # 300 s of 96 kHz stereo float WAV is 230 MB

# ---- what decides a trace (attention_core.api.TraceRequest's defaults) -----------------
DTYPES = ("float32", "float16", "bfloat16")
TRACE_DEFAULTS = {
    "model": "minilm", "layer": "auto", "heads": "auto", "mask": "none", "device": "auto",
    "dtype": "float32", "d_model": 512, "num_heads": 8, "seed": 0,
}
# a seed (the scratch model's weights, the heads experiment's first run): what torch takes
SEED_RANGE = (0, 2 ** 63 - 1)
# the options a saved trace (--trace) fixes: a command refuses them beside it
TRACE_DECIDES = ("sentence", "focus", *TRACE_DEFAULTS)

# ---- the heads experiment (`experiment heads`: attention_core.heads_experiment.SweepSpec) ----
EXPERIMENT_DEFAULTS = {
    "heads": (1, 4, 8, 16), "d_model": 512, "layers": 1, "epochs": 2, "seed": 0,
    "repeats": 2, "model": "minilm", "device": "auto", "dtype": "float32",
    "resolution": "720p",
}
# what each of its sizes may be (inclusive): checked by the spec and by click alike
EXPERIMENT_RANGES = {"d_model": (4, 4096), "layers": (1, 12), "epochs": (1, 200),
                     "repeats": (1, 20)}

# ---- a translation's film (`translate`: scenes.translation_film) and what it reads -------
TRANSLATION_DEFAULTS = {"model": "scratch", "max_new_tokens": 32}
MAX_NEW_TOKENS_RANGE = (1, 64)     # the longest translation or continuation a model writes
# a decoder's writing as a film (`generate`: scenes.writing_film): a step per token
WRITING_DEFAULTS = {"tokens": 5}
WRITING_TOKENS_RANGE = (1, 8)      # each token is a step of the film: a few seconds each


# ---- the storyboard --------------------------------------------------------------------
@dataclass(frozen=True)
class BeatFacts:
    """One beat: its name (``--beats``), its typical length (measured with ``film_timing``
    on sentences of several scripts: render estimates), its cost to draw (the order beats
    are drawn in), its title (chapters, slides, contact sheets) and
    what it shows (the documentation's storyboard page; ``{drawn}`` in it stands for how the
    sentence's tokens are drawn where that applies: :meth:`shows_for`), and a question for the
    room (a pack's speaker notes; ``{focus}`` is the focus word). An ``optional`` beat is drawn only when
    named (``--beats position``): it hands on the stage it was given, so the film around it
    is the same with or without it."""
    name: str
    title: str
    shows: str
    seconds: float                   # of video in the film, typically (estimates)
    # CPU seconds to draw it at 1080p30 on the bench machine (bench/bench_beat_costs.py): a
    # render hands its beats to its workers most costly first, so none is left drawing
    # alone at the end (a beat's frames cost more or less by what they hold: the order of
    # the seconds of video left the mask beat, 18 s of video and the second most costly
    # to draw, to start last)
    cost: float = 0.0
    optional: bool = False
    ask: str = ""
    needs: str = ""                  # what it draws besides the trace, said where it lacks

    def shows_for(self, *applies: str) -> str:
        """What it shows, with the ways of drawing the tokens in ``applies`` (keys of
        :data:`DRAWN_WHERE`: a pack's notes name only those its sentence needs; the
        storyboard page, all)."""
        said = [DRAWN_WHERE[key] for key in DRAWN_WHERE if key in applies]
        return self.shows.format(drawn=f" ({'; '.join(said)})" if said else "")

    @property
    def scene_name(self) -> str:
        """The plain-manim Scene class of the beat alone: "TitleBeat"."""
        return self.name.capitalize() + "Beat"


# how a sentence's tokens are drawn where it needs it (``BeatFacts.shows_for``)
DRAWN_WHERE = {"right_to_left": "read from the right, in Arabic or Hebrew",
               "pieces": "a word in pieces drawn joined, its pieces marked under it"}

BEATS: tuple[BeatFacts, ...] = (
    BeatFacts("title", seconds=28, cost=16.5, title="The sentence, its question and the formula",
              shows="the sentence as written, then as tokens{drawn}; the question its focus "
              "word poses (which noun a pronoun stands for or an adjective describes; who "
              "does a verb, and to what; what a number counts; what is said of a noun), "
              "asked, then heading the "
              "film; softmax(QKᵀ/√d_k)V; what a query, a key and a value are for; the model, "
              "layer and head, and why that head",
              ask="Before any number: which words should {focus} pay attention to, and why?"),
    BeatFacts("position", seconds=24, cost=11.7, title="Where each word stands",
              shows="the position vectors the model adds to its token embeddings, drawn as waves "
              "over positions for a few dimensions: learned ones (minilm), or the sines and "
              "cosines of Vaswani et al. (scratch); the sentence's positions marked. Optional: "
              "named in --beats, not in the default film", optional=True,
              ask="Shuffle the words: without these vectors, what could the model still tell "
                  "apart?"),
    BeatFacts("embed", seconds=13, cost=12.0, title="Words become vectors",
              shows="each token's embedding: a column of its real numbers and an arrow in a "
              "stated 2-D view",
              ask="Which words would you expect to point the same way, and why?"),
    BeatFacts("project", seconds=29, cost=25.3, title="Queries, keys and values",
              shows="W_Q's real entries times the focus word's embedding give its query; W_K and "
              "W_V the same; the view turns into queries and keys",
              ask="Why give each word three vectors instead of one?"),
    BeatFacts("sparks", seconds=23, cost=16.5, title="Queries meet keys",
              shows="the focus word's query arcs to every key at once, each as bold as its real "
              "q·k; the strongest is worked out below, the sum of its d_k products of query "
              "and key entries; the arcs fall into its row of the QKᵀ grid, then every row "
              "fills",
              ask="Which key will the query of {focus} match best? Guess before the arcs land."),
    BeatFacts("softmax", seconds=16, cost=12.9, title="Softmax: scores become weights",
              shows="the row lifts out, ÷√d_k, then softmax: bars that stack to exactly 1",
              ask="If every score doubled, would the weights spread out or sharpen?"),
    BeatFacts("pull", seconds=19, cost=14.3, title="The pull: a centre of mass",
              shows="the values as masses on springs; cooling the softmax from the plain average "
              "to the real weights pulls the output toward the heavy words",
              ask="If every weight were equal, where would the output of {focus} land?"),
    BeatFacts("heads", seconds=24, cost=15.2, title="Many heads, mixed by W_O",
              shows="the focus word's row in each head, the camera pulling out from the one we "
              "followed; every head's output concatenated and mixed by W_O",
              ask="Why several small heads rather than one big one?"),
    BeatFacts("mask", seconds=18, cost=22.4, title="The mask",
              shows="masked cells violet with −∞ written in; up close, the focus row's weights "
              "renormalise and sum to 1",
              ask="Why must a model that writes text never look at the words after?"),
    BeatFacts("summary", seconds=12, cost=11.6, title="Summary: the whole weight matrix",
              shows="the whole weight matrix as a heat map with its scale, the weights written in, "
              "the formula again",
              ask="Which rows look alike, and what does that say about this head?"),
    BeatFacts("update", seconds=48, cost=23.1, title="The payoff: the word's update",
              shows="what the layer's attention adds to the focus word, chained word by word "
              "(weight × value through W_O, over every head); E + ΔE, the layer norm, E′; "
              "each word's share of the update and how close the word comes to them; then "
              "the film's question again and the answer the numbers give: the followed "
              "head's weights on the words that may answer, their shares of the update, and "
              "weight that is not influence where the numbers show it; the film ends on the "
              "answer drawn: the sentence, the focus's arcs to every word as bold as the "
              "followed head's weight, the answer's weights under its words and its line "
              "under them",
              ask="Did {focus} move toward the words it weighed most? Which number says so?"),
    BeatFacts("influence", seconds=16, cost=9.3, title="Does this head matter?",
              shows="every head of the layer silenced in turn, in the model's own forward: "
              "beside each, the weight the focus word gives the special tokens, and how far "
              "the model's output moves without it (the sentence embedding's angle, or the "
              "next token's KL); the head with the most weight on special tokens and the one "
              "whose silence moves the output most, with their numbers. Optional: named in "
              "--beats", optional=True,
              ask="Does the head with the most weight do the most? How would you test it?",
              needs="every head of the layer silenced in the model (render, pack and frames "
              "run it from the sentence)"),
    BeatFacts("flow", seconds=22, cost=9.0, title="Where its information comes from",
              shows="the sentence as a column per layer, from the input to the last: first the "
              "last layer's own weights from the focus word (its heads' mean), then "
              "rollout (each layer's heads averaged, half of each word kept for the "
              "residual, multiplied from the first layer up) as streams whose width is each "
              "word's share; the input words' shares written; how far leave-one-out bears "
              "rollout out (Kendall's τ). Optional: named in --beats", optional=True,
              ask="Does the word a layer weighs most still give the most after every layer?",
              needs="the model run through every layer (render, pack and frames run it from "
              "the sentence)"),
    BeatFacts("why", seconds=18, cost=8.0, title="Why this head attends there",
              shows="the focus word's highest scores in the followed head, each split into "
              "what makes its key: the token's embedding, its position, what earlier "
              "layers' attention and MLPs wrote, and the constant the norm and W_K add, "
              "drawn as stacked bars that end at the score. Optional: named in --beats, for "
              "a pre-norm model (GPT-2, Llama, ...)", optional=True,
              ask="Is it the word itself, or what earlier layers wrote into it, that the "
                  "query matches?",
              needs="the model's stream split into its parts (render, pack and frames run "
              "it from the sentence, for a pre-norm model)"),
    BeatFacts("versus", seconds=11, cost=8.7, title="Two sentences, one head",
              shows="a minimal pair (--versus): both sentences as rows of words, the same "
              "word joined across them, the weight the focus word gives each word in A and in B "
              "(the same model, layer, head and focus word) and each change, B minus A; "
              "words of one sentence alone marked. Optional: drawn when a second sentence "
              "is given", optional=True,
              ask="Change a few words: which weights should move, and which should not?",
              needs="a second sentence (render and pack take it as --versus SENTENCE)"),
)
BEAT_NAMES: tuple[str, ...] = tuple(b.name for b in BEATS)

# ---- the other films' storyboards: their beats run on the explainer's pipeline (beat
# cache, segments, captions, chapters, voice, --length, the pack), each name its film's alone
TRANSLATION_BEAT_FACTS: tuple[BeatFacts, ...] = (
    BeatFacts("question", seconds=8, cost=6.0, title="Which source words does it draw on?",
              shows="the source (the encoder's tokens: keys and values) above the target (the "
              "decoder's: queries), the focus word marked and its question asked",
              ask="Before any number: which source words should {focus} draw on?"),
    BeatFacts("keys", seconds=6, cost=6.0, title="One query, every source key",
              shows="sparks from the focus word's query to every source key, each as bold as "
              "its weight",
              ask="Which source word will the query of {focus} match best?"),
    BeatFacts("weights", seconds=7, cost=6.0, title="The weights over the source",
              shows="a bar over each source word as tall as the focus word's weight on it, "
              "the heaviest written, and their sum, 1",
              ask="Is the heaviest word the one a translator would align {focus} with?"),
    BeatFacts("masks", seconds=8, cost=5.0, title="Two masks: the decoder's, and none",
              shows="the decoder's causal mask over the target (what is not written yet is "
              "hidden) beside cross-attention, open to every source token",
              ask="Why may cross-attention read the whole source when the decoder may not "
                  "read its own future?"),
    BeatFacts("rows", seconds=7, cost=6.0, title="Every head of the layer",
              shows="the focus word's row of weights in each head of the layer, the head "
              "followed boxed",
              ask="Do the heads agree on where {focus} looks?"),
    BeatFacts("alignment", seconds=7, cost=7.0, title="The alignment",
              shows="the followed head's weights from every target token over the source, as "
              "translators draw an alignment, the focus word's row boxed",
              ask="Where does the alignment run along a diagonal, and where not?"),
    BeatFacts("answer", seconds=9, cost=5.0, title="The answer",
              shows="the source words the focus word draws on most with their weights, or, "
              "for an untrained model, how near even its weights are",
              ask="Would another head, or a trained model, give the same answer?"),
)
# a decoder writing: the prompt as a cache of keys, a step per token written, the sink
MAX_WRITING_STEPS = WRITING_TOKENS_RANGE[1]
WRITING_BEAT_FACTS: tuple[BeatFacts, ...] = (
    BeatFacts("prompt", seconds=5, cost=3.0, title="The prompt, a cache of keys",
              shows="the prompt's tokens as a row: the cache of keys every new query reads",
              ask="Which word do you expect the model to write next?"),
    *(BeatFacts(f"step{n}", seconds=6, cost=5.0, title=f"Token {n}",
                shows="the model's next-token distribution (its likeliest, chosen: greedy), the "
                "new token's query sparking to every key of the cache, the first token's "
                "share; its key joins the cache",
                ask="Where does the new token's query put its weight?")
      for n in range(1, MAX_WRITING_STEPS + 1)),
    BeatFacts("sink", seconds=9, cost=3.0, title="The first token's share",
              shows="the first token's mean share of each new token's weight: an attention "
              "sink where it takes most, and why",
              ask="Why would a head park its weight on the first token?"),
)
# the beats of the cross-attention film, in order (its own storyboard: two rows of tokens)
TRANSLATION_BEATS = tuple(b.name for b in TRANSLATION_BEAT_FACTS)
WRITING_BEATS = tuple(b.name for b in WRITING_BEAT_FACTS)
# each film's storyboard, by the name a trace gives (``storyboard``: the explainer's by default)
STORYBOARDS: dict[str, tuple[BeatFacts, ...]] = {
    "explainer": BEATS, "translation": TRANSLATION_BEAT_FACTS, "writing": WRITING_BEAT_FACTS}

# a film of a chosen length (--length): its first beat (the question) and its last (the
# answer) always stay, every hold is at its floor, and the other beats are kept in this
# order while the film fits (a beat not named here comes last, in storyboard order)
LENGTHS = {"short": 90.0, "full": None}
LENGTH_RANGE = (20.0, 3600.0)        # seconds a film of a chosen length may be asked for
KEPT_FIRST = ("versus", "influence", "flow", "why", "sparks", "softmax", "pull", "summary", "project",
              "embed", "heads", "mask", "position")


def beat_facts(name: str) -> BeatFacts:
    """The facts of the beat called ``name``."""
    return _BY_NAME[name]


_BY_NAME = {b.name: b for beats in STORYBOARDS.values() for b in beats}
assert len(_BY_NAME) == sum(map(len, STORYBOARDS.values())), "a beat's name is its film's alone"
# the default film ("all"): every beat but the optional ones
FILM_BEATS: tuple[str, ...] = tuple(b.name for b in BEATS if not b.optional)
# every beat a trace alone draws (the others need a second sentence or the model again)
TRACE_BEATS: tuple[str, ...] = tuple(b.name for b in BEATS if not b.needs)
