"""Building the worker's create-topic policy from `topic.creation.policy.class` and its keys.

A class that cannot be found, is not a `CreateTopicPolicy`, cannot be constructed or refuses its keys
stops start-up with a configuration error naming the key (exit status 2), before the cluster is asked
anything.
"""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.api.errors import ConfigError
from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.config.worker_config import WorkerConfig
from connectworker.plugins import PluginLoadError, PluginNotFoundError, describe_exception, import_object
from connectworker.topics.policy import POLICY_PREFIX

__all__ = ["POLICY_CLASS_KEY", "build_topic_policy", "load_topic_policy", "policy_from_options", "policy_options"]

POLICY_CLASS_KEY = "topic.creation.policy.class"


def load_topic_policy(config: WorkerConfig, *, source: str | None = None) -> CreateTopicPolicy | None:
    """The configured policy, or None when `topic.creation.policy.class` is not set."""
    return build_topic_policy(config.topic_creation_policy_class, config.prefixed(POLICY_PREFIX), source=source)


def policy_options(config: WorkerConfig) -> dict[str, str]:
    """The policy's class and keys as worker keys, for processes that get options rather than the worker
    file (Spark's executors): `policy_from_options` builds it there."""
    if not config.topic_creation_policy_class:
        return {}
    return {
        POLICY_CLASS_KEY: config.topic_creation_policy_class,
        **{POLICY_PREFIX + key: value for key, value in config.prefixed(POLICY_PREFIX).items()},
    }


def policy_from_options(options: Mapping[str, str]) -> CreateTopicPolicy | None:
    """The policy `policy_options` described (None if it described none)."""
    keys = {
        k[len(POLICY_PREFIX) :]: v for k, v in options.items() if k.startswith(POLICY_PREFIX) and k != POLICY_CLASS_KEY
    }
    return build_topic_policy(options.get(POLICY_CLASS_KEY), keys)


def build_topic_policy(
    class_name: str | None, props: Mapping[str, str], *, source: str | None = None
) -> CreateTopicPolicy | None:
    """The policy `class_name` names, configured with `props` (the keys without their prefix)."""
    name = (class_name or "").strip()
    if not name:
        return None

    def refuse(why: str) -> ConfigError:
        return ConfigError({POLICY_CLASS_KEY: why}, source=source)

    try:
        cls = import_object(name)
    except PluginLoadError as exc:  # (a PluginNotFoundError too: first)
        raise refuse(f"Class {name} could not be loaded: {exc}") from None
    except PluginNotFoundError as exc:
        raise refuse(
            f"Class {exc} could not be found: give the Python path module.Class of a "
            f"connectworker.api.CreateTopicPolicy subclass, e.g. "
            f"connectworker.topics.policy.LimitsPolicy"
        ) from None
    if not (isinstance(cls, type) and issubclass(cls, CreateTopicPolicy)):
        raise refuse(f"{name} is not a subclass of connectworker.api.CreateTopicPolicy")
    try:
        policy = cls()
    except Exception as exc:
        raise refuse(f"{name}() raised {describe_exception(exc)}") from None
    try:
        policy.configure(props)
    except ConfigError as exc:
        raise ConfigError(exc.problems, source=source) from None
    except Exception as exc:
        raise refuse(f"{name}.configure() raised {describe_exception(exc)}") from None
    return policy
