"""Debezium's column mappers (`column.mask.*`, `column.truncate.*`, `column.propagate.source.type`,
`datatype.propagate.source.type`) as io.debezium.relational.mapping has them: values, schema parameters,
which columns the lists match, and the warnings where a value passes unmapped.

Hash values come from Debezium's own tests (MaskStringsTest, ColumnMappersTest, PostgresConnectorIT and
BinlogConnectorIT `shouldConsumeEventsWithMaskedHashedColumns`), the others were computed with OpenJDK 17's
`ObjectOutputStream` and `MessageDigest` as Debezium's HashValueConverter calls them."""

from __future__ import annotations

import pytest

from connectworker.api.errors import ConfigError, DataError
from connectworker.connectors.debezium.column_mappers import ColumnMappers, SourceColumn, source_type_parameters
from connectworker.connectors.debezium.masks import java_serialized
from connectworker.connectors.postgres_cdc import columns as pg
from connectworker.connectors.postgres_cdc.catalog_types import CatalogTypes
from connectworker.connectors.postgres_cdc.source_column import source_column as pg_column


def text_column(name: str = "bb", length: int | None = None, table: str = "s2.a") -> SourceColumn:
    return SourceColumn(table, name, "VARCHAR", length, None, character=True)


INT_COLUMN = SourceColumn("s2.a", "n", "int4", 10, 0, character=False)
BYTEA_COLUMN = SourceColumn("s2.a", "raw", "bytea", None, None, character=False, binary=True)


def mapped(props: dict[str, str], column: SourceColumn, value: object) -> object:
    mapper = ColumnMappers.from_props(props).value_mapper(column)
    assert mapper is not None
    return mapper(value)


