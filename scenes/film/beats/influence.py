"""The influence beat (optional, ``--beats …,influence``): weight is not influence. Every
head of the layer was silenced in turn in the model's own forward (its output zeroed
before W_O; ``attention_core.ablation``, run before the film: the drawing runs no model).
Two rows of bars, one per head: above, the weight the focus word gives the special tokens
in that head; below, how far the model's output moves without it (the sentence
embedding's angle in degrees, or the next token's KL divergence). The head with the most
weight on special tokens, the one whose silence moves the output most, and the head the
film followed are named with their numbers.
"""
from __future__ import annotations

from manim import DOWN, LEFT, UP, FadeIn, FadeOut, GrowFromEdge, LaggedStart, Rectangle, VGroup

from ....attention_core.derived import influence
from ....attention_core.word_model import WordModel
from ...vocabulary import stage, style
from ...vocabulary.headers import beat_line, layer_name
from ...vocabulary.text import label_text, line_of
from ..beat import Beat, Role
from ..views import head_color
from ..wording import focus_name

__all__ = ["BAR_TOP", "InfluenceBeat"]

BAR_TOP = {"special": 1.95, "effect": -0.75}    # each row's tallest bar reaches this high
BAR_HEIGHT = 1.5
TITLE_ABOVE = 0.62       # a row's title over its tallest bar, clear of the number on it
NUMBER_ROOM = 0.42       # a number over a bar: the box round the followed head holds it
LEFT_X, RIGHT_X = -6.2, 6.4                      # the bars' span


