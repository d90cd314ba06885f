"""The PostgreSQL CDC connector's settings: the shared keys (debezium/settings.py) and its own (keys.py),
parsed once into `CdcSettings`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..debezium.capture_keys import BINARY_MODE, DECIMAL_MODE
from ..debezium.settings import CaptureSettings, read_settings
from ..debezium.unimplemented_tables import POSTGRES_UNIMPLEMENTED as UNIMPLEMENTED
from .columns import PostgresTypeOptions
from .keys import (
    CONFIG_DEF,
    DBNAME,
    HSTORE_MODE,
    INTERVAL_MODE,
    MONEY_DIGITS,
    PUBLICATION_AUTOCREATE,
    PUBLICATION_NAME,
    SLOT_DROP,
    SLOT_GAP_ACKNOWLEDGED,
    SLOT_NAME,
    SNAPSHOT_MODE,
    SSLMODE,
    TIME_MODE,
    UNAVAILABLE_PLACEHOLDER,
    placeholder_bytes,
)

NAMESPACE = "schema"  # PostgreSQL's tables live in schemas: schema.include.list, <schema>.<table>


@dataclass(frozen=True, kw_only=True)
class CdcSettings(CaptureSettings):
    dbname: str
    sslmode: str
    slot: str
    publication: str
    publication_autocreate: str
    types: PostgresTypeOptions
    slot_drop_on_stop: bool
    slot_gap_acknowledged: str = ""  # slot.gap.acknowledged.lsn, as written (0/1923320)


def parse_settings(props: Mapping[str, str], *, source: str = "PostgresConnector") -> CdcSettings:
    """The typed settings of `props`; raises ConfigError naming every bad key."""
    values, shared = read_settings(CONFIG_DEF, props, NAMESPACE, UNIMPLEMENTED, source=source)
    return CdcSettings(
        **shared,
        dbname=values[DBNAME],
        sslmode=values[SSLMODE],
        slot=values[SLOT_NAME],
        publication=values[PUBLICATION_NAME],
        publication_autocreate=values[PUBLICATION_AUTOCREATE].lower(),
        snapshot_mode=values[SNAPSHOT_MODE].lower(),
        types=PostgresTypeOptions(
            values[DECIMAL_MODE].lower(),
            values[TIME_MODE].lower(),
            values[BINARY_MODE].lower(),
            placeholder_bytes(values[UNAVAILABLE_PLACEHOLDER]),
            interval_handling=values[INTERVAL_MODE].lower(),
            hstore_handling=values[HSTORE_MODE].lower(),
            money_fraction_digits=values[MONEY_DIGITS],
        ),
        slot_drop_on_stop=values[SLOT_DROP],
        slot_gap_acknowledged=values[SLOT_GAP_ACKNOWLEDGED].upper(),
    )