# -- hashes --------------------------------------------------------------------------------------------------
SHA256 = "column.mask.hash.SHA-256.with.salt.salt"
SHA256_V2 = "column.mask.hash.v2.SHA-256.with.salt.salt"
MD5 = "column.mask.hash.MD5.with.salt.salt"
MD5_V2 = "column.mask.hash.v2.MD5.with.salt.salt"
SHA256_SALT123 = "column.mask.hash.SHA-256.with.salt.salt123"
SHA256_SALT123_V2 = "column.mask.hash.v2.SHA-256.with.salt.salt123"
SHA256_IT = "column.mask.hash.SHA-256.with.salt.CzQMA0cB5K"
DEBEZIUM_HASHES = [
    # MaskStringsTest (a column of no length)
    (SHA256, "hello", "af5843a0f0e728ab0332c8888b6e1190bfb79e584f0d40538de8f10df6ef29c6"),
    (SHA256, "world", "4588e1f2dcdc7fefc1515d3acd5acb9033478eace68286f383c337b9ff4464a3"),
    (MD5, "hello", "46f48a7a5ea32efba87cbff49d46d35a"),
    (MD5, "world", "030f632140d9c9591b0d8c21098024b8"),
    (SHA256_V2, "hello", "cd31b3b98ece60cb739c0bf770b2de892ae0ad133f645513c3d83f08757a843a"),
    (SHA256_V2, "world", "e84ac3142870113ddc6710c06f76421befc8e8ca6de64e98d2993ed8d41f4085"),
    (MD5_V2, "hello", "06decc8b095724f80103712c235586be"),
    (MD5_V2, "world", "172c8e95398cc72ab5358ead6981e7e5"),
    # ColumnMappersTest shouldMaskStringsToMaskHashV1Column / V2Column
    (SHA256_SALT123, "12345678901234567890", "5944c66655670e4ce234df8529d452ba1cae10a641b9cd1583abf62585b8515a"),
    (SHA256_SALT123_V2, "12345678901234567890", "b65875d34a3dedf070f3a012970bf3b5da424560d7be3d2c23b986b525d2d7f3"),
    # BinlogConnectorIT: customers.email, varchar(255)
    (SHA256_IT, "sally.thomas@acme.com", "d540e71abf15be8b51c7967397ba359db27d6f6ae85a297fe8d0d7005ffd0e82"),
    (SHA256_IT, "gbailey@foobar.com", "b1f1a1a63559c1d3a98bd7bb5c363d7e21a37463a7266bc2ff341eaef7ac8ef3"),
    (SHA256_IT, "ed@walker.com", "bbe1de7b1068bc8f86bbb19f432ce1d44fbd461339916f42544b3f7ebff674d6"),
    (SHA256_IT, "annek@noanswer.org", "ff21be44fb224e57d822ea9a51d343d77e4c49ac3dedd3d144024ac2012af0a1"),
]
JAVA_17_HASHES = [
    (SHA256, "", "5b3d6ca0412baec5bd29469bcf15b3d11a89841fb2aaed6509e63dd51531bbb0"),
    (SHA256_V2, "", "63479ad69a090b258277ec8fba6f99419a2ffb248981510657c944ccd1148e97"),
    (SHA256, "caf\u00e9", "a76d52b3a50fc3e3edb28de7f57084181e17ef3e8c4f1ddfa8cffa08c427be93"),
    (SHA256_V2, "caf\u00e9", "e27b24d131f9eb49c0ca510f02472e404bdf82f8718060f4f46abd62c194f0c7"),
    (SHA256, "\u65e5\u672c", "28ff00625643b229294663e81fa2859acabae6f331fb691e3daf58904bf4cb21"),
    (SHA256_V2, "\u65e5\u672c", "d51b1a8e1a4bb4fd7063175c4e82d7dbba0e808ea7f425b6d818e2f94adf8e3d"),
    (SHA256, "a\x00b", "bdc7f913ce6aff17f08342a233b29e3baeb2bab699ae7dd8acdb7d2dddf810ff"),
    (SHA256_V2, "a\x00b", "01ae4a27b0c0dc696c79e30f22c84985219d1aa2a72e768f86a4cf6a95fc88ff"),
    (SHA256, "\U0001f600", "5f2f7e66754b52cfcccfe724e4e480422196cfa2afa42395a9192451760d0682"),
    (SHA256_V2, "\U0001f600", "c7b1699dad3ed7ae5be74a059d4619f504f29f98159acb0568c9971b0bd99bd0"),
    (SHA256, "x" * 70000, "7fab0c0461220b8c55bbb93baf32883ff3a4680ded26e5063b3e5aa09c98a713"),
    (SHA256_V2, "x" * 70000, "c42047a4cefdf2fa536d61e49edc9ba9571daed3445e2148b3221f2399f055aa"),
    (SHA256, "\u00e9" * 40000, "7522f25ab3970b5e5c7fc782a8fc89d5aec7e98015756b2d731122ec88afe301"),
    (SHA256_V2, "\u00e9" * 40000, "51a39b70dce259fce9f681fc615a6fc06719a2971b4fb6e264b38f064cf91aaa"),
    ("column.mask.hash.SHA-1.with.salt.s", "hello", "4681b3103efdbc06daf6f697237da5864f84e408"),
    (
        "column.mask.hash.SHA-512.with.salt.s",
        "hello",
        "0d8beff68e4a4e758856d80de8a333fe70c457b0ffea42950d771358ffea3ba4"
        "0d211394afe3bb3b075f00889541ba721d55abbac5ba98ce6e084fdcf6dc890a",
    ),
    (
        "column.mask.hash.SHA3-256.with.salt.s",
        "hello",
        "e541f85b7a66af1a7fba7447381032ab48938160fb9081ebce4feb23e069fafc",
    ),
    (
        "column.mask.hash.sha512/256.with.salt.s",
        "hello",
        "47a9354ecb8fad033521e8616325c5abe2511a50441d9f41c0d66b81b43a9ab7",
    ),
    (
        "column.mask.hash.v2.SHA-384.with.salt.selé",
        "hello",
        "7ed803c0659877a4a17b30faddd6065c53e933b2aa92f8060bc4caa8eb50db97b896bbe504fc2dc0d68b61e981f71186",
    ),
]


