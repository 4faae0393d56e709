"""`attention-explainer generate`: the film of a decoder writing, one token at a time —
each new token's query meeting the growing cache of keys, the model's next-token
distribution, the first token's share (an attention sink, where it is large)."""
from __future__ import annotations


import click

from ..facts import TRACE_DEFAULTS, WRITING_DEFAULTS, WRITING_TOKENS_RANGE
from .common import progress_bar, report_files, say, short_film, summary, video_facts
from .options import HEADS, LAYER, short_film_options

__all__ = ["command"]


@click.command("generate", epilog="""\b
Examples:
  attention-explainer generate "The animal didn't cross the street because it" --model ./my-gpt2 --tokens 5
""")
@click.argument("sentence")
@click.option("--model", required=True, metavar="PATH",
              help="A decoder folder saved with its language-model head: GPT-2, Llama, "
                   "Mistral, Qwen2, Qwen3 or Phi-3 (safetensors, no code of its own).")
@click.option("--tokens", default=WRITING_DEFAULTS["tokens"], show_default=True,
              type=click.IntRange(*WRITING_TOKENS_RANGE),
              help="How many tokens the model writes (greedy), each drawn as a step.")
@click.option("--layer", default=TRACE_DEFAULTS["layer"], show_default=True, type=LAYER,
              help="The layer whose queries are drawn (auto: the last).")
@click.option("--heads", default=TRACE_DEFAULTS["heads"], show_default=True, type=HEADS,
              help="The heads whose mean weight the sparks draw.")
@short_film_options("writes")
def command(sentence, model, tokens, layer, heads, film, settings, quiet, as_json):
    """Draw a decoder writing: one token at a time, each new query over the growing cache.

    The prompt's keys make the cache, a row; each step shows the model's next-token
    distribution (the chosen token is its likeliest: greedy), the new token's query
    sparking to every key, the first token's share, and its key joining the cache. Where
    the first token takes most of the weight, the film names the attention sink and says
    why. A film with captions and chapters (a voice, a length, a lecture pack: as
    render's). Interrupted, it writes nothing."""
    from ..app.writing import WriteRequest, write

    result = write(WriteRequest(sentence=sentence, model=model, tokens=tokens, layer=layer,
                                heads=heads, settings=settings, **short_film(film)),
                   report=None if quiet else say, progress=progress_bar(quiet or as_json))
    if not (quiet or as_json):
        summary(result.render)
    facts = {"written": result.generation.text, **video_facts(result.render)} \
        if as_json else None
    return report_files(result.files, quiet=quiet, as_json=as_json, facts=facts)
