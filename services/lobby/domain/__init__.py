"""The lobby's domain: pure rules and data: no I/O, no clock."""
