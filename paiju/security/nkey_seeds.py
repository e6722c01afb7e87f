"""NKey user seeds (``SU…``): their public keys and reading one from a file.
Used by :mod:`paiju.security.natsauth` and by the configuration's check of
``PAIJU_NATS_SEED_FILE``."""

from __future__ import annotations

from pathlib import Path

import nkeys


def public_key(seed: str) -> str:
    """The public key (``U…``) of user seed ``seed``. ``ValueError`` if it is
    not an NKey user seed."""
    if not seed.startswith("SU"):
        raise ValueError("is not an NKey user seed (SU…)")
    try:
        kp = nkeys.from_seed(bytearray(seed.encode()))
        return bytes(kp.public_key).decode()
    except Exception as e:  # nkeys raises its own NkeysError kinds, and binascii's
        raise ValueError(f"is not a valid NKey seed ({type(e).__name__})") from None


def read_seed(path: Path) -> str:
    """The seed in file ``path`` (surrounding blanks removed). ``ValueError``
    if it cannot be read or holds no valid user seed."""
    try:
        seed = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"cannot be read ({e})") from None
    public_key(seed)
    return seed
