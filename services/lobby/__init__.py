"""The lobby service: coin servers, rooms, seats, ready flags, the 20 s ready
kick, and placement of a room's game on a table instance (docs/lobby.md)."""
