"""Generated from protos/ (scripts/genproto.py)."""
