"""Errors the user can fix. The CLI turns them into exit code 2 and one line."""

__all__ = ["InputError"]


class InputError(ValueError):
    """Bad input: the message says what is wrong and how to fix it, in one line."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))
