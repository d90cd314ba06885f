"""A `sasl.jaas.config` login module as librdkafka settings, where librdkafka can do what it does.

- PLAIN and SCRAM (`PlainLoginModule`, `ScramLoginModule`): `username`/`password` become
  `sasl.username`/`sasl.password`. SCRAM with delegation tokens (`tokenauth=true`) has no librdkafka
  counterpart.
- OAUTHBEARER (`OAuthBearerLoginModule`): with `clientId`/`clientSecret` (Kafka's OIDC client
  credentials, KIP-768) librdkafka's `sasl.oauthbearer.method=oidc` with the same client, scope and
  `extension_*` options (the token endpoint is `sasl.oauthbearer.token.endpoint.url`, the same key in
  both); with Kafka's `unsecuredLogin*` options (development only), librdkafka's unsecured JWT.
- GSSAPI (`Krb5LoginModule` with `useKeyTab=true`): `keyTab`/`principal` become
  `sasl.kerberos.keytab`/`sasl.kerberos.principal` (librdkafka runs `kinit` with them).

Any other login module runs Java code librdkafka cannot run: it is refused, naming what to set instead.
"""

from __future__ import annotations

from connectworker.config.jaas import JaasEntry

PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
OAUTHBEARER_MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
KERBEROS_MODULES = ("com.sun.security.auth.module.Krb5LoginModule", "com.ibm.security.auth.module.Krb5LoginModule")

SUPPORTED = (
    f"{PLAIN_MODULE} and {SCRAM_MODULE} (username, password), {OAUTHBEARER_MODULE} (clientId and "
    f"clientSecret, or unsecuredLogin* options) and {KERBEROS_MODULES[0]} (useKeyTab, keyTab, principal)"
)

_UNSECURED = "unsecuredLogin"
_SCOPE_CLAIM_DEFAULT = "scope"


class LoginModuleError(ValueError):
    """The login module has no librdkafka translation; the message says what to do instead."""


def _credentials(entry: JaasEntry, mechanism: str) -> dict[str, str]:
    missing = [name for name in ("username", "password") if name not in entry.options]
    if missing:
        raise LoginModuleError(
            f"{entry.login_module} needs the option{'s' if len(missing) > 1 else ''} "
            f"{' and '.join(missing)} ({mechanism} credentials)"
        )
    if entry.options.get("tokenauth", "").lower() == "true":
        raise LoginModuleError(
            "SCRAM with delegation tokens (tokenauth=true) is not supported by librdkafka; use "
            "the SCRAM credentials of a user instead"
        )
    return {"sasl.username": entry.options["username"], "sasl.password": entry.options["password"]}


def _extensions(entry: JaasEntry) -> dict[str, str]:
    return {key[len("extension_") :]: value for key, value in entry.options.items() if key.startswith("extension_")}


def _oidc(entry: JaasEntry) -> dict[str, str]:
    options = entry.options
    if "clientSecret" not in options:
        raise LoginModuleError(f"{entry.login_module} with clientId needs clientSecret (OIDC client credentials)")
    settings = {
        "sasl.oauthbearer.method": "oidc",
        "sasl.oauthbearer.client.id": options["clientId"],
        "sasl.oauthbearer.client.secret": options["clientSecret"],
    }
    if "scope" in options:
        settings["sasl.oauthbearer.scope"] = options["scope"]
    if extensions := _extensions(entry):
        settings["sasl.oauthbearer.extensions"] = ",".join(f"{k}={v}" for k, v in extensions.items())
    return settings


def _unsecured(entry: JaasEntry) -> dict[str, str]:
    """Kafka's unsecured JWT options as librdkafka's `sasl.oauthbearer.config` (its own unsecured JWT)."""
    options = {k[len(_UNSECURED) :]: v for k, v in entry.options.items() if k.startswith(_UNSECURED)}
    scope_claim = options.get("ScopeClaimName", _SCOPE_CLAIM_DEFAULT)
    principal_claim = options.get("PrincipalClaimName", "sub")
    principal = options.get(f"StringClaim_{principal_claim}")
    if principal is None:
        raise LoginModuleError(
            f"{entry.login_module} with unsecuredLogin* options needs "
            f"unsecuredLoginStringClaim_{principal_claim} (the principal)"
        )
    parts = [f"principal={principal}"]
    known = {
        f"StringClaim_{principal_claim}",
        "ScopeClaimName",
        "PrincipalClaimName",
        "LifetimeSeconds",
        f"ListClaim_{scope_claim}",
        f"StringClaim_{scope_claim}",
    }
    if principal_claim != "sub":
        parts.append(f"principalClaimName={principal_claim}")
    if scope_claim != _SCOPE_CLAIM_DEFAULT:
        parts.append(f"scopeClaimName={scope_claim}")
    if (scope := options.get(f"ListClaim_{scope_claim}")) is not None:
        # Kafka's list claims start with their delimiter: "|a|b" is ["a", "b"]
        items = scope[1:].split(scope[0]) if scope else []
        parts.append("scope=" + ",".join(item for item in items if item))
    elif (scope := options.get(f"StringClaim_{scope_claim}")) is not None:
        parts.append(f"scope={scope}")
    if "LifetimeSeconds" in options:
        parts.append(f"lifeSeconds={options['LifetimeSeconds']}")
    others = sorted(_UNSECURED + name for name in options if name not in known and not name.startswith("Extension_"))
    if others:
        raise LoginModuleError(
            f"librdkafka's unsecured JWT cannot carry {', '.join(others)}: it sets the "
            f"principal, scope and lifetime only"
        )
    parts += [
        f"extension_{name[len('Extension_') :]}={value}"
        for name, value in options.items()
        if name.startswith("Extension_")
    ]
    return {"enable.sasl.oauthbearer.unsecure.jwt": "true", "sasl.oauthbearer.config": " ".join(parts)}


def _oauthbearer(entry: JaasEntry) -> dict[str, str]:
    if "clientId" in entry.options:
        return _oidc(entry)
    if any(key.startswith(_UNSECURED) for key in entry.options):
        return _unsecured(entry)
    raise LoginModuleError(
        f"{entry.login_module} without clientId/clientSecret (OIDC) or unsecuredLogin* options "
        f"takes its token from a Java callback handler, which librdkafka cannot run; set "
        f"librdkafka's sasl.oauthbearer.* keys instead"
    )


def _kerberos(entry: JaasEntry) -> dict[str, str]:
    options = entry.options
    if options.get("useKeyTab", "").lower() != "true" or "keyTab" not in options or "principal" not in options:
        raise LoginModuleError(
            f"{entry.login_module} is translated with useKeyTab=true, keyTab and principal "
            f"only: librdkafka gets its tickets by running sasl.kerberos.kinit.cmd; set "
            f"sasl.kerberos.keytab and sasl.kerberos.principal (or sasl.kerberos.kinit.cmd) "
            f"instead of sasl.jaas.config"
        )
    return {"sasl.kerberos.keytab": options["keyTab"], "sasl.kerberos.principal": options["principal"]}


def login_settings(entry: JaasEntry) -> dict[str, str]:
    """librdkafka's settings for the login module `entry`; raises LoginModuleError when there are none."""
    module = entry.login_module
    if module == PLAIN_MODULE:
        return _credentials(entry, "PLAIN")
    if module == SCRAM_MODULE:
        return _credentials(entry, "SCRAM")
    if module == OAUTHBEARER_MODULE:
        return _oauthbearer(entry)
    if module in KERBEROS_MODULES:
        return _kerberos(entry)
    raise LoginModuleError(f"login module {module} has no librdkafka equivalent; supported: {SUPPORTED}")
