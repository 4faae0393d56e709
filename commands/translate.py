"""`attention-explainer translate`: the film of a translation's cross-attention — the
decoder's queries over the encoder's keys — on an encoder–decoder folder (Marian, BART,
mBART, T5, mT5) or the scratch encoder–decoder (seeded, untrained)."""
from __future__ import annotations


import click

from ..facts import MAX_NEW_TOKENS_RANGE, TRACE_DEFAULTS, TRANSLATION_DEFAULTS
from .common import progress_bar, report_files, say, short_film, summary, video_facts
from .options import (D_MODEL_RANGE, HEADS, LAYER, NUM_HEADS_RANGE, SEED_RANGE,
                      short_film_options)

__all__ = ["command"]


@click.command("translate", epilog="""\b
Examples:
  attention-explainer translate "The cat sat on the mat" --target "Die Katze saß auf der Matte" --focus Katze
  attention-explainer translate "The cat sat on the mat" --model opus-mt-en-de/ -o cat.mp4
""")
@click.argument("sentence")
@click.option("--model", default=TRANSLATION_DEFAULTS["model"], show_default=True, metavar="scratch|PATH",
              help="An encoder–decoder folder (Marian, BART, mBART, T5, mT5; safetensors, "
                   "no code of its own) or scratch: the seed's MultiHeadAttention as encoder, "
                   "decoder and cross-attention, seeded and untrained (give --target).")
@click.option("--target", default=None, metavar="TEXT",
              help="The translation to read (teacher-forced) [default: the model's own "
                   "greedy translation; scratch needs one].")
@click.option("--focus", default=None, metavar="WORD",
              help="The target word whose query is followed [default: the word whose "
                   "weight is most decided].")
@click.option("--layer", default=TRACE_DEFAULTS["layer"], show_default=True, type=LAYER,
              help="The decoder layer whose cross-attention is drawn (auto: the last).")
@click.option("--heads", default=TRACE_DEFAULTS["heads"], show_default=True, type=HEADS,
              metavar="auto|N",
              help="The head followed (auto: the one most decided for the focus word).")
@click.option("--max-new-tokens", "max_new_tokens",
              default=TRANSLATION_DEFAULTS["max_new_tokens"], show_default=True,
              type=click.IntRange(*MAX_NEW_TOKENS_RANGE),
              help="The longest translation the model writes.")
@click.option("--num-heads", default=TRACE_DEFAULTS["num_heads"], show_default=True,
              type=click.IntRange(*NUM_HEADS_RANGE), help="scratch: number of heads.")
@click.option("--d-model", default=TRACE_DEFAULTS["d_model"], show_default=True,
              type=click.IntRange(*D_MODEL_RANGE), help="scratch: model width.")
@click.option("--seed", default=TRACE_DEFAULTS["seed"], show_default=True,
              type=click.IntRange(*SEED_RANGE), help="scratch: seed of its weights.")
@short_film_options("translation")
def command(sentence, model, target, focus, layer, heads, max_new_tokens, num_heads, d_model,
            seed, film, settings, quiet, as_json):
    """Draw a translation's cross-attention: which source words a target word draws on.

    The source (the encoder's tokens: keys and values) above, the target (the decoder's:
    queries) below; sparks from the focus word's query to every source key, the weights,
    the decoder's causal mask beside cross-attention's none, every head of the layer, the
    alignment and the answer. A film with captions and chapters (a voice, a length, a
    lecture pack: as render's). Interrupted, it writes nothing."""
    from ..app.translation import TranslateRequest, translate

    request = TranslateRequest(sentence=sentence, model=model, target=target, focus=focus,
                               layer=layer, heads=heads, max_new_tokens=max_new_tokens,
                               seed=seed, d_model=d_model, num_heads=num_heads,
                               settings=settings, **short_film(film))
    result = translate(request, report=None if quiet else say,
                       progress=progress_bar(quiet or as_json))
    if not (quiet or as_json):
        summary(result.render)
    facts = {"focus": result.view.focus_text, "head": result.view.head,
             "layer": result.view.layer, **video_facts(result.render)} if as_json else None
    return report_files(result.files, quiet=quiet, as_json=as_json, facts=facts)
