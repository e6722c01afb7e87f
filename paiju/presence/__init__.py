"""Presence: which players are connected where (the book, its publisher) and
who watches which room (spectators), kept across gateways over NATS."""
