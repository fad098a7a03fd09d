"""Shared by migrations (the loader skips modules whose name starts with "_")."""


def compress_with_lz4(schema_editor, columns: list[tuple[str, str]]) -> None:
    """On PostgreSQL 14+ built with lz4, store the (table, column) pairs with
    lz4 TOAST compression: each append of a large document is several times
    cheaper than with the default pglz (bench/append.py). Elsewhere, nothing."""
    connection = schema_editor.connection
    if connection.vendor != "postgresql" or connection.pg_version < 140000:
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)")
        if not cursor.fetchone():
            return
    for table, column in columns:
        schema_editor.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET COMPRESSION lz4")
