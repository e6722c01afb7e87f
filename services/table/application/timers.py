"""A room's timer: one clock callback at its game's next deadline.

The callback runs the room's timer step as a task of its own (kept in the
table's set of background tasks so that it is not collected early). Re-arming
cancels the callback armed before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from services.table.application.clock import Clock, TimerHandle


class RoomTimer:
    """Calls ``step()`` (a coroutine function) as a task at the deadline last armed."""

    def __init__(self, clock: Clock, background: set[asyncio.Task[None]],
                 step: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self.clock = clock
        self.background = background
        self.step = step
        self.handle: TimerHandle | None = None

    def arm(self, deadline: float | None) -> None:
        """Cancel the armed callback; arm one at ``deadline`` (unix s) unless None."""
        self.cancel()
        if deadline is not None:
            self.handle = self.clock.call_at(deadline, self._fire)

    def cancel(self) -> None:
        """Cancel the armed callback, if any."""
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _fire(self) -> None:
        self.handle = None
        task = asyncio.get_running_loop().create_task(self.step())
        self.background.add(task)
        task.add_done_callback(self.background.discard)
