"""Certificates made for a test: a CA, a server certificate for 127.0.0.1 and a client certificate, both
signed by the CA, written as PEM files (with `cryptography`, which the registry client's OAuth library
depends on), and as the PKCS12 stores a Java user would have."""

from __future__ import annotations

import datetime
import ssl
from dataclasses import dataclass
from ipaddress import IPv4Address
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Certificates:
    ca: Path  # the CA certificate (a truststore)
    server: Path  # the server's certificate chain and key, one PEM file
    client: Path  # the client's certificate and key, one PEM file (a keystore)
    client_encrypted: Path  # the same, the key encrypted with `password`
    password: str

    def server_context(self, *, require_client: bool) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.server)
        if require_client:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(self.ca)
        return context


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _certificate(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: str,
    signer: ec.EllipticCurvePrivateKey,
    *,
    ca: bool = False,
    ip: bool = False,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(_name(issuer))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if ip:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(IPv4Address("127.0.0.1"))]), critical=False
        )
    return builder.sign(signer, hashes.SHA256())


def _pem(cert: x509.Certificate, key: ec.EllipticCurvePrivateKey, password: str | None = None) -> bytes:
    encryption = serialization.BestAvailableEncryption(password.encode()) if password else serialization.NoEncryption()
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
    ) + cert.public_bytes(serialization.Encoding.PEM)


def make_certificates(directory: Path) -> Certificates:
    ca_key, server_key, client_key = (ec.generate_private_key(ec.SECP256R1()) for _ in range(3))
    ca_cert = _certificate("test CA", ca_key, "test CA", ca_key, ca=True)
    server_cert = _certificate("127.0.0.1", server_key, "test CA", ca_key, ip=True)
    client_cert = _certificate("connect", client_key, "test CA", ca_key)
    paths = Certificates(
        directory / "ca.pem",
        directory / "server.pem",
        directory / "client.pem",
        directory / "client-encrypted.pem",
        "key-secret",
    )
    paths.ca.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    paths.server.write_bytes(_pem(server_cert, server_key))
    paths.client.write_bytes(_pem(client_cert, client_key))
    paths.client_encrypted.write_bytes(_pem(client_cert, client_key, paths.password))
    return paths


def pkcs12_truststore(certs: Certificates, path: Path, password: str) -> Path:
    """A PKCS12 trust store holding the CA, as Java's keytool writes one (a trusted certificate entry)."""
    ca = x509.load_pem_x509_certificate(certs.ca.read_bytes())
    path.write_bytes(
        pkcs12.serialize_java_truststore(
            [pkcs12.PKCS12Certificate(ca, b"ca")], serialization.BestAvailableEncryption(password.encode())
        )
    )
    return path


def pkcs12_keystore(certs: Certificates, path: Path, password: str) -> Path:
    """A PKCS12 key store holding the client's key and certificate."""
    pem = certs.client.read_bytes()
    key = serialization.load_pem_private_key(pem, None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    path.write_bytes(
        pkcs12.serialize_key_and_certificates(
            b"connect",
            key,
            x509.load_pem_x509_certificate(pem),
            None,
            serialization.BestAvailableEncryption(password.encode()),
        )
    )
    return path
