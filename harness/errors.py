"""The one exception type that reaches the user as a single line."""


class HarnessError(Exception):
    """Something the user can fix: the message says what is wrong and what to do.

    The CLI prints ``str(error)`` on one line and exits non-zero; ``detail`` (log tails,
    stack context) goes to the run folder or to stderr only with ``--verbose``.
    """

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail
