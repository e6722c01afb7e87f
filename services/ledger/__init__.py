"""The ledger service: accounts, the journal, settlements, fees (docs/ledger.md)."""
