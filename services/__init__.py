"""paiju services: lobby, table, ledger, gateway (one package each)."""