@pytest.mark.parametrize(("key", "value", "expected"), DEBEZIUM_HASHES + JAVA_17_HASHES)
def test_a_hash_is_debeziums_hex_digest_of_the_salt_and_the_value_by_strategy(
    key: str, value: str, expected: str
) -> None:
    assert mapped({key: "s2.a.bb"}, text_column(length=255 if key == SHA256_IT else None), value) == expected


def test_v1_hashes_javas_serialized_string_and_v2_its_utf8_bytes_so_they_differ() -> None:
    assert java_serialized("hello") == b"\xac\xed\x00\x05\x74\x00\x05hello"  # stream header, TC_STRING, length
    assert java_serialized("a\x00\U0001f600") == b"\xac\xed\x00\x05\x74\x00\x09a\xc0\x80\xed\xa0\xbd\xed\xb8\x80"
    long = java_serialized("x" * 70000)
    assert long[:13] == b"\xac\xed\x00\x05\x7c" + (70000).to_bytes(8, "big")  # TC_LONGSTRING past 65535 bytes
    column = text_column()
    v1 = mapped({"column.mask.hash.SHA-256.with.salt.k": "s2.a.bb"}, column, "same")
    v2 = mapped({"column.mask.hash.v2.SHA-256.with.salt.k": "s2.a.bb"}, column, "same")
    assert v1 != v2


def test_a_hash_is_cut_to_the_columns_length_as_postgres_connector_it_shows() -> None:
    """PostgresConnectorIT: s2.a.bb is varchar(20), s2.b.bb varchar(255)."""
    props = {"column.mask.hash.SHA-256.with.salt.CzQMA0cB5K": "s2.a.bb, s2.b.bb"}
    assert mapped(props, text_column(length=20), "test") == "8e68c68edbbac316dfe2"
    assert mapped(props, text_column(length=20), "hello") == "b4d39ab0d198fb4cac8b"
    long = "b4d39ab0d198fb4cac8b2f023da74f670bcaf192dcc79b5d6361b7ae6b2fafdf"
    assert mapped(props, text_column(length=255, table="s2.b"), "hello") == long
    assert mapped(props, text_column(length=0), "hello") == long  # only a length above 0 cuts
    mappers = ColumnMappers.from_props(props)
    [warning] = mappers.warnings(text_column(length=20))
    assert warning == (
        "column.mask.hash.SHA-256.with.salt.CzQMA0cB5K: s2.a.bb (VARCHAR) holds 20 characters; as in Debezium, "
        "its hashes are cut to their first 20 of 64 hex digits"
    )
    assert mappers.warnings(text_column(length=255)) == []


def test_a_hash_keeps_null_and_refuses_a_value_that_is_no_string() -> None:
    props = {"column.mask.hash.v2.SHA-256.with.salt.x": "s2.a.bb"}
    assert mapped(props, text_column(), None) is None
    with pytest.raises(DataError, match=r"Cannot hash the int value of character column s2\.a\.bb"):
        mapped(props, text_column(), 5)


@pytest.mark.parametrize("key", ["column.mask.hash.SHA-256.with.salt.x", "column.mask.with.3.chars"])
def test_a_mask_on_a_non_character_column_passes_its_values_marked_masked_with_a_warning(key: str) -> None:
    mappers = ColumnMappers.from_props({key: r"s2\.a\..*"})
    assert mappers.value_mapper(INT_COLUMN) is None
    assert mappers.schema_parameters(INT_COLUMN) == (("masked", "true"),)
    assert mappers.schema_parameters(text_column()) == (("masked", "true"),)
    assert mappers.warnings(INT_COLUMN) == [
        f"{key}: s2.a.n (int4) is not a character column; as in Debezium, its values pass unmasked (its schema "
        "still says masked=true)"
    ]


# -- masks with stars ----------------------------------------------------------------------------------------
def test_a_mask_replaces_every_value_of_a_character_column_null_included() -> None:
    """ColumnMappersTest.shouldMaskStringsToFixedLength, MaskStringsTest."""
    props = {"column.mask.with.10.chars": "s2.a.bb"}
    for value in ("12345678901234567890", "123456789", "", None):
        assert mapped(props, text_column(), value) == "**********"
    assert mapped({"column.mask.with.0.chars": "s2.a.bb"}, text_column(), "secret") == ""
    assert ColumnMappers.from_props(props).warnings(text_column()) == []


