"""Games that exist for the tests only (registered through ``PAIJU_GAMES``)."""
