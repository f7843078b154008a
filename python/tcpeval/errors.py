"""Errors raised to users."""


class ScenarioError(ValueError):
    """A scenario field is missing, malformed or out of range.

    ``field`` is the dotted path of the field (``flows[1].rtt_ms``; empty
    when the problem is the file as a whole) and ``message`` says what is
    wrong and which values are allowed.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)
