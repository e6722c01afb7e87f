"""Service identity: a certificate authority, per-service certificates, and the
mutual-TLS credentials of every gRPC server and client.

Each paiju process has one identity (:data:`IDENTITIES`), carried in a
certificate signed by the platform's CA whose common name and DNS name are
the identity's name (``lobby``, ``table``…). A server requires a client
certificate from that CA (no certificate, or one from another CA: the TLS
handshake fails, the caller sees ``UNAVAILABLE``); the caller's identity is
then the peer certificate's common name (:func:`peer_identity`), which
:mod:`paiju.security.authz` checks against its table.

A client checks that the server is the service it meant to reach: channels
verify the server's certificate against the *service name* (``peer``) instead
of the address, so one ``table`` certificate serves every table instance
whatever its address (``grpc.ssl_target_name_override``).

Files (``PAIJU_TLS_DIR``): ``ca.pem`` (the CA's certificate, PEM),
``<identity>.pem`` and ``<identity>-key.pem`` (certificate and PKCS#8 private
key, PEM). :func:`make_ca` and :func:`issue` write them (ECDSA P-256, the CA
valid 10 years, certificates :data:`CERT_DAYS` days); ``paiju up`` makes them
in its data folder and ``paiju certs`` for an operator.
"""

from __future__ import annotations

import datetime
import ipaddress
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from paiju.runtime import peers
from paiju.runtime.metered import metered

log = logging.getLogger("paiju.identity")

#: Every identity a certificate may carry: the four services and the operator
#: (``paiju admin``-style tools run by a person).
IDENTITIES = ("lobby", "table", "ledger", "gateway", "operator")
#: Servers that are not paiju services but get a certificate from the same CA
#: (:func:`issue`): the NATS servers, which clients verify as ``nats`` (and the
#: host names the certificate adds). Never a caller identity of paiju/security/authz.py.
SERVERS = ("nats",)
#: Clients that are not paiju services but get a certificate from the same CA
#: (:func:`issue`): the AI players' worker (``paiju ai``), for NATS's client
#: certificate check. Never a caller identity of paiju/security/authz.py.
CLIENTS = ("ai",)
#: Validity of an issued certificate (days); the CA's is CA_DAYS.
CERT_DAYS = 365
CA_DAYS = 3650


class IdentityError(ValueError):
    """Certificates missing or unreadable (the message names the setting and file)."""


@dataclass(frozen=True)
class Identity:
    """One process's identity: its ``name`` and PEM bytes of the CA
    certificate, its certificate and its private key; ``tls_dir`` where they
    were read (None: not from files)."""

    name: str
    ca: bytes
    cert: bytes
    key: bytes
    tls_dir: Path | None = None

    def server_credentials(self) -> grpc.ServerCredentials:
        """Server credentials requiring a client certificate from the CA.
        Read from files, they follow the files: a new connection after
        ``ca.pem``, ``<name>.pem`` or ``<name>-key.pem`` changed gets the
        new ones (files that do not load keep the old ones, logged)."""
        initial = grpc.ssl_server_certificate_configuration([(self.key, self.cert)],
                                                             root_certificates=self.ca)
        if self.tls_dir is None:
            return grpc.ssl_server_credentials([(self.key, self.cert)], root_certificates=self.ca,
                                               require_client_auth=True)
        return grpc.dynamic_ssl_server_credentials(initial, _Reloader(self.tls_dir, self.name),
                                                   require_client_authentication=True)

    def channel_credentials(self) -> grpc.ChannelCredentials:
        """Client credentials: this certificate, trusting only the CA."""
        return grpc.ssl_channel_credentials(root_certificates=self.ca, private_key=self.key,
                                            certificate_chain=self.cert)


class _Reloader:
    """grpc's certificate fetcher: the server's configuration anew when the
    files changed since the last look (by modification time and size), else
    None (keep the current one)."""

    def __init__(self, tls_dir: Path, name: str) -> None:
        self.tls_dir, self.name = tls_dir, name
        self.seen = self._stamp()

    def _stamp(self) -> tuple[tuple[int, int], ...]:
        stamps = []
        for path in cert_paths(self.tls_dir, self.name):
            try:
                st = path.stat()
            except OSError:
                return ()
            stamps.append((st.st_mtime_ns, st.st_size))
        return tuple(stamps)

    def __call__(self) -> grpc.ServerCertificateConfiguration | None:
        stamp = self._stamp()
        if not stamp or stamp == self.seen:
            return None
        try:
            fresh = load(self.tls_dir, self.name)
        except IdentityError as e:
            log.warning("certificates changed but do not load; keeping the old ones: %s", e)
            return None
        self.seen = stamp
        log.info("certificates reloaded", extra={"identity": self.name})
        return grpc.ssl_server_certificate_configuration([(fresh.key, fresh.cert)],
                                                         root_certificates=fresh.ca)


