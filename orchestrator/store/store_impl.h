#ifndef SWEEP_STORE_IMPL_H
#define SWEEP_STORE_IMPL_H

/* Shared between the store's own files (store*.c), nowhere else. */

#include <sqlite3.h>

struct store {
	sqlite3 *db;
	char *dir;
};

int store_db_error(struct store *st, const char *what);

int store_prepare(struct store *st, sqlite3_stmt **stmt, const char *sql);

int store_begin(struct store *st);
int store_end(struct store *st, int ret);

char *store_column_text(sqlite3_stmt *stmt, int col);
/* Binds text, or NULL when text is NULL (SQLITE_STATIC: text outlives the step). */
void store_bind_text_or_null(sqlite3_stmt *stmt, int col, const char *text);
/* Binds v, or NULL for UINT64_MAX ("no value") and what an INT64 cannot hold. */
void store_bind_u64_or_null(sqlite3_stmt *stmt, int col, uint64_t v);

#endif
