"""How long one call may wait, decided in one place.

Two settings make a call wait: `approvals.wait` (for a person's answer, read from the config's
`ApprovalsConfig`, the one object of that setting) and `calls.wait` (for a long call's result, from
`CallsConfig`). Each is read where the step that waits reads its settings, and cut to the call's
deadline here, by `Deadline.wait`, and nowhere else: what is left of the deadline after the wait must
still hold what comes after it (the upstream exchange of an approved call, or the answer itself).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._logging import monotonic

MARGIN = 1.0  # what every wait leaves of the call deadline for answering
# What an approved call keeps of the deadline on top of its upstream timeout: an approval that arrives
# late must not leave the send to be cut off (which would make it outcome unknown).
SEND_MARGIN = 1.0


@dataclass(frozen=True, slots=True)
class Deadline:
    """The end of one call (a monotonic time), and every wait of the call cut to it."""

    at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(monotonic() + seconds)

    def left(self) -> float:
        return self.at - monotonic()

    def wait(self, setting: float, *, keep: float = MARGIN) -> float:
        """`setting` seconds, or fewer so that `keep` seconds of the deadline remain after the wait."""
        return max(0.0, min(setting, self.left() - keep))