# -- truncation ----------------------------------------------------------------------------------------------
def test_truncation_cuts_strings_to_n_and_passes_null_and_shorter_values() -> None:
    """TruncateColumnTest.shouldTruncateStrings."""
    props = {"column.truncate.to.5.chars": "s2.a.bb"}
    cut = [mapped(props, text_column(), v) for v in ("1234567890", "123456", "12345", "1234", "1", None)]
    assert cut == ["12345", "12345", "12345", "1234", "1", None]
    assert mapped({"column.truncate.to.0.chars": "s2.a.bb"}, text_column(), "123") == ""
    assert ColumnMappers.from_props(props).schema_parameters(text_column()) == (("truncateLength", "5"),)


def test_truncation_counts_javas_utf16_code_units_and_keeps_surrogate_pairs_whole() -> None:
    props = {"column.truncate.to.3.chars": "s2.a.bb"}
    assert mapped(props, text_column(), "\u00e9t\u00e9s") == "\u00e9t\u00e9"
    assert mapped(props, text_column(), "a\U0001f600b") == "a\U0001f600"  # the emoji is two units
    assert mapped(props, text_column(), "ab\U0001f600") == "ab"  # Java would keep half of it
    assert mapped(props, text_column(), "\U0001f600") == "\U0001f600"


def test_truncation_cuts_a_binary_columns_bytes_but_no_other_bytes_or_values() -> None:
    """TruncateColumnTest.shouldTruncateByteBufferToPositiveLength; Debezium holds a Decimal or Bits value
    as no ByteBuffer, so only a binary column's bytes are cut."""
    props = {"column.truncate.to.3.chars": r"s2\.a\..*"}
    assert mapped(props, BYTEA_COLUMN, bytes(range(5))) == bytes(range(3))
    assert mapped(props, BYTEA_COLUMN, bytes(range(2))) == bytes(range(2))
    numeric = SourceColumn("s2.a", "d", "numeric", 10, 2, character=False)
    assert mapped(props, numeric, b"\x01\x02\x03\x04") == b"\x01\x02\x03\x04"
    assert mapped(props, numeric, "1234.56") == "123"  # decimal.handling.mode=string: a string, cut
    assert mapped(props, INT_COLUMN, 1234567) == 1234567
    assert ColumnMappers.from_props(props).warnings(BYTEA_COLUMN) == []
    assert ColumnMappers.from_props(props).warnings(INT_COLUMN) == [
        "column.truncate.to.3.chars: s2.a.n (int4) is neither a character nor a binary column; as in Debezium, "
        "its values are cut only where they are strings, the others pass whole"
    ]


def test_truncation_applies_only_to_a_column_whose_length_is_unknown_or_more_than_n() -> None:
    mappers = ColumnMappers.from_props({"column.truncate.to.20.chars": "s2.a.bb"})
    for short in (text_column(length=20), text_column(length=5)):
        assert mappers.value_mapper(short) is None
        assert mappers.schema_parameters(short) == ()
        assert mappers.warnings(short, in_key=True) == []
    assert mappers.value_mapper(text_column(length=21)) is not None
    assert mappers.schema_parameters(text_column(length=None)) == (("truncateLength", "20"),)


# -- source types --------------------------------------------------------------------------------------------
def test_source_type_parameters_in_debeziums_order_with_length_and_scale_only_where_the_column_has_them() -> None:
    """PropagateSourceMetadataToSchemaParameterTest; BinlogSourceTypeInSchemaIT (c1 INT: a name, no length)."""
    numeric = SourceColumn("db.t", "col", "NUMERIC", 5, 2, character=False, comment="numeric column")
    assert source_type_parameters(numeric) == (
        ("__debezium.source.column.type", "NUMERIC"),
        ("__debezium.source.column.length", "5"),
        ("__debezium.source.column.scale", "2"),
        ("__debezium.source.column.comment", "numeric column"),
        ("__debezium.source.column.name", "col"),
    )
    mappers = ColumnMappers.from_props({"column.propagate.source.type": r".*\.c1"})
    c1 = SourceColumn("db.t", "c1", "int", None, None, character=False)
    assert mappers.schema_parameters(c1) == (
        ("__debezium.source.column.type", "INT"),
        ("__debezium.source.column.name", "c1"),
    )
    assert mappers.value_mapper(c1) is None