class InfluenceBeat(Beat):
    name = "influence"

    def script(self):
        found = influence(self.trace)
        self.embedding = found["measure"] != "KL"
        self.heads = len(found["heads"])
        leaving = [FadeOut(m) for role, m in self.stage.items()
                   if role not in Role.OVERLAY and m in self.film.mobjects]
        for role in [r for r in self.stage if r not in Role.OVERLAY]:
            self.roles.pop(role, None)
        self.open(beat_line("Does this head matter? Each head of ", layer_name(self.book),
                            " silenced"), None, *leaving)
        special = [self.book.value("influence_special_weight", (h,)) for h in range(self.heads)]
        # a model that gives no weight to special tokens (none, or none weighted): the row
        # shows the weight on the words that may answer the question instead
        self.key = "special_weight" if round(max(special), 2) > 0 else "answer_weight"
        self.said = ("the special tokens" if self.key == "special_weight"
                     else "the words that may answer it")
        values = {"special": [self.book.value(self.weight_kind, (h,))
                              for h in range(self.heads)],
                  "effect": [self.book.value(self.effect_kind, (h,))
                             for h in range(self.heads)]}
        self.named = self.heads_named(values)
        rows = {row: self.bars(row, values[row]) for row in ("special", "effect")}
        self.say(f"Silence one head of {layer_name(self.book)} at a time, in the model itself, "
                 "and measure what its output loses")
        for row in ("special", "effect"):
            bars, title, numbers = rows[row]
            self.play(FadeIn(title), LaggedStart(*[GrowFromEdge(b, DOWN) for b in bars],
                                                 lag_ratio=0.04), run_time=style.T_BUILD)
            self.play(LaggedStart(*[FadeIn(n, shift=UP * 0.1) for n in numbers],
                                  lag_ratio=0.1), run_time=style.T_SHORT)
        self.play(FadeIn(self.head_labels()), FadeIn(self.followed_boxes()),
                  run_time=style.T_SHORT)
        self.say_the_difference()

    @property
    def weight_kind(self) -> str:
        return f"influence_{self.key}"

    @property
    def effect_kind(self) -> str:
        return "influence_angle" if self.embedding else "influence_effect"

    def heads_named(self, values: dict) -> dict:
        """The heads written out: the most weight on special tokens, the largest effect,
        and the head the film followed."""
        def most(row):
            return max(range(self.heads), key=lambda h: (values[row][h], -h))
        return {"special": most("special"), "effect": most("effect"),
                "followed": int(self.trace.primary_head)}

    def x(self, head: int) -> float:
        pitch = (RIGHT_X - LEFT_X) / self.heads
        return LEFT_X + pitch * (head + 0.5)

    def bars(self, row: str, values: list) -> tuple:
        pal = style.PALETTE
        pitch = (RIGHT_X - LEFT_X) / self.heads
        top = max(values) or 1.0
        base = BAR_TOP[row] - BAR_HEIGHT
        bars = VGroup()
        for h, v in enumerate(values):
            height = max(BAR_HEIGHT * v / top, 0.02)
            bar = Rectangle(width=min(0.55 * pitch, 0.8), height=height).set_stroke(width=0)
            bar.set_fill(head_color(self.trace, h) if h in self.named.values() else pal.dim,
                         0.9)
            bar.move_to([self.x(h), base + height / 2, 0])
            bars.add(bar)
        if row == "special":
            title = line_of([("the weight ", style.PALETTE.soft),
                             (WordModel.of_trace(self.trace).word_of(
                                 self.trace.focus_index).text, ("user", pal.query)),
                             (f" gives {self.said}, in each head", pal.soft)],
                            style.FONT_SMALL)
        else:
            said = ("how far the sentence embedding turns without the head (degrees)"
                    if self.embedding else "how far the next token's odds move without the "
                    "head (KL, nats)")
            title = label_text(said, style.FONT_SMALL, pal.soft)
        title.move_to([LEFT_X, BAR_TOP[row] + TITLE_ABOVE, 0], aligned_edge=LEFT)
        stage.keep_on_stage(title)
        kind = self.weight_kind if row == "special" else self.effect_kind
        decimals = 2 if row == "special" or not self.embedding else 0
        numbers = VGroup()
        for h in sorted(set(self.named.values())):
            number = self.number(kind, (h,), decimals=decimals, font_size=style.FONT_NUMBER)
            if row == "effect" and self.embedding:
                number = VGroup(number, label_text("\u00b0", style.FONT_NUMBER, pal.text)) \
                    .arrange(direction=[1, 0, 0], buff=0.02, aligned_edge=UP)
            numbers.add(number.next_to(bars[h], UP, buff=0.08))
        return bars, title, numbers

    def head_labels(self) -> VGroup:
        """The heads' numbers under the lower row (the named ones where all would crowd)."""
        pitch = (RIGHT_X - LEFT_X) / self.heads
        every = label_text(str(self.heads - 1), style.FONT_SMALL).width < 0.8 * pitch
        labels = VGroup()
        for h in range(self.heads):
            if every or h in self.named.values():
                labels.add(label_text(str(h), style.FONT_SMALL, style.PALETTE.soft)
                           .move_to([self.x(h), BAR_TOP["effect"] - BAR_HEIGHT - 0.3, 0]))
        word = label_text("head", style.FONT_SMALL, style.PALETTE.soft)
        word.next_to(labels, DOWN, buff=0.15)
        return VGroup(labels, word)

    def followed_boxes(self) -> VGroup:
        """The head the film followed, framed in both rows."""
        h = self.named["followed"]
        pitch = (RIGHT_X - LEFT_X) / self.heads
        boxes = VGroup()
        for row in ("special", "effect"):
            box = Rectangle(width=min(0.9 * pitch, 1.2), height=BAR_HEIGHT + NUMBER_ROOM + 0.06)
            box.set_stroke(style.PALETTE.highlight, 2).set_fill(opacity=0)
            box.move_to([self.x(h), BAR_TOP[row] - BAR_HEIGHT / 2 + NUMBER_ROOM / 2, 0])
            boxes.add(box)
        return boxes

    def head(self, h: int) -> str:
        """'head 1' (the model's index of a head of the layer), recorded."""
        return "head " + self.book.text("influence_head", (h,), 0)

    def say_the_difference(self):
        book, named = self.book, self.named
        unit = "\u00b0" if self.embedding else " nats"
        decimals = 0 if self.embedding else 2
        loud, strong = named["special"], named["effect"]

        def effect(h):
            return book.text(self.effect_kind, (h,), decimals) + unit
        weight = book.text(self.weight_kind, (loud,), 2)
        turns = "turns the embedding" if self.embedding else "moves the next token's odds"
        book.claim("head_most", (self.key, loud), f"gives {self.said} the most")
        book.claim("head_most", ("effect", strong), f"{turns} the most")
        if loud == strong:
            self.say(f"{self.head(loud).capitalize()} gives {self.said} the most "
                     f"weight, {weight}, and silencing it {turns} the most: {effect(loud)}")
        else:
            followed = (", the head this film followed," if strong == named["followed"]
                        else "")
            self.say(f"{self.head(loud).capitalize()} gives {self.said} {weight} of "
                     f"the weight of {focus_name(self.trace)}; silenced, it {turns} "
                     f"{effect(loud)}. {self.head(strong).capitalize()}{followed} {turns} the "
                     f"most: {effect(strong)}")
        self.wait()
