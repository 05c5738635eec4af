"""How often the watch may ask for versions: at most so many samplings in any hour."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

HOUR = 3600.0


class HourlyBudget:
    """A sliding hour: :meth:`spend` answers True and counts a sampling while fewer than
    ``limit`` were counted in the hour before (``clock``: seconds, monotonic)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._spent: deque[float] = deque()

    def _forget_old(self) -> float:
        now = self._clock()
        while self._spent and self._spent[0] <= now - HOUR:
            self._spent.popleft()
        return now

    def left(self, limit: int) -> int:
        """Samplings still allowed in the current hour."""
        self._forget_old()
        return max(0, limit - len(self._spent))

    def spend(self, limit: int) -> bool:
        """Count one sampling if the hour allows it; False (nothing counted) when not."""
        now = self._forget_old()
        if len(self._spent) >= limit:
            return False
        self._spent.append(now)
        return True