@pytest.mark.parametrize(
    ("oid", "modifier", "short_name", "length", "scale"),
    [
        (pg.NUMERIC, (5 << 16) + 2 + 4, "numeric", "5", "2"),
        (pg.VARCHAR, 128 + 4, "varchar", "128", "0"),
        (pg.FLOAT4, -1, "float4", "8", "8"),
        (pg.TIMESTAMPTZ, 3, "timestamptz", "32", "3"),
        (1009, -1, "_text", "2147483647", "0"),
        (pg.INTERVAL, 0x7FFF0003, "interval", "49", "3"),
        (pg.INT4, -1, "int4", "10", "0"),
    ],
)
def test_the_postgres_source_type_parameters_are_pgjdbc_s(
    oid: int, modifier: int, short_name: str, length: str, scale: str
) -> None:
    """What pgjdbc's TypeInfoCache gives (source_type.py), through SourceColumn, as the connector has always
    propagated them."""
    column = pg_column("public.t", "c", oid, modifier, short_name)
    assert source_type_parameters(column) == (
        ("__debezium.source.column.type", short_name.upper()),
        ("__debezium.source.column.length", length),
        ("__debezium.source.column.scale", scale),
        ("__debezium.source.column.name", "c"),
    )


def test_postgres_character_and_binary_columns_are_debeziums_jdbc_char_varchar_and_bytea() -> None:
    types = CatalogTypes(labels={60_000: ("a", "b")}, domains={60_001: (pg.VARCHAR, 24)}, extensions={60_002: "citext"})

    def kind(oid: int, name: str) -> tuple[bool, bool]:
        column = pg_column("public.t", "c", oid, -1, name, types)
        return column.character, column.binary

    for oid, name in [(pg.TEXT, "text"), (pg.VARCHAR, "varchar"), (pg.BPCHAR, "bpchar"), (pg.CHAR, "char")]:
        assert kind(oid, name) == (True, False), name
    assert kind(pg.NAME, "name") == (True, False)
    assert kind(60_000, "mood") == (True, False)  # an enum: VARCHAR
    assert kind(60_001, "short_text") == (True, False)  # a domain: its base type's
    assert pg_column("public.t", "c", 60_001, -1, "short_text", types).length == 20
    for oid, name in [(60_002, "citext"), (pg.INT4, "int4"), (1009, "_text"), (pg.JSON, "json"), (pg.UUID, "uuid")]:
        assert kind(oid, name) == (False, False), name
    assert kind(pg.BYTEA, "bytea") == (False, True)


# -- which columns the lists match ---------------------------------------------------------------------------
def test_lists_match_whole_qualified_names_ignoring_ascii_case_only() -> None:
    """ColumnMappersTest: the names upper-cased still match; a trailing comma adds nothing."""
    mappers = ColumnMappers.from_props({"column.mask.with.3.chars": "DB.A.FIRSTNAME,db.A.otherColumn,"})
    assert mappers.value_mapper(text_column("firstName", table="db.A")) is not None
    assert mappers.value_mapper(text_column("otherColumn", table="db.A")) is not None
    assert mappers.value_mapper(text_column("lastName", table="db.A")) is None
    assert mappers.value_mapper(text_column("firstName2", table="db.A")) is None  # anchored at the end
    assert mappers.value_mapper(text_column("firstName", table="x.db.A")) is None  # and at the start
    java_case = ColumnMappers.from_props({"column.mask.with.3.chars": r"s\.t\.\u00c9t\u00c9, s\.t\.\w+"})
    assert java_case.value_mapper(text_column("\u00e9t\u00e9", table="s.t")) is None  # É and é differ for Java
    assert java_case.value_mapper(text_column("\u00c9t\u00c9", table="s.t")) is not None
    assert java_case.value_mapper(text_column("abc_1", table="s.t")) is not None


