"""Errors raised to users."""


class ScenarioError(ValueError):
    """A scenario field is missing, malformed or out of range.

    ``field`` is the dotted path of the field (``flows[1].rtt_ms``; empty
    when the problem is the file as a whole), ``message`` says what is
    wrong and which values are allowed, and ``location`` is where the field
    is written (``scenario.toml:12``) when it came from a file.
    """

    def __init__(self, field: str, message: str, location: str = "") -> None:
        self.field = field
        self.message = message
        self.location = location
        text = f"{field}: {message}" if field else message
        super().__init__(f"{location}: {text}" if location else text)

    def __reduce__(self) -> tuple[object, ...]:  # picklable across processes
        return (type(self), (self.field, self.message, self.location))


class StudyError(ScenarioError):
    """A study file field is missing, malformed or out of range."""


class StoreError(OSError):
    """A results file or directory cannot be read or written, or its
    contents are damaged. ``path`` is the file (or directory) concerned and
    ``message`` says what is wrong and, where it helps, what to do."""

    def __init__(self, path: object, message: str) -> None:
        self.path = str(path)
        self.message = message
        super().__init__(f"{self.path}: {message}")

    def __reduce__(self) -> tuple[object, ...]:  # picklable across processes
        return (type(self), (self.path, self.message))
