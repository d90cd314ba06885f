"""Kafka's trust and key stores (`ssl.truststore.*`, `ssl.keystore.*`) as librdkafka settings.

librdkafka reads PEM files and strings (`ssl.ca.location`, `ssl.ca.pem`, `ssl.certificate.location`,
`ssl.key.location`, `ssl.certificate.pem`, `ssl.key.pem`) and PKCS#12 key stores
(`ssl.keystore.location`), not Java's JKS. So:

- a PEM trust store becomes `ssl.ca.location` (a file) or `ssl.ca.pem` (`ssl.truststore.certificates`);
- a PKCS#12 trust store is opened here and its certificates handed on as `ssl.ca.pem`;
- a PEM key store becomes `ssl.certificate.location` and `ssl.key.location` (the same file: librdkafka
  picks the certificates and the key out of it), or `ssl.certificate.pem`/`ssl.key.pem`;
- a PKCS#12 key store stays `ssl.keystore.location`/`ssl.keystore.password`, which librdkafka reads;
- a JKS (or JCEKS) store is refused, saying how to convert it.

Kafka's default store type is JKS, yet Java's JKS loader also reads PKCS#12 files; so a store whose
type is JKS or unset is judged by its content (a JKS file starts with 0xFEEDFEED). Kafka's rules about
which keys go together (a PEM store has no store password, …) are kept, with Kafka's messages.
"""

from __future__ import annotations

from collections.abc import Mapping

JKS_MAGIC = b"\xfe\xed\xfe\xed"
JCEKS_MAGIC = b"\xce\xce\xce\xce"
STORE_TYPES = ("JKS", "PKCS12", "PEM")


class StoreError(ValueError):
    """A store setting librdkafka cannot take; `key` is the Kafka key to blame (without prefix)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def _read(path: str, key: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise StoreError(key, f"cannot read {path}: {exc.strerror or exc}") from None


def _content_type(data: bytes) -> str | None:
    """JKS, JCEKS, PKCS12 or PEM, by what the file holds; None if it is none of them."""
    if data.startswith(JKS_MAGIC):
        return "JKS"
    if data.startswith(JCEKS_MAGIC):
        return "JCEKS"
    if b"-----BEGIN " in data[: 64 * 1024]:
        return "PEM"
    if data[:1] == b"\x30":  # a DER SEQUENCE: what a PKCS#12 file is
        return "PKCS12"
    return None


def _jks_advice(kind: str, location: str, found: str) -> str:
    base = "truststore" if kind == "trust" else "keystore"
    convert = (
        f"keytool -importkeystore -srckeystore {location} -srcstoretype {found} -destkeystore {base}.p12 "
        f"-deststoretype PKCS12"
    )
    if kind == "trust":
        return (
            f"{location} is a Java key store ({found}), which librdkafka cannot read. Convert it to PEM: "
            f"`{convert}`, then `openssl pkcs12 -in {base}.p12 -nokeys -out {base}.pem`, and set "
            f"ssl.truststore.type=PEM and ssl.truststore.location={base}.pem (or keep the PKCS12 file: "
            f"ssl.truststore.type=PKCS12 with its password)"
        )
    return (
        f"{location} is a Java key store ({found}), which librdkafka cannot read. Convert it to PKCS12: "
        f"`{convert}`, and set ssl.keystore.type=PKCS12 and ssl.keystore.location={base}.p12 (librdkafka "
        f"reads PKCS12 key stores)"
    )


def _store_type(kind: str, declared: str | None, location: str, data: bytes) -> str:
    """PEM or PKCS12: the type librdkafka gets for the store at `location`."""
    type_key, location_key = f"ssl.{kind}store.type", f"ssl.{kind}store.location"
    wanted = (declared or "").strip().upper() or None
    if wanted is not None and wanted not in STORE_TYPES:
        raise StoreError(
            type_key, f"{declared!r} cannot be read by librdkafka; allowed: PEM, PKCS12 (and JKS files once converted)"
        )
    found = _content_type(data)
    if found in ("JKS", "JCEKS"):
        raise StoreError(location_key, _jks_advice(kind, location, found))
    if wanted in (None, "JKS") and found in ("PKCS12", "PEM"):
        return found  # Java's JKS loader reads PKCS12 too; a PEM file here is read as what it is
    if wanted is None or wanted == "JKS" or (found is not None and found != wanted):
        raise StoreError(
            location_key,
            f"{location} does not hold a {wanted or 'JKS'} store"
            f"{f' (it holds {found})' if found else ''}; set {type_key} to what it "
            f"holds (PEM or PKCS12)",
        )
    return wanted


def _pkcs12_certificates(location: str, data: bytes, password: str | None) -> str:
    """The certificates of a PKCS#12 trust store, as PEM text."""
    from cryptography.hazmat.primitives.serialization import Encoding, pkcs12

    try:
        store = pkcs12.load_pkcs12(data, password.encode() if password else None)
    except ValueError as exc:
        key = "ssl.truststore.password" if password else "ssl.truststore.location"
        raise StoreError(
            key, f"cannot open the PKCS12 trust store {location} ({exc}): check ssl.truststore.password"
        ) from None
    certificates = [entry.certificate for entry in store.additional_certs]
    if store.cert is not None:
        certificates.insert(0, store.cert.certificate)
    if not certificates:
        raise StoreError("ssl.truststore.location", f"the PKCS12 trust store {location} holds no certificate")
    return "".join(cert.public_bytes(Encoding.PEM).decode("ascii") for cert in certificates)