def cert_paths(tls_dir: Path, name: str) -> tuple[Path, Path, Path]:
    """``(ca.pem, <name>.pem, <name>-key.pem)`` inside ``tls_dir``."""
    return tls_dir / "ca.pem", tls_dir / f"{name}.pem", tls_dir / f"{name}-key.pem"


def load(tls_dir: Path, name: str) -> Identity:
    """The identity ``name`` from the files in ``tls_dir``. Raises
    :class:`IdentityError` naming ``PAIJU_TLS_DIR`` and the first missing or
    unreadable file, or a certificate that is not ``name``'s."""
    if name not in IDENTITIES:
        raise IdentityError(f"no such identity {name!r} (one of {', '.join(IDENTITIES)})")
    blobs = []
    for path in cert_paths(tls_dir, name):
        try:
            blobs.append(path.read_bytes())
        except OSError as e:
            raise IdentityError(f"PAIJU_TLS_DIR={str(tls_dir)!r}: cannot read {path.name} "
                                f"({e.strerror or e})") from None
    ca, cert, key = blobs
    try:
        certificate = x509.load_pem_x509_certificate(cert)
        private = serialization.load_pem_private_key(key, password=None)
        x509.load_pem_x509_certificate(ca)
    except ValueError as e:
        raise IdentityError(f"PAIJU_TLS_DIR={str(tls_dir)!r}: {name}.pem, {name}-key.pem or "
                            f"ca.pem is not PEM ({e})") from None
    if private.public_key() != certificate.public_key():
        raise IdentityError(f"PAIJU_TLS_DIR={str(tls_dir)!r}: {name}-key.pem is not the key "
                            f"of {name}.pem")
    subject = certificate.subject
    cn = subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if not cn or cn[0].value != name:
        raise IdentityError(f"PAIJU_TLS_DIR={str(tls_dir)!r}: {name}.pem is not the "
                            f"certificate of {name!r}")
    return Identity(name, ca, cert, key, tls_dir)


def _write(path: Path, data: bytes, private: bool = False) -> None:
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)  # readers see the old file or the new one, never half


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "paiju"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def make_ca(tls_dir: Path, days: int = CA_DAYS) -> None:
    """Write a new CA (``ca.pem``, ``ca-key.pem``) into ``tls_dir`` (made if
    missing), replacing one that is there."""
    tls_dir.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(_name("paiju CA")).issuer_name(_name("paiju CA"))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=days))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False,
                                         False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .sign(key, hashes.SHA256()))
    _write(tls_dir / "ca-key.pem", _key_pem(key), private=True)
    _write(tls_dir / "ca.pem", cert.public_bytes(serialization.Encoding.PEM))


def issue(tls_dir: Path, name: str, hosts: Sequence[str] = (), days: int = CERT_DAYS) -> None:
    """Write ``<name>.pem`` and ``<name>-key.pem`` into ``tls_dir``, signed by
    the CA there (``ca.pem``, ``ca-key.pem``). The certificate names ``name``
    (common name and DNS name) and ``hosts`` (more DNS names or IP addresses),
    for both server and client use; ``name`` is an identity or one of
    :data:`SERVERS` and :data:`CLIENTS`. Raises :class:`IdentityError` for an unknown name or a
    missing CA."""
    if name not in IDENTITIES + SERVERS + CLIENTS:
        raise IdentityError(f"no such identity {name!r} (one of {', '.join(IDENTITIES)})")
    try:
        ca_cert = x509.load_pem_x509_certificate((tls_dir / "ca.pem").read_bytes())
        ca_key = serialization.load_pem_private_key((tls_dir / "ca-key.pem").read_bytes(), None)
    except OSError as e:
        raise IdentityError(f"no CA in {tls_dir} ({e.strerror or e}): make one first") from None
    if not isinstance(ca_key, ec.EllipticCurvePrivateKey):
        raise IdentityError(f"{tls_dir / 'ca-key.pem'} is not an EC key")
    sans: list[x509.GeneralName] = [x509.DNSName(name)]
    for host in hosts:
        try:
            sans.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            sans.append(x509.DNSName(host))
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(_name(name)).issuer_name(ca_cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=days))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                  ExtendedKeyUsageOID.CLIENT_AUTH]),
                           critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    _write(tls_dir / f"{name}-key.pem", _key_pem(key), private=True)
    _write(tls_dir / f"{name}.pem", cert.public_bytes(serialization.Encoding.PEM))


