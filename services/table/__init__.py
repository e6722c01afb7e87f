"""The table service: hosts running games (issue 7, docs/table.md)."""
