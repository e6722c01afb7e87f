"""The gateway: the only service clients talk to (docs/client-protocol.md)."""
