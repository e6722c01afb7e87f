"""The table service: hosts running games (docs/table.md)."""
