"""`attention-explainer doctor`: what pip cannot install, checked here, one line per item."""
from __future__ import annotations

import click

__all__ = ["command"]


@click.command("doctor")
def command():
    """Check what the install cannot: Cairo and Pango, the film's fonts (and the glyphs
    that fall back), the codecs PyAV offers, the bundled model, CUDA, Chromium,
    LibreOffice, espeak-ng and the beat cache's free space. Each line says ok, or what is
    missing and the command that installs it on Debian/Ubuntu, Fedora and macOS. Exits 1
    if something a film needs is missing."""
    from ..app.doctor import examine

    findings = examine()
    for finding in findings:
        click.echo(finding.line())
    broken = [f for f in findings if f.needed and not f.ok]
    if broken:
        click.echo(f"{len(broken)} part{'s' * (len(broken) > 1)} a film needs "
                   f"{'are' if len(broken) > 1 else 'is'} missing: install "
                   f"{'them' if len(broken) > 1 else 'it'} as said above.", err=True)
        raise SystemExit(1)