def ensure(tls_dir: Path, names: Sequence[str] = IDENTITIES, hosts: Sequence[str] = (),
           days: int = CERT_DAYS, renew_within_days: float = 30) -> list[str]:
    """Make the CA if ``tls_dir`` has none, and a certificate (naming also
    ``hosts``, see :func:`issue`) for each of ``names`` that is missing, not
    from this CA, or expires within ``renew_within_days``. Returns the names
    (re)issued (``ca`` first when a new CA was made)."""
    made = []
    if not (tls_dir / "ca.pem").exists() or not (tls_dir / "ca-key.pem").exists():
        make_ca(tls_dir)
        made.append("ca")
    ca = x509.load_pem_x509_certificate((tls_dir / "ca.pem").read_bytes())
    limit = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=renew_within_days)
    for name in names:
        _, cert_path, key_path = cert_paths(tls_dir, name)
        fresh = False
        if cert_path.exists() and key_path.exists():
            cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
            try:
                cert.verify_directly_issued_by(ca)  # raises on a foreign or bad signature
                fresh = cert.not_valid_after_utc > limit
            except Exception:
                fresh = False
        if not fresh:
            issue(tls_dir, name, hosts, days=days)
            made.append(name)
    return made


def peer_identity(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    """The identity of the caller of an RPC: the common name of its verified
    client certificate, or None on an insecure (development) server."""
    auth = context.auth_context()
    names = auth.get("x509_common_name") or []
    if not names:
        return None
    value = names[0]
    return value.decode() if isinstance(value, bytes) else str(value)


def channel_options(peer: str | None, options: Sequence[tuple[str, Any]] = (),
                    addr: str = "") -> list[tuple[str, Any]]:
    """``options`` plus round robin over the replicas where ``addr`` names
    several (:func:`paiju.runtime.peers.options`) and the server name a client
    expects (``peer``; None: the address's host, as plain TLS checks it,
    which a target of several replicas has not: a multi-address ``addr``
    without ``peer`` raises ``ValueError``)."""
    out = [*peers.options(addr), *options]
    if peer is None:
        if len(peers.split(addr)) > 1:
            raise ValueError(f"{addr!r} names several replicas: give the service name their "
                             "certificates carry (peer)")
        return out
    return [*out, ("grpc.ssl_target_name_override", peer)]


def secure_channel(addr: str, identity: Identity | None, peer: str | None, *,
                   options: Sequence[tuple[str, Any]] = ()) -> grpc.aio.Channel:
    """The channel every paiju client uses: mutual TLS to the service ``peer``
    (``lobby``, ``table``, ``ledger``, ``gateway``) at ``addr`` as
    ``identity``, the server's certificate checked for the name ``peer``
    (None: for the address's host), with the client metrics
    (``grpc_client_*``). ``addr`` may name every replica of the service
    (``dns:///name:port`` or a comma list, :func:`paiju.runtime.peers.target`); calls
    go round robin to those that are up. ``identity`` None (development mode
    without ``PAIJU_TLS_DIR``) gives an insecure channel. Raises
    ``ValueError`` for an address that does not resolve."""
    interceptors = client_interceptors() or None
    target = peers.target(addr)
    if identity is None:
        return metered(grpc.aio.insecure_channel(
            target, options=[*peers.options(addr), *options], interceptors=interceptors))
    return metered(grpc.aio.secure_channel(target, identity.channel_credentials(),
                                           options=channel_options(peer, options, addr),
                                           interceptors=interceptors))


def client_interceptors() -> list[Any]:
    """The interceptors of every client channel: tracing's (paiju.runtime.tracing,
    when configured; the metrics are the channel's own, :mod:`paiju.runtime.metered`)."""
    from paiju.runtime.tracing import client_interceptors as traced

    return traced()


def blocking_channel(addr: str, identity: Identity | None, peer: str | None, *,
                     options: Sequence[tuple[str, Any]] = ()) -> grpc.Channel:
    """:func:`secure_channel` for synchronous code (same credentials and checks)."""
    target = peers.target(addr)
    if identity is None:
        return grpc.insecure_channel(target, options=[*peers.options(addr), *options])
    return grpc.secure_channel(target, identity.channel_credentials(),
                               options=channel_options(peer, options, addr))
