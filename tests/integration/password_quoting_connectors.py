"""Test connectors that fail quoting their `db.password`, as a careless connector does ("login refused
for password ..."): the REST API must show their failure traces with the password hidden."""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.api import ConfigDef, ConfigType, ConnectError, SourceConnector, SourceRecord, SourceTask

PASSWORD_KEY = "db.password"


def _refusal(props: Mapping[str, str]) -> str:
    return f"login refused for user admin with password {props[PASSWORD_KEY]}"


class PasswordQuotingTask(SourceTask):
    """Its first poll fails with a message quoting the password."""

    def version(self) -> str:
        return "test"

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def poll(self) -> list[SourceRecord] | None:
        raise ConnectError(_refusal(self.props))

    def stop(self) -> None:
        return None


class PasswordQuotingSource(SourceConnector):
    """Starts; its one task fails quoting the password."""

    def version(self) -> str:
        return "test"

    def config_def(self) -> ConfigDef:
        return ConfigDef().define(PASSWORD_KEY, ConfigType.STRING)

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return PasswordQuotingTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        return None


class PasswordQuotingStartSource(PasswordQuotingSource):
    """The connector itself fails to start, quoting the password."""

    def start(self, props: Mapping[str, str]) -> None:
        raise ConnectError(_refusal(props))
