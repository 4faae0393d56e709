"""The layout audit over share 2 of 3 of the stress corpus (tests/layout_corpus.py):
see tests/test_layout_corpus.py, whose checks these are."""
from __future__ import annotations

import pytest

from tests.test_layout_corpus import check_sentence, share


@pytest.mark.parametrize("sentence, options, theme", share(1))
def test_the_layout_holds_on_every_sentence(sentence, options, theme, tmp_path):
    check_sentence(sentence, options, theme, tmp_path)