def truststore_settings(java: Mapping[str, str]) -> dict[str, str]:
    """librdkafka's settings for the `ssl.truststore.*` keys of `java` (Kafka's keys, no prefix)."""
    location = java.get("ssl.truststore.location") or None
    declared = java.get("ssl.truststore.type") or None
    password = java.get("ssl.truststore.password") or None
    certificates = java.get("ssl.truststore.certificates") or None
    pem_declared = (declared or "").strip().upper() == "PEM"
    if certificates is not None:
        if not pem_declared:
            raise StoreError(
                "ssl.truststore.type",
                f"SSL trust store certs can be specified only for PEM, but trust store type is {declared or 'JKS'}.",
            )
        if location is not None:
            raise StoreError(
                "ssl.truststore.certificates",
                "Both SSL trust store location and separate trust certificates are specified.",
            )
        if password is not None:
            raise StoreError("ssl.truststore.password", "SSL trust store password cannot be specified for PEM format.")
        return {"ssl.ca.pem": certificates}
    if location is None:
        if password is not None:
            raise StoreError(
                "ssl.truststore.password", "SSL trust store is not specified, but trust store password is specified."
            )
        return {}
    data = _read(location, "ssl.truststore.location")
    store_type = _store_type("trust", declared, location, data)
    if store_type == "PEM":
        if password is not None and pem_declared:
            raise StoreError("ssl.truststore.password", "SSL trust store password cannot be specified for PEM format.")
        return {"ssl.ca.location": location}
    return {"ssl.ca.pem": _pkcs12_certificates(location, data, password)}


def keystore_settings(java: Mapping[str, str]) -> dict[str, str]:
    """librdkafka's settings for the `ssl.keystore.*` keys of `java` (`ssl.key.password` is librdkafka's
    key too and is handed on as it is)."""
    location = java.get("ssl.keystore.location") or None
    declared = java.get("ssl.keystore.type") or None
    password = java.get("ssl.keystore.password") or None
    key = java.get("ssl.keystore.key") or None
    chain = java.get("ssl.keystore.certificate.chain") or None
    pem_declared = (declared or "").strip().upper() == "PEM"
    if key is not None:
        if not pem_declared:
            raise StoreError(
                "ssl.keystore.type",
                f"SSL private key can be specified only for PEM, but key store type is {declared or 'JKS'}.",
            )
        if chain is None:
            raise StoreError(
                "ssl.keystore.key", "SSL private key is specified, but certificate chain is not specified."
            )
        if location is not None:
            raise StoreError("ssl.keystore.key", "Both SSL key store location and separate private key are specified.")
        if password is not None:
            raise StoreError(
                "ssl.keystore.password",
                "SSL key store password cannot be specified with PEM format, only key password may be specified.",
            )
        return {"ssl.key.pem": key, "ssl.certificate.pem": chain}
    if chain is not None:
        raise StoreError(
            "ssl.keystore.certificate.chain", "SSL certificate chain is specified, but private key is not specified"
        )
    if location is None:
        if password is not None:
            raise StoreError(
                "ssl.keystore.password", "SSL key store is not specified, but key store password is specified."
            )
        return {}
    store_type = _store_type("key", declared, location, _read(location, "ssl.keystore.location"))
    if store_type == "PEM":
        if password is not None:
            raise StoreError(
                "ssl.keystore.password",
                "SSL key store password cannot be specified with PEM format, only key password may be specified",
            )
        return {"ssl.certificate.location": location, "ssl.key.location": location}
    if password is None:
        raise StoreError(
            "ssl.keystore.password", "SSL key store is specified, but key store password is not specified."
        )
    return {"ssl.keystore.location": location, "ssl.keystore.password": password}
