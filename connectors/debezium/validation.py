"""A CDC connector's `validate` beyond its keys: connect to the database and run the server checks, each
failure put on the key to blame (a refused login on the password, a missing privilege on the user, the
server's settings and an unreachable server on the host), so a REST create answers 400 and `connectworker
standalone` exits 2 naming what to change.

Every problem is named at once: the server is asked as soon as the keys it is reached with hold, whatever
the other keys' problems, and its checks report all they find, not the first. (Checks that need the other
keys too, such as which tables are captured, run when every key holds.)"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from connectworker.api.config_def import ConfigValue, add_problems, checks_hold
from connectworker.api.errors import ConfigError, ConnectError

from .setup_errors import SetupError, SetupErrors

ServerCheck = Callable[[Mapping[str, Any], bool], None]
"""Connects with the typed values of the connection keys and runs the server checks; the flag says whether
every key holds (the settings then parse), for the checks that need them. Raises ConfigError, SetupError or
SetupErrors (each with its key), or ConnectError (put on the host key)."""


def validate_on_the_server(
    values: dict[str, ConfigValue],
    problems_across_keys: Callable[[Mapping[str, Any]], dict[str, str]],
    check_server: ServerCheck,
    host_key: str,
    connection_keys: Collection[str],
) -> dict[str, ConfigValue]:
    """`values` (each key checked on its own) with what `check_server` finds; it runs when the
    `connection_keys` hold, whatever the other keys' problems."""
    every_key_holds = checks_hold(values, problems_across_keys)
    if any(values[key].errors for key in connection_keys if key in values):
        return values
    try:
        check_server({name: value.value for name, value in values.items()}, every_key_holds)
    except ConfigError as exc:
        return add_problems(values, exc)
    except SetupErrors as exc:
        for error in exc.errors:
            values[error.key].errors.append(str(error))
    except SetupError as exc:
        values[exc.key].errors.append(str(exc))
    except ConnectError as exc:
        values[host_key].errors.append(str(exc))
    return values
