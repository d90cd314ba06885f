"""Secret config values: hidden in what the REST API shows, kept on a GET-edit-PUT round trip, and
redacted from log records while the REST server runs."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping

import pytest

from connectworker.api.config_def import ConfigDef, ConfigType
from connectworker.api.connector import SourceConnector
from connectworker.api.task import SourceTask
from connectworker.connectors.datagen import DataGenTask
from connectworker.runtime.observability.log_redaction import SecretRedactor
from connectworker.runtime.observability.secrets import HIDDEN, hide, keep_hidden_values, scrub, secret_keys
from tests.validation_answer import validated

TOKEN_CONNECTOR = f"{__name__}.TokenConnector"


class TokenConnector(SourceConnector):
    """Declares `auth.token` a PASSWORD: secret although its name does not say so."""

    def version(self) -> str:
        return "1"

    def config_def(self) -> ConfigDef:
        return ConfigDef().define("auth.token", ConfigType.PASSWORD, None).define("topic", ConfigType.STRING, "t")

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return DataGenTask  # never started here: these tests only read the declaration

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{}]

    def stop(self) -> None:
        self.props = {}


def test_keys_ending_in_password_or_secret_are_hidden_in_any_case() -> None:
    props = {
        "name": "c",
        "connector.class": "DataGen",
        "db.password": "pw1",
        "api.SECRET": "s2",
        "Password": "p3",
        "passwords.file": "/etc/x",
        "secretive": "no",
        "topic": "t",
    }
    shown = hide(props)
    assert shown == {**props, "db.password": HIDDEN, "api.SECRET": HIDDEN, "Password": HIDDEN}
    assert props["db.password"] == "pw1"  # the input is not modified


def test_keys_the_connector_declares_as_password_are_hidden() -> None:
    props = {"name": "c", "connector.class": TOKEN_CONNECTOR, "auth.token": "tok-123", "topic": "t"}
    assert secret_keys(props) == {"auth.token"}
    assert hide(props)["auth.token"] == HIDDEN
    # An unknown connector class still gets the name-based rule, and no error.
    assert secret_keys({"connector.class": "no.such.Connector", "x.password": "p", "auth.token": "t"}) == {"x.password"}


def test_a_hidden_value_sent_back_keeps_the_current_secret() -> None:
    current = {"name": "c", "connector.class": TOKEN_CONNECTOR, "auth.token": "tok", "db.password": "pw", "topic": "t"}
    edited = {**hide(current), "topic": "t2"}
    assert keep_hidden_values(edited, current) == {**current, "topic": "t2"}
    # A new secret value replaces the old one; "[hidden]" for a key without a value stays literal.
    assert keep_hidden_values({**edited, "db.password": "new"}, current)["db.password"] == "new"
    assert keep_hidden_values({"new.password": HIDDEN}, current) == {"new.password": HIDDEN}
    assert keep_hidden_values(edited, None) == edited


def test_scrub_replaces_the_quoted_value_always_and_the_bare_value_when_long_enough() -> None:
    assert scrub("Invalid value 'x' for configuration db.password", "x") == (
        "Invalid value '[hidden]' for configuration db.password"
    )
    assert scrub("cannot log in with hunter22 as admin", "hunter22") == "cannot log in with [hidden] as admin"
    assert scrub("nothing to hide", None) == "nothing to hide"


def test_validate_hides_secret_values_but_keeps_other_values() -> None:
    infos = validated(
        "TokenConnector", {"name": "c", "connector.class": TOKEN_CONNECTOR, "auth.token": "tok-123", "topic": "orders"}
    )
    values = {c.value.name: c.value.value for c in infos.configs}
    assert values["auth.token"] == HIDDEN and values["topic"] == "orders" and values["name"] == "c"
    token = next(c for c in infos.configs if c.definition.name == "auth.token")
    assert token.definition.type == "PASSWORD"
    assert infos.error_count == 0


@pytest.fixture
def redactor() -> Iterator[SecretRedactor]:
    r = SecretRedactor()
    r.install()
    try:
        yield r
    finally:
        r.uninstall()


def test_log_records_carry_no_secret_in_message_args_or_traceback(
    redactor: SecretRedactor, caplog: pytest.LogCaptureFixture
) -> None:
    redactor.set_secrets(["hunter22-long", "abc", HIDDEN])
    log = logging.getLogger("tests.rest.secrets")
    with caplog.at_level(logging.INFO, logger="tests.rest.secrets"):
        log.info("connecting with %s and abc", "hunter22-long")
        try:
            raise ValueError("login failed for password hunter22-long")
        except ValueError:
            log.exception("connector failed")
    text = caplog.text
    assert "hunter22-long" not in text
    assert "connecting with [hidden] and abc" in text  # too-short secrets are not replaced in free text
    assert "login failed for password [hidden]" in text


def test_uninstalling_restores_the_previous_record_factory() -> None:
    before = logging.getLogRecordFactory()
    r = SecretRedactor()
    r.install()
    r.set_secrets(["hunter22-long"])
    assert logging.getLogRecordFactory() is not before
    r.uninstall()
    assert logging.getLogRecordFactory() is before
    record = logging.getLogger("x").makeRecord("x", logging.INFO, __file__, 1, "pw %s", ("hunter22-long",), None)
    assert record.getMessage() == "pw hunter22-long"