def test_list_items_are_trimmed_and_a_backslash_escapes_a_comma() -> None:
    mappers = ColumnMappers.from_props({"column.mask.with.3.chars": " s2\\.a\\.b{1\\,2} ,\ts2.b.c "})
    assert [mappers.value_mapper(text_column(n)) is not None for n in ("b", "bb", "bbb")] == [True, True, False]
    assert mappers.value_mapper(text_column("c", table="s2.b")) is not None


def test_datatype_lists_match_the_table_and_type_name_not_the_column() -> None:
    """BinlogSourceTypeInSchemaIT.shouldPropagateSourceTypeByDatatype: `.+\\.FLOAT,.+\\.VARCHAR`."""
    mappers = ColumnMappers.from_props({"datatype.propagate.source.type": r".+\.FLOAT,.+\.VARCHAR"})
    f1 = SourceColumn("db.t", "f1", "FLOAT", 10, None, character=False)
    c3b = SourceColumn("db.t", "c3b", "varchar", 128, None, character=True)
    c3a = SourceColumn("db.t", "c3a", "NUMERIC", 5, 2, character=False)
    named_float = SourceColumn("db.t", "float", "INT", None, None, character=False)
    assert dict(mappers.schema_parameters(f1))["__debezium.source.column.length"] == "10"
    assert dict(mappers.schema_parameters(c3b))["__debezium.source.column.type"] == "VARCHAR"
    assert mappers.schema_parameters(c3a) == mappers.schema_parameters(named_float) == ()


def test_a_column_gets_the_first_matching_mapper_in_debeziums_order_and_a_warning_names_the_others() -> None:
    props = {
        "column.mask.hash.SHA-256.with.salt.x": "s2.a.bb",
        "column.propagate.source.type": "s2.a.bb",
        "column.mask.with.3.chars": "s2.a.bb",
        "column.truncate.to.2.chars": "s2.a.cc",
    }
    mappers = ColumnMappers.from_props(props)
    assert mapped(props, text_column(), "secret") == "***"
    assert mappers.schema_parameters(text_column()) == (("masked", "true"),)
    assert mappers.warnings(text_column()) == [
        "s2.a.bb is matched by column.mask.with.3.chars and by column.propagate.source.type, "
        "column.mask.hash.SHA-256.with.salt.x; as in Debezium, a column gets one mapper, here "
        "column.mask.with.3.chars's (truncation, masks, source types, hashes come in that order): the others do "
        "nothing to it"
    ]
    clear = ColumnMappers.from_props({"column.mask.hash.MD5.with.salt.x": ".*", "column.propagate.source.type": ".*"})
    assert clear.value_mapper(text_column()) is None  # the source type wins: the values pass in clear
    assert "column.propagate.source.type's" in clear.warnings(text_column())[0]


def test_a_masked_key_column_is_in_clear_in_the_key_which_the_warnings_say() -> None:
    mappers = ColumnMappers.from_props({"column.mask.with.3.chars": "s2.a.bb", "column.truncate.to.1.chars": "s2.a.n"})
    assert mappers.warnings(text_column(), in_key=True) == [
        "column.mask.with.3.chars: s2.a.bb (VARCHAR) is in the record's key; as in Debezium, it is masked in the "
        "record's value only and the key carries it whole"
    ]
    assert mappers.warnings(text_column()) == []
    assert "is truncated in the record's value only" in mappers.warnings(INT_COLUMN, in_key=True)[-1]


