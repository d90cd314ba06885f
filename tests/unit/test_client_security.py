"""Kafka's client security keys as librdkafka settings: the layers (top level, `producer.*`/`admin.*`,
connector overrides), the JAAS login modules, the trust and key stores, and the keys only Java reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
)

from connectworker.config.client_security import ClientSettings, client_settings
from tests.tls_certs import Certificates, make_certificates, pkcs12_keystore, pkcs12_truststore

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"
OAUTH = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
KRB5 = "com.sun.security.auth.module.Krb5LoginModule"


def translate(
    top: dict[str, str] | None = None, producer: dict[str, str] | None = None, override: dict[str, str] | None = None
) -> ClientSettings:
    return client_settings([("", top or {}), ("producer.", producer or {}), ("producer.override.", override or {})])


def settings(**layers: dict[str, str]) -> dict[str, str]:
    result = translate(**layers)
    assert result.problems == {}
    return result.settings


def problems(**layers: dict[str, str]) -> dict[str, str]:
    return translate(**layers).problems


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("certs"))


# -- SASL ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("module", [PLAIN, SCRAM])
def test_plain_and_scram_jaas_become_username_and_password(module: str) -> None:
    jaas = f'{module} required username="connect" password="pa\\"ss";'
    assert settings(
        top={"security.protocol": "SASL_SSL", "sasl.mechanism": "scram-sha-512", "sasl.jaas.config": jaas}
    ) == {
        "security.protocol": "sasl_ssl",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "connect",
        "sasl.password": 'pa"ss',
    }


def test_the_most_specific_layer_wins_whichever_spelling_it_uses() -> None:
    top = {"sasl.jaas.config": f'{PLAIN} required username="worker" password="w";'}
    # producer.sasl.username (librdkafka's key) beats the top-level JAAS; the password stays the JAAS one
    assert settings(top=top, producer={"sasl.username": "producer"})["sasl.username"] == "producer"
    # a connector's JAAS (the Principal policy's use) beats the worker's librdkafka keys
    chosen = settings(
        producer={"sasl.username": "p", "sasl.password": "pp"},
        override={"sasl.jaas.config": f'{PLAIN} required username="conn" password="cp";'},
    )
    assert (chosen["sasl.username"], chosen["sasl.password"]) == ("conn", "cp")


def test_both_spellings_in_one_layer_must_agree() -> None:
    jaas = f'{PLAIN} required username="a" password="p";'
    assert settings(top={"sasl.jaas.config": jaas, "sasl.username": "a"})["sasl.username"] == "a"
    found = problems(producer={"sasl.jaas.config": jaas, "sasl.username": "b"})
    assert found == {
        "producer.sasl.jaas.config": "sets sasl.username, and so does producer.sasl.username with "
        "another value: set only one of them"
    }


@pytest.mark.parametrize(
    ("jaas", "message"),
    [
        (f'{PLAIN} required username="u";', f"{PLAIN} needs the option password (PLAIN credentials)"),
        (f"{SCRAM} required;", f"{SCRAM} needs the options username and password (SCRAM credentials)"),
        (f'{SCRAM} required username="t" password="h" tokenauth="true";', "delegation tokens"),
        (
            "software.amazon.msk.auth.iam.IAMLoginModule required;",
            "login module software.amazon.msk.auth.iam.IAMLoginModule has no librdkafka equivalent; supported: ",
        ),
        (f"{OAUTH} required;", "takes its token from a Java callback handler"),
        (f"{KRB5} required useTicketCache=true;", "set sasl.kerberos.keytab and sasl.kerberos.principal"),
        (f"{PLAIN} required username='u' password='p'", "JAAS config entry not terminated by semi-colon"),
    ],
)
def test_a_jaas_config_without_translation_is_refused_naming_the_key(jaas: str, message: str) -> None:
    found = problems(override={"sasl.jaas.config": jaas})
    assert list(found) == ["producer.override.sasl.jaas.config"]
    assert message in found["producer.override.sasl.jaas.config"]


def test_oauthbearer_oidc_client_credentials() -> None:
    jaas = (
        f'{OAUTH} required clientId="connect" clientSecret="s3cret" scope="kafka" extension_logicalCluster="lkc-1" '
        f'extension_identityPoolId="pool-2";'
    )
    assert settings(
        top={
            "sasl.mechanism": "OAUTHBEARER",
            "sasl.jaas.config": jaas,
            "sasl.oauthbearer.token.endpoint.url": "https://idp/token",
            "sasl.login.callback.handler.class": "org.apache.kafka.common.security.oauthbearer."
            "OAuthBearerLoginCallbackHandler",
        }
    ) == {
        "sasl.mechanism": "OAUTHBEARER",
        "sasl.oauthbearer.token.endpoint.url": "https://idp/token",
        "sasl.oauthbearer.method": "oidc",
        "sasl.oauthbearer.client.id": "connect",
        "sasl.oauthbearer.client.secret": "s3cret",
        "sasl.oauthbearer.scope": "kafka",
        "sasl.oauthbearer.extensions": "logicalCluster=lkc-1,identityPoolId=pool-2",
    }


def test_oauthbearer_unsecured_jwt_for_development() -> None:
    jaas = (
        f'{OAUTH} required unsecuredLoginStringClaim_sub="alice" unsecuredLoginListClaim_scope="|read|write" '
        f'unsecuredLoginLifetimeSeconds="60" unsecuredLoginExtension_traceId="123";'
    )
    assert settings(top={"sasl.jaas.config": jaas}) == {
        "enable.sasl.oauthbearer.unsecure.jwt": "true",
        "sasl.oauthbearer.config": "principal=alice scope=read,write lifeSeconds=60 extension_traceId=123",
    }
    found = problems(
        top={
            "sasl.jaas.config": f'{OAUTH} required unsecuredLoginStringClaim_sub="a" '
            f'unsecuredLoginNumberClaim_level="3";'
        }
    )
    assert "cannot carry unsecuredLoginNumberClaim_level" in found["sasl.jaas.config"]


def test_kerberos_with_a_keytab() -> None:
    jaas = f'{KRB5} required useKeyTab=true storeKey=true keyTab="/etc/connect.keytab" principal="connect@EX.ORG";'
    assert settings(top={"sasl.jaas.config": jaas, "sasl.kerberos.service.name": "kafka"}) == {
        "sasl.kerberos.service.name": "kafka",
        "sasl.kerberos.keytab": "/etc/connect.keytab",
        "sasl.kerberos.principal": "connect@EX.ORG",
    }


# -- values and Java-only keys ---------------------------------------------------------------------
@pytest.mark.parametrize(("value", "expected"), [("", "none"), ("HTTPS", "https"), ("none", "none")])
def test_endpoint_identification_in_kafkas_values_and_librdkafkas(value: str, expected: str) -> None:
    assert settings(top={"ssl.endpoint.identification.algorithm": value}) == {
        "ssl.endpoint.identification.algorithm": expected
    }


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("security.protocol", "TLS", "must be one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL (got 'TLS')"),
        (
            "sasl.mechanism",
            "AWS_MSK_IAM",
            "librdkafka supports GSSAPI, PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER (got 'AWS_MSK_IAM')",
        ),
        ("ssl.endpoint.identification.algorithm", "ldaps", "Kafka's values are https and an empty value"),
    ],
)
def test_bad_values_are_refused_naming_the_key(key: str, value: str, message: str) -> None:
    assert message in problems(producer={key: value})[f"producer.{key}"]


def test_keys_only_java_reads_are_dropped_and_named() -> None:
    result = translate(
        top={
            "ssl.keymanager.algorithm": "SunX509",
            "ssl.trustmanager.algorithm": "PKIX",
            "sasl.login.class": "x.Login",
            "ssl.protocol": "TLSv1.3",
            "ssl.cipher.suites": "TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256",
        },
        producer={"ssl.enabled.protocols": "TLSv1.3", "linger.ms": "5", "ssl.curves.list": "P-256"},
    )
    assert result.ignored == [
        "ssl.keymanager.algorithm",
        "ssl.trustmanager.algorithm",
        "sasl.login.class",
        "ssl.protocol",
        "ssl.cipher.suites",
        "producer.ssl.enabled.protocols",
    ]
    assert result.settings == {"linger.ms": "5", "ssl.curves.list": "P-256"}
    # OpenSSL's cipher list is librdkafka's own value and goes through
    assert settings(top={"ssl.cipher.suites": "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256"})


# -- trust stores ----------------------------------------------------------------------------------
def _jks(path: Path) -> Path:
    path.write_bytes(b"\xfe\xed\xfe\xed\x00\x00\x00\x02" + bytes(64))
    return path


def test_a_pem_truststore_is_the_ca_location_with_or_without_its_type(certs: Certificates) -> None:
    location = str(certs.ca)
    assert settings(top={"ssl.truststore.type": "PEM", "ssl.truststore.location": location}) == {
        "ssl.ca.location": location
    }
    assert settings(top={"ssl.truststore.location": location}) == {"ssl.ca.location": location}
    pem = certs.ca.read_text()
    assert settings(top={"ssl.truststore.type": "PEM", "ssl.truststore.certificates": pem}) == {"ssl.ca.pem": pem}


def test_a_pkcs12_truststore_is_opened_and_handed_on_as_pem(certs: Certificates, tmp_path: Path) -> None:
    store = pkcs12_truststore(certs, tmp_path / "trust.p12", "changeit")
    for type_ in ("PKCS12", "JKS"):  # Java's JKS loader reads PKCS12 files too
        converted = settings(
            producer={
                "ssl.truststore.location": str(store),
                "ssl.truststore.type": type_,
                "ssl.truststore.password": "changeit",
            }
        )
        assert list(converted) == ["ssl.ca.pem"]
        assert x509.load_pem_x509_certificate(converted["ssl.ca.pem"].encode()) == x509.load_pem_x509_certificate(
            certs.ca.read_bytes()
        )
    found = problems(
        producer={
            "ssl.truststore.location": str(store),
            "ssl.truststore.type": "PKCS12",
            "ssl.truststore.password": "wrong-one",
        }
    )
    assert list(found) == ["producer.ssl.truststore.password"]
    assert "cannot open the PKCS12 trust store" in found["producer.ssl.truststore.password"]
    assert "wrong-one" not in found["producer.ssl.truststore.password"]


@pytest.mark.parametrize("type_", [None, "JKS", "jks"])
def test_a_jks_truststore_is_refused_saying_how_to_convert_it(tmp_path: Path, type_: str | None) -> None:
    store = str(_jks(tmp_path / "truststore.jks"))
    top = {"ssl.truststore.location": store, "ssl.truststore.password": "changeit"}
    if type_:
        top["ssl.truststore.type"] = type_
    message = problems(top=top)["ssl.truststore.location"]
    assert message.startswith(f"{store} is a Java key store (JKS), which librdkafka cannot read. Convert it to PEM:")
    assert f"keytool -importkeystore -srckeystore {store} -srcstoretype JKS" in message
    assert "-deststoretype PKCS12" in message
    assert "openssl pkcs12 -in truststore.p12 -nokeys -out truststore.pem" in message


@pytest.mark.parametrize(
    ("top", "key", "message"),
    [
        ({"ssl.truststore.location": "/no/such/ca.pem"}, "ssl.truststore.location", "cannot read /no/such/ca.pem"),
        (
            {"ssl.truststore.type": "JCEKS", "ssl.truststore.location": "{ca}"},
            "ssl.truststore.type",
            "'JCEKS' cannot be read by librdkafka; allowed: PEM, PKCS12",
        ),
        (
            {"ssl.truststore.type": "PKCS12", "ssl.truststore.location": "{ca}"},
            "ssl.truststore.location",
            "does not hold a PKCS12 store (it holds PEM); set ssl.truststore.type to what it holds",
        ),
        (
            {"ssl.truststore.type": "PEM", "ssl.truststore.location": "{ca}", "ssl.truststore.password": "x"},
            "ssl.truststore.password",
            "SSL trust store password cannot be specified for PEM format.",
        ),
        (
            {"ssl.truststore.certificates": "{pem}"},
            "ssl.truststore.type",
            "SSL trust store certs can be specified only for PEM, but trust store type is JKS.",
        ),
        (
            {"ssl.truststore.password": "x"},
            "ssl.truststore.password",
            "SSL trust store is not specified, but trust store password is specified.",
        ),
    ],
)
def test_truststore_problems_are_named_with_kafkas_messages(
    certs: Certificates, top: dict[str, str], key: str, message: str
) -> None:
    filled = {k: v.format(ca=certs.ca, pem=certs.ca.read_text()) for k, v in top.items()}
    found = problems(top=filled)
    assert list(found) == [key] and message in found[key]


# -- key stores ------------------------------------------------------------------------------------
def test_a_pkcs12_keystore_is_handed_to_librdkafka(certs: Certificates, tmp_path: Path) -> None:
    store = str(pkcs12_keystore(certs, tmp_path / "client.p12", "kpass"))
    assert settings(
        top={
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.location": store,
            "ssl.keystore.password": "kpass",
            "ssl.key.password": "kpass",
        }
    ) == {"ssl.key.password": "kpass", "ssl.keystore.location": store, "ssl.keystore.password": "kpass"}
    found = problems(top={"ssl.keystore.location": store})
    assert found == {"ssl.keystore.password": "SSL key store is specified, but key store password is not specified."}


def test_a_pem_keystore_is_the_certificate_and_key_locations(certs: Certificates) -> None:
    location = str(certs.client_encrypted)
    assert settings(
        top={"ssl.keystore.type": "PEM", "ssl.keystore.location": location, "ssl.key.password": certs.password}
    ) == {"ssl.key.password": certs.password, "ssl.certificate.location": location, "ssl.key.location": location}
    pem = certs.client.read_text()
    key = (
        load_pem_private_key(pem.encode(), None)
        .private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
        .decode()
    )
    chain = x509.load_pem_x509_certificate(pem.encode()).public_bytes(Encoding.PEM).decode()
    assert settings(
        top={"ssl.keystore.type": "PEM", "ssl.keystore.key": key, "ssl.keystore.certificate.chain": chain}
    ) == {"ssl.key.pem": key, "ssl.certificate.pem": chain}
    found = problems(top={"ssl.keystore.type": "PEM", "ssl.keystore.location": location, "ssl.keystore.password": "x"})
    assert found == {
        "ssl.keystore.password": "SSL key store password cannot be specified with PEM format, only key "
        "password may be specified"
    }


def test_a_jks_keystore_is_refused_saying_how_to_convert_it(tmp_path: Path) -> None:
    store = str(_jks(tmp_path / "keystore.jks"))
    message = problems(override={"ssl.keystore.location": store, "ssl.keystore.password": "p"})[
        "producer.override.ssl.keystore.location"
    ]
    assert (
        f"keytool -importkeystore -srckeystore {store} -srcstoretype JKS -destkeystore keystore.p12 "
        f"-deststoretype PKCS12" in message
    )
    assert "ssl.keystore.type=PKCS12" in message


def test_store_keys_merge_across_layers_before_they_are_read(certs: Certificates) -> None:
    # the location from the top level, its type from producer.*: one PEM trust store
    assert settings(top={"ssl.truststore.location": str(certs.ca)}, producer={"ssl.truststore.type": "PEM"}) == {
        "ssl.ca.location": str(certs.ca)
    }
    # an explicit ssl.ca.location of a more specific layer wins over a translated trust store
    assert settings(top={"ssl.truststore.location": str(certs.ca)}, producer={"ssl.ca.location": "/other"}) == {
        "ssl.ca.location": "/other"
    }
