"""`attention-explainer doctor`: what pip cannot install, checked here, one line per item."""
from __future__ import annotations

import click

__all__ = ["command"]


@click.command("doctor")
@click.option("--sentence", metavar="TEXT", default=None,
              help="Also say which characters of TEXT have no glyph in the film's fonts.")
def command(sentence):
    """Check what the install cannot: Cairo and Pango, the film's fonts (and the glyphs
    that fall back), the codecs PyAV offers, the bundled model, CUDA, Chromium,
    LibreOffice, espeak-ng and the beat cache's free space. Each line says ok, or what is
    missing and the command that installs it on Debian/Ubuntu, Fedora and macOS. Exits 1
    if something a film needs is missing (with --sentence: a glyph the sentence needs)."""
    from ..app.doctor import examine

    findings = examine(sentence)
    for finding in findings:
        click.echo(finding.line())
    glyphs = [f for f in findings if f.item == "glyphs of the sentence" and not f.ok]
    broken = [f for f in findings if f.needed and not f.ok and f not in glyphs]
    if glyphs and not broken:
        click.echo("the sentence has characters the film has no glyph for: a film of it "
                   "is refused (see the last line).", err=True)
        raise SystemExit(1)
    if broken:
        click.echo(f"{len(broken)} part{'s' * (len(broken) > 1)} a film needs "
                   f"{'are' if len(broken) > 1 else 'is'} missing: install "
                   f"{'them' if len(broken) > 1 else 'it'} as said above.", err=True)
        raise SystemExit(1)
