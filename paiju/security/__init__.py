"""Who is who and who may do what: the CA and certificates (mutual TLS), the
authorisation table of every RPC, the NATS accounts and NKeys, operators' calls."""