def test_unmatched_names_each_pattern_that_matches_no_column() -> None:
    mappers = ColumnMappers.from_props(
        {"column.mask.with.3.chars": r"s2\.a\.bb, s2\.a\.gone", "datatype.propagate.source.type": r".+\.JSONB"}
    )
    assert mappers.unmatched([text_column(), INT_COLUMN]) == [
        "column.mask.with.3.chars: 's2\\\\.a\\\\.gone' matches no captured column (it is matched whole, ignoring "
        "case, against <table>.<column>, such as 's2.a.bb')",
        "datatype.propagate.source.type: '.+\\\\.JSONB' matches no captured column (it is matched whole, ignoring "
        "case, against <table>.<type name>, such as 's2.a.VARCHAR')",
    ]
    assert ColumnMappers.from_props({"column.mask.with.3.chars": "s2.a.*"}).unmatched([text_column()]) == []


# -- the keys ------------------------------------------------------------------------------------------------
def test_bad_mapper_keys_are_config_errors_naming_each_key_and_what_is_allowed() -> None:
    props = {
        "column.mask.hash.SHA-257.with.salt.x": "a",
        "column.mask.hash.MD2.with.salt.x": "a",
        "column.mask.with.five.chars": "a",
        "column.truncate.to.2147483648.chars": "a",
        "column.mask.hash.v2.SHA-256.with.salt.x": "(unclosed",
        "datatype.propagate.source.type": "a\\",
        "column.mask.hash.SHA-256": "a",
        "topic.prefix": "x",
    }
    with pytest.raises(ConfigError) as raised:
        ColumnMappers.from_props(props, source="PostgresConnector")
    problems = raised.value.problems
    assert problems == ColumnMappers.problems(props)
    allowed = "MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512, SHA-512/224, SHA-512/256, SHA3-224, SHA3-256"
    assert problems["column.mask.hash.SHA-257.with.salt.x"].startswith(
        f"unknown hash algorithm 'SHA-257': use one of {allowed}"
    )
    assert problems["column.mask.hash.MD2.with.salt.x"].startswith("the hash algorithm MD2 is not supported here")
    forms = "they are column.mask.with.<N>.chars, column.mask.hash.<algorithm>.with.salt.<salt>"
    assert forms in problems["column.mask.with.five.chars"]
    assert forms in problems["column.mask.hash.SHA-256"]
    assert problems["column.truncate.to.2147483648.chars"] == (
        "the number of characters, 2147483648, must be at most 2147483647"
    )
    assert problems["column.mask.hash.v2.SHA-256.with.salt.x"].startswith(
        "'(unclosed' is not a valid regular expression"
    )
    assert problems["datatype.propagate.source.type"] == "'a\\\\' ends in a backslash that escapes nothing"
    assert "topic.prefix" not in problems
    assert "Invalid configuration in PostgresConnector" in str(raised.value)


def test_hash_algorithms_are_javas_names_in_any_case_with_their_aliases() -> None:
    for algorithm in ("sha-256", "SHA256", "Sha-1", "SHA", "md5", "SHA3-512", "SHA512/224"):
        assert ColumnMappers.problems({f"column.mask.hash.{algorithm}.with.salt.s.a.l.t": "x"}) == {}
    alias = mapped({"column.mask.hash.sha256.with.salt.a.b": "s2.a.bb"}, text_column(), "v")
    assert alias == mapped({"column.mask.hash.SHA-256.with.salt.a.b": "s2.a.bb"}, text_column(), "v")
    assert alias != mapped({"column.mask.hash.SHA-256.with.salt.a": "s2.a.bb"}, text_column(), "v")  # salt a.b


def test_keys_lists_the_mapper_keys_and_empty_says_whether_any_list_names_a_column() -> None:
    props = {
        "topic.prefix": "x",
        "column.truncate.to.5.chars": "a",
        "column.mask.oops": "b",
        "column.include.list": "c",
        "datatype.propagate.source.type": "",
    }
    assert ColumnMappers.keys(props) == [
        "column.truncate.to.5.chars",
        "column.mask.oops",
        "datatype.propagate.source.type",
    ]
    assert ColumnMappers.from_props({"topic.prefix": "x"}).empty
    assert ColumnMappers.from_props({"column.mask.with.5.chars": " , "}).empty
    assert not ColumnMappers.from_props({"column.mask.with.5.chars": "a"}).empty
