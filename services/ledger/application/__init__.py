"""The ledger's application: the use cases, written against the adapters."""
