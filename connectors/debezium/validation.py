"""A CDC connector's `validate` beyond its keys: connect to the database and run the server checks, each
failure put on the key to blame (a refused login on the password, a missing privilege on the user, the
server's settings and an unreachable server on the host), so a REST create answers 400 and `connectworker
standalone` exits 2 naming what to change."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from connectworker.api.config_def import ConfigValue, add_problems, checks_hold
from connectworker.api.errors import ConfigError, ConnectError

from .setup_errors import SetupError


def validate_on_the_server(
    values: dict[str, ConfigValue],
    problems_across_keys: Callable[[Mapping[str, Any]], dict[str, str]],
    check_server: Callable[[], None],
    host_key: str,
) -> dict[str, ConfigValue]:
    """`values` (each key checked on its own) with what `check_server` finds; it is run only when every key
    and the checks across keys hold. `check_server` parses the settings, connects and runs the server
    checks, raising ConfigError, SetupError (with its key) or ConnectError (put on `host_key`)."""
    if not checks_hold(values, problems_across_keys):
        return values
    try:
        check_server()
    except ConfigError as exc:
        return add_problems(values, exc)
    except SetupError as exc:
        values[exc.key].errors.append(str(exc))
    except ConnectError as exc:
        values[host_key].errors.append(str(exc))
    return values
